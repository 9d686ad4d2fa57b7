/**
 * The extension's own settings: one default each, and one function that
 * turns whatever is stored into valid settings.
 *
 * Job: defaults and validation for what the worker and the pages read from
 * `chrome.storage.local` ("settings"). Search tunables that the host applies
 * (alpha, similarity threshold) live in the host's Settings and travel through
 * get_settings / set_settings; they are not duplicated here.
 * Never: touch `chrome.*` (node tests import this), hold state.
 */

/** Name of the native messaging host (manifests/ and build.py register it). */
export const HOST_NAME = "com.rewind.host";
/** Protocol version this extension speaks (PROTOCOL.md, hello). */
export const PROTOCOL_VERSION = 1;
/** The one command that installs and registers the host. */
export const FIX_COMMAND = "python3 build.py install";

/**
 * @typedef {{
 *   dwellSeconds: number,
 *   paused: boolean,
 *   blocklist: string[],
 *   pausedSites: string[],
 *   resultCount: number,
 *   autoAnswer: boolean,
 *   showScores: boolean,
 *   searchMode: "hybrid" | "semantic" | "keyword",
 *   includeTab: boolean,
 * }} LocalSettings
 */

/** @type {Readonly<LocalSettings>} */
export const DEFAULTS = Object.freeze({
  dwellSeconds: 5, // a page counts as read after 5 s in front (design.md)
  paused: false, // global pause: nothing is recorded, the queue waits
  blocklist: /** @type {string[]} */ ([]), // user's patterns, on top of the built-in ones
  pausedSites: /** @type {string[]} */ ([]), // domains paused from the popup
  resultCount: 10,
  autoAnswer: false, // ask the question typed in the search box automatically
  showScores: false,
  searchMode: /** @type {"hybrid"} */ ("hybrid"),
  includeTab: false, // ask: also send the current tab's text
});

export const LIMITS = Object.freeze({
  dwellSeconds: [1, 600],
  resultCount: [1, 50],
  listItems: 500, // blocklist / pausedSites entries
  itemChars: 300,
});

const MODES = new Set(["hybrid", "semantic", "keyword"]);

/** @param {unknown} v @param {number} lo @param {number} hi @param {number} dflt */
function clampNumber(v, lo, hi, dflt) {
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isFinite(n)) return dflt;
  return Math.min(hi, Math.max(lo, n));
}

/** @param {unknown} v @returns {string[]} */
function stringList(v) {
  if (!Array.isArray(v)) return [];
  const seen = new Set();
  const out = [];
  for (const item of v) {
    if (typeof item !== "string") continue;
    const s = item.trim().slice(0, LIMITS.itemChars);
    if (!s || seen.has(s)) continue;
    seen.add(s);
    out.push(s);
    if (out.length >= LIMITS.listItems) break;
  }
  return out;
}

/**
 * Valid settings from anything stored (missing or bad fields get defaults).
 * @param {unknown} stored @returns {LocalSettings}
 */
export function normalizeSettings(stored) {
  const s = stored && typeof stored === "object" ? /** @type {Record<string, unknown>} */ (stored) : {};
  return {
    dwellSeconds: clampNumber(s.dwellSeconds, ...LIMITS.dwellSeconds, DEFAULTS.dwellSeconds),
    paused: s.paused === true,
    blocklist: stringList(s.blocklist),
    pausedSites: stringList(s.pausedSites).map((d) => d.toLowerCase()),
    resultCount: Math.round(
      clampNumber(s.resultCount, ...LIMITS.resultCount, DEFAULTS.resultCount),
    ),
    autoAnswer: s.autoAnswer === true,
    showScores: s.showScores === true,
    searchMode: MODES.has(/** @type {string} */ (s.searchMode))
      ? /** @type {LocalSettings["searchMode"]} */ (s.searchMode)
      : DEFAULTS.searchMode,
    includeTab: s.includeTab === true,
  };
}

/**
 * Settings after applying a patch; unknown keys are ignored.
 * @param {LocalSettings} current @param {Partial<LocalSettings>} patch
 */
export function applyPatch(current, patch) {
  /** @type {Record<string, unknown>} */
  const next = { ...current };
  for (const key of Object.keys(DEFAULTS)) {
    if (patch && Object.prototype.hasOwnProperty.call(patch, key)) {
      next[key] = /** @type {any} */ (patch)[key];
    }
  }
  return normalizeSettings(next);
}
