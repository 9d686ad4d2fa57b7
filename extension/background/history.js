/**
 * Importing the browser's recent history: the pages a person visited before Rewind was
 * there, kept as "visited, not read".
 *
 * Job: read the span the person chose (7, 30 or 90 days) with chrome.history, apply the
 * same rules as a page read in a tab (incognito never reaches the history; the person's
 * pauses, exclusions and switched-on categories, the sensitive-page policy: a bank visit
 * is never sent), send the rest to the helper in `import_history` requests (titles,
 * addresses, visit times and counts: no page text exists yet), and hand the pages left
 * without text to the backfill, which loads them only if the person agrees. The progress
 * and the last import's summary are kept in chrome.storage for the welcome and options
 * pages.
 * Never: send a visit the rules refuse, read more than the chosen span, or load any
 * page (that is the backfill's job, after consent).
 */

import { refuser } from "./gate.js";
import { verdictMap } from "./pages.js";

export const SPANS_DAYS = Object.freeze([7, 30, 90]);
const KEY = "history_import";
const BATCH = 1000; // visits per import_history request (the host allows 2,000)
const MAX_ENTRIES = 100_000;
const VISIT_LOOKUPS = 16; // chrome.history.getVisits calls in flight

/**
 * @typedef {{url: string, title: string, first_visit: number, last_visit: number,
 *            visit_count: number}} Visit
 * @typedef {{state: "idle"|"running"|"done"|"failed", days: number, found: number,
 *            sent: number, imported: number, updated: number, refusedHere: Record<string, number>,
 *            refusedByHelper: Record<string, number>, pending: number, error: string|null,
 *            at: number|null, tookMs: number|null, phasesMs: Record<string, number>}} ImportSummary
 */

/** @returns {Promise<ImportSummary|null>} */
export async function lastImport() {
  return (await chrome.storage.local.get(KEY))[KEY] ?? null;
}

/** @param {ImportSummary} summary */
function save(summary) {
  return chrome.storage.local.set({ [KEY]: summary });
}

/**
 * The first visit of each page with more than one (one lookup each, a few at a time).
 * @param {chrome.history.HistoryItem[]} items @returns {Promise<Map<string, number>>}
 */
async function firstVisits(items) {
  const first = new Map();
  const many = items.filter((i) => (i.visitCount ?? 1) > 1 && i.url);
  let next = 0;
  async function worker() {
    while (next < many.length) {
      const item = many[next++];
      const visits = await chrome.history.getVisits({ url: /** @type {string} */ (item.url) });
      const times = visits.map((v) => v.visitTime ?? Infinity).filter(Number.isFinite);
      if (times.length) first.set(item.url, Math.min(...times));
    }
  }
  await Promise.all(Array.from({ length: VISIT_LOOKUPS }, worker));
  return first;
}

/**
 * Import the last `days` days of history.
 * @param {{native: import("./native.js").NativeClient,
 *          backfill: import("./backfill.js").Backfill, now?: () => number}} deps
 * @param {number} days one of SPANS_DAYS
 * @returns {Promise<ImportSummary>}
 */
export async function importHistory(deps, days) {
  if (!SPANS_DAYS.includes(days)) throw new Error(`choose ${SPANS_DAYS.join(", ")} days`);
  const now = (deps.now ?? Date.now)();
  /** @type {ImportSummary} */
  const summary = {
    state: "running", days, found: 0, sent: 0, imported: 0, updated: 0, refusedHere: {},
    refusedByHelper: {}, pending: 0, error: null, at: now, tookMs: null, phasesMs: {},
  };
  const clock = deps.now ?? Date.now;
  let mark = clock();
  const phase = (/** @type {string} */ name) => {
    const t = clock();
    summary.phasesMs[name] = (summary.phasesMs[name] ?? 0) + (t - mark);
    mark = t;
  };
  await save(summary);
  try {
    const items = await chrome.history.search({ text: "", startTime: now - days * 86_400_000, maxResults: MAX_ENTRIES });
    summary.found = items.length;
    phase("history");
    const refuse = await refuser({ ignorePause: true });
    // A page not recorded when it was read (its rules, its own signals, the helper's content
    // check, held or not kept) never comes back by its title through the history.
    const judged = await verdictMap();
    const kept = items.filter((item) => {
      const url = String(item.url ?? "");
      const seen = Object.prototype.hasOwnProperty.call(judged, url) ? judged[url] : null;
      const why = refuse(url) ?? (seen ? { category: seen.category } : null);
      if (why) summary.refusedHere[why.category] = (summary.refusedHere[why.category] ?? 0) + 1;
      return !why;
    });
    phase("rules");
    const first = await firstVisits(kept);
    phase("visits");
    /** @type {Visit[]} */
    const visits = kept.map((item) => {
      const last = (item.lastVisitTime ?? now) / 1000;
      return {
        url: String(item.url), title: String(item.title ?? "").slice(0, 1000),
        first_visit: Math.min(last, (first.get(item.url) ?? item.lastVisitTime ?? now) / 1000),
        last_visit: last, visit_count: Math.max(1, item.visitCount ?? 1),
      };
    });
    for (let i = 0; i < visits.length; i += BATCH) {
      const r = await deps.native.request("import_history", { visits: visits.slice(i, i + BATCH) });
      phase("helper");
      summary.sent += Math.min(BATCH, visits.length - i);
      summary.imported += r.imported ?? 0;
      summary.updated += r.updated ?? 0;
      for (const [why, n] of Object.entries(r.skipped ?? {})) {
        summary.refusedByHelper[why] = (summary.refusedByHelper[why] ?? 0) + Number(n);
      }
      summary.pending += (r.pending ?? []).length;
      await deps.backfill.add(r.pending ?? []);
      await save(summary);
      phase("bookkeeping");
    }
    summary.state = "done";
  } catch (err) {
    summary.state = "failed";
    summary.error = String(/** @type {any} */ (err)?.message ?? err).slice(0, 300);
  }
  summary.tookMs = (deps.now ?? Date.now)() - now;
  await save(summary);
  return summary;
}
