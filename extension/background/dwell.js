/**
 * Dwell accounting: how long each page has really been read, and when to read it again.
 *
 * Job: pure functions over a serialisable state — a visit per tab, and what is
 * in front (which tab, whether its window has focus, whether the user is
 * active). Time accrues to a visit only while its tab is in front, its window
 * focused and the user not idle; the caller stores the state
 * (`chrome.storage.session`) and passes the clock in, so a killed worker loses
 * nothing and tests use a fake clock. A visit is extracted at the threshold and,
 * bounded by RECHECK, again after each further minute of reading and when it
 * leaves the front (content loaded late or replaced while the person reads).
 * Never: touch `chrome.*`, read the clock itself, or mutate its input.
 */

/** Re-extraction of a visit that was already extracted: when, and how often at most. */
export const RECHECK = Object.freeze({
  maxExtractions: 5, // a visit, the one at the threshold included
  everyMs: 60_000, // of further reading in front
  minGapMs: 2_000, // of reading since the last one, for a re-extraction on leaving the front
});

/**
 * A hand-on at the threshold a worker may be stopped in the middle of (Chrome stops MV3
 * workers at will): an alarm this far ahead wakes the next worker to hand it on again
 * while the page is still open. The host takes the same visit twice as one.
 */
export const HAND_LEASE_MS = 1_000;

/**
 * @typedef {{
 *   url: string,          // page key: the URL without its fragment
 *   tabId: number,
 *   startedAt: number,    // epoch ms the visit began
 *   accMs: number,        // time accrued while in front, up to `since`
 *   since: number|null,   // epoch ms accrual (re)started, null when not accruing
 *   reported: boolean,    // the threshold passed and the page was handed on
 *   reportedMs: number,   // dwell handed on at that moment
 *   extractions?: number, // how often its text was taken (threshold + re-extractions)
 *   lastExtractMs?: number, // dwell at the last extraction
 *   hash?: string|null,   // content hash of the last extraction
 *   handing?: number|null, // epoch ms a worker began handing it on at the threshold;
 *                         // cleared once handed (a worker stopped mid-way leaves it set)
 * }} Visit
 * @typedef {{tabId: number|null, focused: boolean, active: boolean}} Front
 * @typedef {{visits: Record<string, Visit>, front: Front}} DwellState
 */

/** @returns {DwellState} */
export function emptyState() {
  return { visits: {}, front: { tabId: null, focused: false, active: true } };
}

/** A valid state from whatever was stored. @param {unknown} s @returns {DwellState} */
export function normalizeState(s) {
  const st = /** @type {any} */ (s);
  if (!st || typeof st !== "object" || !st.visits || typeof st.visits !== "object" || !st.front) {
    return emptyState();
  }
  return st;
}

/** @param {DwellState} s */
function clone(s) {
  return {
    visits: Object.fromEntries(Object.entries(s.visits).map(([k, v]) => [k, { ...v }])),
    front: { ...s.front },
  };
}

/** @param {Front} f */
function accruing(f) {
  return f.tabId !== null && f.focused && f.active;
}

/** Dwell of a visit at `now`, in ms. @param {Visit} v @param {number} now */
export function elapsedMs(v, now) {
  return v.accMs + (v.since !== null ? Math.max(0, now - v.since) : 0);
}

/** Stop every visit's clock at `now` (mutates the clone). @param {DwellState} s @param {number} now */
function settle(s, now) {
  for (const v of Object.values(s.visits)) {
    if (v.since !== null) {
      v.accMs += Math.max(0, now - v.since);
      v.since = null;
    }
  }
}

/** Restart the front visit's clock if it should run (mutates). @param {DwellState} s @param {number} now */
function resume(s, now) {
  if (!accruing(s.front)) return;
  const v = s.visits[String(s.front.tabId)];
  if (v) v.since = now;
}

/**
 * What is in front changed (tab, window focus or idle state).
 * @param {DwellState} state @param {Partial<Front>} patch @param {number} now
 * @returns {DwellState}
 */
export function setFront(state, patch, now) {
  const s = clone(state);
  settle(s, now);
  s.front = { ...s.front, ...patch };
  resume(s, now);
  return s;
}

/**
 * A tab shows a page. The same page again (reload, fragment, duplicate event)
 * keeps the running visit; another page ends it and starts a new one.
 * @param {DwellState} state @param {{tabId: number, url: string}} page @param {number} now
 * @returns {{state: DwellState, ended: Visit|null}}
 */
export function startVisit(state, page, now) {
  const key = String(page.tabId);
  const existing = state.visits[key];
  if (existing && existing.url === page.url) return { state, ended: null };
  const s = clone(state);
  settle(s, now);
  const ended = existing ? { ...s.visits[key] } : null;
  s.visits[key] = {
    url: page.url,
    tabId: page.tabId,
    startedAt: now,
    accMs: 0,
    since: null,
    reported: false,
    reportedMs: 0,
  };
  resume(s, now);
  return { state: s, ended };
}

/**
 * The tab closed, or moved to a page that is not recorded.
 * @param {DwellState} state @param {number} tabId @param {number} now
 * @returns {{state: DwellState, ended: Visit|null}}
 */
export function endVisit(state, tabId, now) {
  const key = String(tabId);
  if (!state.visits[key]) return { state, ended: null };
  const s = clone(state);
  settle(s, now);
  const ended = { ...s.visits[key] };
  delete s.visits[key];
  resume(s, now);
  return { state: s, ended };
}

/**
 * Visits that passed the threshold and were not handed on yet.
 * @param {DwellState} state @param {number} now @param {number} thresholdMs @returns {Visit[]}
 */
export function dueVisits(state, now, thresholdMs) {
  return Object.values(state.visits).filter(
    (v) => !v.reported && elapsedMs(v, now) >= thresholdMs,
  );
}

/**
 * Mark a visit as handed on (only if the tab still shows that page).
 * @param {DwellState} state @param {number} tabId @param {string} url @param {number} now
 * @returns {DwellState}
 */
export function markReported(state, tabId, url, now) {
  const v = state.visits[String(tabId)];
  if (!v || v.url !== url || v.reported) return state;
  const s = clone(state);
  const w = s.visits[String(tabId)];
  w.reported = true;
  w.reportedMs = elapsedMs(w, now);
  w.extractions = 1;
  w.lastExtractMs = w.reportedMs;
  w.handing = now;
  return s;
}

/**
 * Visits whose hand-on at the threshold began before this worker started (`bornAt`) and
 * never finished: the worker doing it was stopped.
 * @param {DwellState} state @param {number} bornAt @returns {Visit[]}
 */
export function interrupted(state, bornAt) {
  return Object.values(state.visits).filter(
    (v) => v.reported && typeof v.handing === "number" && v.handing < bornAt,
  );
}

/**
 * This worker hands an interrupted visit on again from now.
 * @param {DwellState} state @param {number} tabId @param {string} url @param {number} now
 */
export function markHanding(state, tabId, url, now) {
  const v = state.visits[String(tabId)];
  if (!v || v.url !== url || !v.reported) return state;
  const s = clone(state);
  s.visits[String(tabId)].handing = now;
  return s;
}

/**
 * The visit was handed on (or its hand-on failed and said so): nothing left to redo.
 * @param {DwellState} state @param {number} tabId @param {string} url
 */
export function handed(state, tabId, url) {
  const v = state.visits[String(tabId)];
  if (!v || v.url !== url || v.handing == null) return state;
  const s = clone(state);
  s.visits[String(tabId)].handing = null;
  return s;
}

/** @param {Visit} v */
function mayExtractAgain(v) {
  return v.reported && (v.extractions ?? 1) < RECHECK.maxExtractions;
}

/**
 * Extracted visits due to be read again: a minute more of reading since the last time.
 * @param {DwellState} state @param {number} now @returns {Visit[]}
 */
export function dueRechecks(state, now) {
  return Object.values(state.visits).filter(
    (v) => mayExtractAgain(v) && elapsedMs(v, now) - (v.lastExtractMs ?? 0) >= RECHECK.everyMs,
  );
}

/**
 * Extracted visits that were accruing in `before` and are not in `after` (the person
 * switched tabs, windows or went idle) and were read a little since their last extraction.
 * @param {DwellState} before @param {DwellState} after @param {number} now @returns {Visit[]}
 */
export function leftFront(before, after, now) {
  return Object.values(before.visits).filter((v) => {
    const next = after.visits[String(v.tabId)];
    return (
      v.since !== null &&
      next &&
      next.url === v.url &&
      next.since === null &&
      mayExtractAgain(next) &&
      elapsedMs(next, now) - (next.lastExtractMs ?? 0) >= RECHECK.minGapMs
    );
  });
}

/**
 * A re-extraction of the visit starts now (counted before it runs, so a failing page
 * cannot be extracted without bound).
 * @param {DwellState} state @param {number} tabId @param {string} url @param {number} now
 */
export function markExtracting(state, tabId, url, now) {
  const v = state.visits[String(tabId)];
  if (!v || v.url !== url || !mayExtractAgain(v)) return state;
  const s = clone(state);
  const w = s.visits[String(tabId)];
  w.extractions = (w.extractions ?? 1) + 1;
  w.lastExtractMs = elapsedMs(w, now);
  return s;
}

/**
 * Remember the content hash of the visit's last extraction.
 * @param {DwellState} state @param {number} tabId @param {string} url @param {string} hash
 */
export function setHash(state, tabId, url, hash) {
  const v = state.visits[String(tabId)];
  if (!v || v.url !== url || v.hash === hash) return state;
  const s = clone(state);
  s.visits[String(tabId)].hash = hash;
  return s;
}

/**
 * Milliseconds until the running visit reaches the threshold (or, once extracted, its
 * next re-extraction), or null when nothing is accruing towards either (so no timer or
 * alarm is needed). A visit being handed on keeps a lease of HAND_LEASE_MS; one a stopped
 * worker was handing on (before `bornAt`) is due now.
 * @param {DwellState} state @param {number} now @param {number} thresholdMs
 * @param {number} [bornAt] @returns {number|null}
 */
export function msUntilDue(state, now, thresholdMs, bornAt = -Infinity) {
  let best = null;
  for (const v of Object.values(state.visits)) {
    if (v.reported && typeof v.handing === "number") {
      if (v.handing < bornAt) return 0; // a stopped worker's: hand it on now
      best = best === null ? HAND_LEASE_MS : Math.min(best, HAND_LEASE_MS); // the lease
      continue;
    }
    if (v.reported && !mayExtractAgain(v)) continue;
    const left = v.reported
      ? RECHECK.everyMs - (elapsedMs(v, now) - (v.lastExtractMs ?? 0))
      : thresholdMs - elapsedMs(v, now);
    if (left <= 0) return 0;
    if (v.since !== null && (best === null || left < best)) best = left;
  }
  return best;
}
