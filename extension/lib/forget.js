/**
 * "Forget this page" where a page is shown (a side-panel result, the popup).
 *
 * Job: `forgetButton(url, done)` — a button that asks first, then forgets the page
 * through the worker (the host's store, text index and vectors, and the worker's own
 * queue and remembered hashes: handlers/relay.js), and tells `done` how it went.
 * Never: forget without the person's confirmation, or anything but the one URL given.
 */

import { call } from "./client.js";
import { h } from "./dom.js";

/**
 * @param {string} url
 * @param {(outcome: {ok: boolean, removed?: number, error?: any}) => void} done
 * @param {(question: string) => boolean} [confirmFn]
 */
export function forgetButton(url, done, confirmFn = (q) => window.confirm(q)) {
  return h("button", {
    type: "button",
    class: "small secondary forget",
    text: "Forget",
    title: "Forget this page: Rewind removes everything it kept of it",
    "aria-label": `Forget this page: ${url}`,
    on: {
      click: async (/** @type {Event} */ ev) => {
        ev.preventDefault();
        ev.stopPropagation(); // the result itself opens the page on click
        if (!confirmFn(`Forget ${url}? Rewind removes everything it kept of this page.`)) return;
        try {
          const r = await call("forget", { url });
          done({ ok: true, removed: Number(r?.removed ?? 0) });
        } catch (error) {
          done({ ok: false, error });
        }
      },
    },
  });
}
