/**
 * Options section "Your browser's history": import the recent history again (another
 * span), and load, pause or stop loading its pages' text: the welcome page's controls
 * (lib/history-view.js), drawn once the helper is connected.
 * Never: start anything without the person's click.
 */

import { mountHistory } from "../lib/history-view.js";

/** @param {HTMLElement} _root @param {import("./page.js").Page} page */
export function mount(_root, page) {
  let mounted = false;
  page.onLoad(() => {
    if (mounted || !page.connected) return;
    mounted = true;
    mountHistory(page.$("browser-history"), page.$("browser-history-msg"));
  });
}
