/**
 * The options page's "Your browser's history" section: import the recent history again
 * (another span), and load, pause or stop loading its pages' text (lib/history-view.js,
 * the same controls as the welcome page).
 * Never: start anything without the person's click.
 */

import { call } from "../lib/client.js";
import { historyView } from "../lib/history-view.js";

/** @param {HTMLElement} box @param {HTMLElement} msg */
export function mountHistory(box, msg) {
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  let busy = false;

  async function render() {
    clearTimeout(timer);
    try {
      const st = await call("history_status");
      box.replaceChildren(historyView(st, act, { busy }));
      if (busy || st.import?.state === "running" || st.backfill?.state === "running") timer = setTimeout(render, 1000);
    } catch (err) {
      msg.textContent = String(/** @type {any} */ (err)?.message ?? err);
    }
  }

  /** @param {string} action @param {object} [fields] */
  async function act(action, fields = {}) {
    msg.textContent = "";
    busy = action === "history_import";
    const done = call(action, fields).catch((err) => {
      msg.textContent = String(err?.message ?? err);
    });
    await render();
    await done;
    busy = false;
    await render();
  }

  return render();
}
