/**
 * Search results sorted for showing: the relevant ones shown, the weak ones folded.
 *
 * Job: split a search reply's results by the host's `relevant` flag (PROTOCOL.md,
 * search), and say in words what was found ("3 results in 12 ms", "Less relevant (4)").
 * A host that sends no `relevant` flag (older than the relevance floor) gets every
 * result shown, as before: nothing is hidden on a guess made here.
 * Never: touch the DOM or `chrome.*` (node tests import this); reorder results (the
 * host's order is the ranking).
 */

/**
 * @param {unknown} results the reply's `results`
 * @returns {{shown: any[], folded: any[]}}
 */
export function foldResults(results) {
  const list = Array.isArray(results) ? results.filter((r) => r && typeof r === "object") : [];
  return {
    shown: list.filter((r) => r.relevant !== false),
    folded: list.filter((r) => r.relevant === false),
  };
}

/** "1 result" / "3 results" @param {number} n */
function results(n) {
  return `${n} result${n === 1 ? "" : "s"}`;
}

/**
 * The line above the results.
 * @param {{shown: any[], folded: any[]}} fold
 * @param {{query: string, tookMs?: unknown, keywordMode?: boolean}} info
 */
export function searchSummary(fold, info) {
  const took = Number(info.tookMs);
  const ms = Number.isFinite(took) ? ` in ${Math.round(took)} ms` : "";
  if (fold.shown.length) return `${results(fold.shown.length)}${ms}`;
  if (fold.folded.length) {
    return `Nothing you've read clearly matches “${info.query}”. The closest pages are folded below.`;
  }
  const tip = info.keywordMode ? "" : ", or Keyword mode for exact words";
  return `Nothing you've read matches “${info.query}”. Try other words${tip}.`;
}

/** The folded section's label. @param {number} n */
export function foldedLabel(n) {
  return `Less relevant (${n})`;
}
