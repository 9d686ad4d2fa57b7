/**
 * The history backfill's bookkeeping: which page to load next, what came of it, how long
 * the rest will take. Pure functions over one plain state object (kept in
 * chrome.storage.local by background/backfill.js, so a stopped worker loses nothing).
 *
 * Job: `normalize` a stored state; `addPending` the pages an import left without text;
 * `nextPage` picks the next one whose site may be asked again (at most one request per
 * site per `gapMs`); `settle` records a page's outcome (loaded, or skipped with the reason
 * a person reads); `progress` says how far it is and the time left; `responseProblem`
 * turns an HTTP answer into the reason a page is skipped (a sign-in, an error, not HTML).
 * Never: touch `chrome.*` or the network (node tests import this), or keep page text.
 */

import { siteOfUrl } from "./rules.js";

export const GAP_MS = 1000; // one request per site per second at most
export const KEEP_SKIPPED = 200; // reasons kept for the options page (the count is exact)
const RATE_SAMPLES = 20;

/**
 * @typedef {{url: string, last_visit: number}} Pending
 * @typedef {{url: string, reason: string, at: number}} Skipped
 * @typedef {{
 *   consented: boolean, state: "idle"|"running"|"paused"|"done", pending: Pending[],
 *   loaded: number, skippedCount: number, skipped: Skipped[], total: number,
 *   durations: number[], startedAt: number|null, finishedAt: number|null,
 *   waiting: string|null,
 * }} BackfillState
 */

/** @returns {BackfillState} */
export function emptyState() {
  return {
    consented: false, state: "idle", pending: [], loaded: 0, skippedCount: 0, skipped: [],
    total: 0, durations: [], startedAt: null, finishedAt: null, waiting: null,
  };
}

/** Whatever is stored, as a valid state. @param {any} raw @returns {BackfillState} */
export function normalize(raw) {
  const s = emptyState();
  if (!raw || typeof raw !== "object") return s;
  const num = (/** @type {any} */ v) => (Number.isFinite(v) && v >= 0 ? Number(v) : 0);
  s.consented = raw.consented === true;
  s.state = ["idle", "running", "paused", "done"].includes(raw.state) ? raw.state : "idle";
  s.pending = Array.isArray(raw.pending)
    ? raw.pending.filter((p) => p && typeof p.url === "string").map((p) => ({ url: p.url, last_visit: num(p.last_visit) }))
    : [];
  s.loaded = num(raw.loaded);
  s.skippedCount = num(raw.skippedCount);
  s.skipped = Array.isArray(raw.skipped) ? raw.skipped.slice(-KEEP_SKIPPED) : [];
  s.total = Math.max(num(raw.total), s.loaded + s.skippedCount + s.pending.length);
  s.durations = Array.isArray(raw.durations) ? raw.durations.filter(Number.isFinite).slice(-RATE_SAMPLES) : [];
  s.startedAt = Number.isFinite(raw.startedAt) ? raw.startedAt : null;
  s.finishedAt = Number.isFinite(raw.finishedAt) ? raw.finishedAt : null;
  s.waiting = typeof raw.waiting === "string" ? raw.waiting : null;
  return s;
}

/**
 * Pages an import left without text join the list (once each); a finished job that gets
 * more pages runs again if the person had agreed.
 * @param {BackfillState} s @param {Pending[]} pages @returns {BackfillState}
 */
export function addPending(s, pages) {
  const have = new Set(s.pending.map((p) => p.url));
  /** @type {Pending[]} */
  const fresh = [];
  for (const p of pages) {
    if (!p || typeof p.url !== "string" || have.has(p.url)) continue;
    have.add(p.url);
    fresh.push({ url: p.url, last_visit: Number(p.last_visit) || 0 });
  }
  if (!fresh.length) return s;
  const state = s.state === "done" && s.consented ? "running" : s.state;
  return { ...s, pending: [...s.pending, ...fresh], total: s.total + fresh.length, state, finishedAt: null };
}

/**
 * The next page to load: the first whose site was last asked `gapMs` ago or more.
 * @param {BackfillState} s @param {Record<string, number>} lastBySite @param {number} now
 * @returns {{page: Pending|null, waitMs: number}} no page: wait this long (0: none left)
 */
export function nextPage(s, lastBySite, now, gapMs = GAP_MS) {
  let soonest = Infinity;
  for (const p of s.pending) {
    const last = lastBySite[siteOfUrl(p.url)] ?? -Infinity;
    const ready = last + gapMs;
    if (ready <= now) return { page: p, waitMs: 0 };
    soonest = Math.min(soonest, ready - now);
  }
  return { page: null, waitMs: Number.isFinite(soonest) ? soonest : 0 };
}

/**
 * A page is done: loaded (its text went to the helper) or skipped, with why.
 * @param {BackfillState} s @param {string} url
 * @param {{loaded: true} | {loaded: false, reason: string}} outcome
 * @param {number} tookMs @param {number} now @returns {BackfillState}
 */
export function settle(s, url, outcome, tookMs, now) {
  const pending = s.pending.filter((p) => p.url !== url);
  const next = {
    ...s,
    pending,
    durations: [...s.durations, Math.max(0, tookMs)].slice(-RATE_SAMPLES),
    waiting: null,
  };
  if (outcome.loaded) next.loaded = s.loaded + 1;
  else {
    next.skippedCount = s.skippedCount + 1;
    next.skipped = [...s.skipped, { url, reason: outcome.reason, at: now }].slice(-KEEP_SKIPPED);
  }
  if (!pending.length && next.state === "running") {
    next.state = "done";
    next.finishedAt = now;
  }
  return next;
}

/**
 * How far the job is, and how long the rest takes at the recent pace (each page's time,
 * plus the per-site gap when few sites are left to alternate between).
 * @param {BackfillState} s
 * @returns {{done: number, total: number, percent: number, etaS: number|null}}
 */
export function progress(s) {
  const done = s.loaded + s.skippedCount;
  const total = Math.max(s.total, done + s.pending.length);
  const percent = total ? Math.round((1000 * done) / total) / 10 : 100;
  if (!s.pending.length || !s.durations.length) return { done, total, percent, etaS: s.pending.length ? null : 0 };
  const sorted = [...s.durations].sort((a, b) => a - b);
  const perPage = sorted[Math.floor(sorted.length / 2)];
  const sites = new Set(s.pending.map((p) => siteOfUrl(p.url))).size;
  const perSite = Math.ceil(s.pending.length / Math.max(1, sites));
  const etaMs = Math.max(s.pending.length * perPage, perSite * GAP_MS);
  return { done, total, percent, etaS: Math.round(etaMs / 1000) };
}

const LOGIN_PATH = /(^|[/._-])(log-?in|sign-?in|signon|auth|sso|oauth2?|account\/login|session\/new)([/._?-]|$)/i;

/**
 * Why an HTTP answer cannot be read as the page, or null when it can.
 * @param {{status: number, redirected: boolean, url: string, contentType: string}} r
 * @param {string} requested the page's address
 * @returns {string|null}
 */
export function responseProblem(r, requested) {
  if (r.status === 401 || r.status === 403) return `it needs you to sign in (the site answered ${r.status})`;
  if (r.redirected && r.url && r.url !== requested) {
    let path = "";
    try {
      const u = new URL(r.url);
      path = `${u.pathname}${u.search}`;
    } catch {
      path = "";
    }
    if (LOGIN_PATH.test(path)) return "it needs you to sign in (the site sent a sign-in page)";
  }
  if (r.status < 200 || r.status >= 300) return `the site answered ${r.status}`;
  const type = r.contentType.split(";")[0].trim().toLowerCase();
  if (type && type !== "text/html" && type !== "application/xhtml+xml") return `it is not a web page (${type})`;
  return null;
}
