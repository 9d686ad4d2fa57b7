/**
 * History actions: importing the recent history and, with consent, loading its pages'
 * text (the welcome page, the options page and the popup use these).
 *
 * Job: `history_status` (the last import, the backfill's progress and the words the
 * person agrees to, the spans on offer, the keyboard shortcut of the side panel),
 * `history_import` ({days}), `backfill_consent`, `backfill_pause` ({paused}),
 * `backfill_cancel`.
 * Never: start loading pages without `backfill_consent`, which a page sends only from the
 * person's click on a button that shows those words.
 */

import { SPANS_DAYS, importHistory, lastImport } from "../history.js";

/** @typedef {import("../dispatch.js").Deps} Deps */

/** The side panel's shortcut as Chrome has it now ("" when none is set: Chrome did not
 * assign the suggested one, or the person removed it), and the one the manifest suggests. */
async function panelShortcut() {
  const commands = await chrome.commands.getAll();
  const suggested = /** @type {any} */ (chrome.runtime.getManifest()).commands?.["open-side-panel"]?.suggested_key?.default ?? "";
  return { shortcut: commands.find((c) => c.name === "open-side-panel")?.shortcut ?? "", suggested };
}

/** @param {Deps} deps */
export async function historyStatus(deps) {
  const [last, backfill, keys] = await Promise.all([lastImport(), deps.backfill.status(), panelShortcut()]);
  return { import: last, backfill, spans: SPANS_DAYS, ...keys };
}

/** @param {Deps} deps @param {any} msg */
export async function historyImport(deps, msg) {
  return importHistory(deps, Number(msg.days));
}

/** @param {Deps} deps */
export function backfillConsent(deps) {
  return deps.backfill.consent();
}

/** @param {Deps} deps @param {any} msg */
export function backfillPause(deps, msg) {
  return deps.backfill.setPaused(msg.paused !== false);
}

/** @param {Deps} deps */
export function backfillCancel(deps) {
  return deps.backfill.cancel();
}
