/**
 * The options page's "Held for your decision" section: the same list as the popup's.
 *
 * Job: `mount(root)` (the options page's section) and `mountHeld(root)` show the pages the host held (lib/held.js), each with Keep and
 * Don't keep, refreshed after each decision and when the worker's state changes.
 * Never: talk to the host but through the worker, or render page text as HTML.
 */

import { call, inExtension } from "../lib/client.js";
import { h } from "../lib/dom.js";
import { heldView } from "../lib/held.js";

/** @param {HTMLElement} root */
export function mountHeld(root) {
  const note = h("p", { class: "muted small", role: "status" });
  const list = h("div");
  root.append(list, note);

  async function refresh() {
    try {
      const reply = await call("held_list");
      const view = heldView(reply?.held ?? [], decide);
      list.replaceChildren(...(view ? [view] : []));
      if (!view) note.textContent = "No page is waiting for your decision.";
    } catch (err) {
      list.replaceChildren();
      note.textContent = `The list could not be loaded: ${String(/** @type {any} */ (err)?.message ?? err)}`;
    }
  }

  /** @param {import("../lib/held.js").HeldPage} page @param {boolean} keep */
  async function decide(page, keep) {
    try {
      await call("held_decide", { id: page.id, keep, url: page.url });
      note.textContent = keep ? `Kept: ${page.title || page.url}.` : `Not kept: it was wiped.`;
    } catch (err) {
      note.textContent = String(/** @type {any} */ (err)?.message ?? err);
    }
    refresh();
  }

  refresh();
  return { refresh };
}

/** The options page's section (options.js). @param {HTMLElement} root */
export function mount(root) {
  if (inExtension()) mountHeld(root);
}
