/**
 * The current page's status in words, for the popup.
 *
 * Job: turn the worker's `page_status` answer into one sentence a person reads —
 * "Remembered 2 min ago", "Not recorded: looks like a payment page", "Paused on this
 * site", "Will be remembered after 5 s of reading" — and say which one-click actions make
 * sense (pause or resume the site, always record it or stop, forget the page).
 * Never: touch the DOM or `chrome.*` (node tests import it), or produce HTML.
 */

import { relativeTime } from "./format.js";

/** Categories that are the person's own choice or the browser's: "always record" does not apply. */
const NOT_OVERRIDABLE = new Set(["incognito", "paused", "paused-all", "excluded", "not-web", "bad-url", "credentials", "no-policy", "unreadable"]);

/**
 * @typedef {{category: string, why: string, by?: string}} Reason
 * @typedef {{
 *   tab: {url: string, title: string, site: string, incognito: boolean}|null,
 *   rule?: Reason|null, verdict?: Reason|null,
 *   queued?: {state: "waiting"|"failed", ahead?: number, error?: string|null}|null,
 *   page?: {last_visit?: number, indexed_at?: number}|null,
 *   connected?: boolean, dwell?: {elapsed_ms: number, reported: boolean}|null,
 *   threshold_s?: number, paused?: boolean, site_paused?: boolean, always?: boolean,
 * }} PageStatus
 * @typedef {{
 *   text: string, tone: "ok"|"wait"|"off"|"bad",
 *   actions: {pauseSite: boolean, resumeSite: boolean, alwaysRecord: boolean, stopAlways: boolean, forget: boolean},
 * }} StatusLine
 */

/** @param {string} why */
function sentence(why) {
  return why.charAt(0).toLowerCase() + why.slice(1);
}

/**
 * @param {PageStatus} st @param {number} [nowMs]
 * @returns {StatusLine}
 */
export function pageStatusLine(st, nowMs = Date.now()) {
  const site = Boolean(st.tab?.site);
  const stored = Boolean(st.page);
  const actions = {
    pauseSite: site && !st.site_paused,
    resumeSite: site && Boolean(st.site_paused),
    alwaysRecord: false,
    stopAlways: site && Boolean(st.always),
    forget: stored || st.queued?.state === "waiting",
  };
  /** @param {string} text @param {StatusLine["tone"]} tone */
  const line = (text, tone) => ({ text, tone, actions });
  if (!st.tab) return line("No page in front.", "off");
  if (!site) return line("Rewind records web pages only.", "off");
  const rule = st.rule;
  if (st.paused || rule?.category === "paused-all") return line("Rewind is paused.", "off");
  if (st.site_paused || rule?.category === "paused") return line("Paused on this site.", "off");
  if (rule?.category === "incognito") return line("Not recorded: incognito windows are never recorded.", "off");
  if (!rule && st.verdict?.by === "held") {
    return line(`Held for your decision: it ${sentence(st.verdict.why)} — keep it or not in the list below.`, "wait");
  }
  const reason = rule ?? st.verdict ?? null;
  if (reason) {
    actions.alwaysRecord = !st.always && !NOT_OVERRIDABLE.has(reason.category);
    const by = st.verdict && !rule && st.verdict.by === "host" ? " (Rewind's helper checked its text)" : "";
    if (!rule && st.verdict?.by === "declined") return line(`Not recorded: ${sentence(reason.why)}.`, "off");
    return line(`Not recorded: ${sentence(reason.why)}${by}.`, "off");
  }
  if (st.queued?.state === "failed") {
    return line(`Could not be remembered${st.queued.error ? ` (${st.queued.error})` : ""}.`, "bad");
  }
  if (stored && st.page) {
    const when = Math.max(Number(st.page.indexed_at) || 0, Number(st.page.last_visit) || 0);
    return line(`Remembered ${relativeTime(when, nowMs)}.`, "ok");
  }
  if (st.queued?.state === "waiting") {
    const away = st.connected === false ? " (Rewind's helper isn't connected)" : "";
    return line(`Waiting to be remembered${away}.`, "wait");
  }
  const threshold = Number(st.threshold_s) || 5;
  if (st.dwell?.reported && st.connected === false) {
    return line("Read; Rewind's helper isn't connected, so whether it is remembered is unknown.", "wait");
  }
  if (st.dwell && !st.dwell.reported) {
    const left = Math.max(1, Math.ceil(threshold - st.dwell.elapsed_ms / 1000));
    return line(`Will be remembered after ${left} s of reading.`, "wait");
  }
  if (st.dwell?.reported) return line("Read, but no text worth remembering was found.", "off");
  return line(`Will be remembered after ${threshold} s of reading.`, "wait");
}
