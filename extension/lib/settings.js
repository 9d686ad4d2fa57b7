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
/** The one command that installs and registers the host (`rewind setup`, README). */
export const FIX_COMMAND = "rewind setup";
/** The same, for a person who runs Rewind from its source folder. */
export const FIX_FROM_SOURCE = "python3 build.py install";

/**
 * @typedef {{
 *   dwellSeconds: number,
 *   paused: boolean,
 *   blocklist: string[],
 *   pausedSites: string[],
 *   alwaysRecord: string[],
 *   disabledCategories: string[],
 *   redact: boolean,
 *   autoAnswer: boolean,
 *   showScores: boolean,
 *   searchMode: "hybrid" | "semantic" | "keyword",
 *   includeTab: boolean,
 * }} LocalSettings
 */

/** @type {Readonly<LocalSettings>} */
export const DEFAULTS = Object.freeze({
  dwellSeconds: 5, // a page counts as read after 5 s in front (the design's threshold, after Chrome's 5 s delay)
  paused: false, // global pause: nothing is recorded, the queue waits
  blocklist: /** @type {string[]} */ ([]), // user's patterns, on top of the built-in ones
  pausedSites: /** @type {string[]} */ ([]), // domains paused from the popup
  alwaysRecord: /** @type {string[]} */ ([]), // sites recorded despite built-in patterns (never incognito)
  disabledCategories: /** @type {string[]} */ ([]), // built-in categories the person switched off
  redact: true, // mask e-mail addresses, card numbers... in passages before they leave the page
  // (how many results a search shows is the host's `default_limit`: one setting, there)
  autoAnswer: false, // ask the question typed in the search box automatically
  showScores: false,
  searchMode: /** @type {"hybrid"} */ ("hybrid"),
  includeTab: false, // ask: also send the current tab's text
});

export const LIMITS = Object.freeze({
  dwellSeconds: [1, 600],
  listItems: 500, // blocklist / pausedSites entries
  itemChars: 300,
});

/**
 * The search modes, as the host defines them (host/rewind/search_modes.py): hybrid is the
 * default. tests/search/test_search_modes.py holds this list, the typedef above and the
 * side panel's radio buttons to the host's.
 */
export const SEARCH_MODES = Object.freeze(/** @type {const} */ (["hybrid", "semantic", "keyword"]));
const MODES = new Set(/** @type {readonly string[]} */ (SEARCH_MODES));

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
    alwaysRecord: stringList(s.alwaysRecord).map((d) => d.toLowerCase()),
    disabledCategories: stringList(s.disabledCategories),
    redact: s.redact !== false, // on unless switched off
    autoAnswer: s.autoAnswer === true,
    showScores: s.showScores === true,
    searchMode: MODES.has(/** @type {string} */ (s.searchMode))
      ? /** @type {LocalSettings["searchMode"]} */ (s.searchMode)
      : DEFAULTS.searchMode,
    includeTab: s.includeTab === true,
  };
}

/**
 * The chunker's limits (content/chunker.js LIMITS names) from hello's `capture`; a
 * missing or bad value keeps the chunker's own default (the same numbers as the host's).
 * @param {unknown} capture @returns {Record<string, number>}
 */
export function chunkerLimits(capture) {
  const c = capture && typeof capture === "object" ? /** @type {Record<string, unknown>} */ (capture) : {};
  /** @type {Record<string, number>} */
  const out = {};
  for (const [hostKey, ours] of Object.entries(CAPTURE_KEYS)) {
    const v = c[hostKey];
    if (typeof v === "number" && Number.isInteger(v) && v > 0) out[ours] = v;
  }
  return out;
}

/**
 * The time the content script may read a page in (hello's `capture`, the host's Settings),
 * or {} before the first hello (visible.js's defaults).
 * @param {unknown} capture
 */
export function extractBudget(capture) {
  const c = capture && typeof capture === "object" ? /** @type {Record<string, unknown>} */ (capture) : {};
  /** @type {{budgetMs?: number, sliceMs?: number}} */
  const out = {};
  for (const [hostKey, ours] of [["extract_budget_ms", "budgetMs"], ["extract_slice_ms", "sliceMs"]]) {
    const v = c[hostKey];
    if (typeof v === "number" && Number.isInteger(v) && v > 0) /** @type {any} */ (out)[ours] = v;
  }
  return out;
}

/** hello's `capture` field -> the chunker's limit of the same meaning. */
export const CAPTURE_KEYS = Object.freeze({
  max_passage_words: "maxWords",
  min_passage_words: "minWords",
  max_passages_per_page: "maxPassages",
  max_passage_chars: "maxPassageChars",
  max_title_chars: "maxTitleChars",
});

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
