/**
 * What the extension remembers per page URL: the content hash it sent, why a page was not
 * recorded, and what the person forgot.
 *
 * Job: three bounded maps in `chrome.storage.local` — url -> content hash delivered (an
 * unchanged revisit sends only a visit record), url -> verdict (not recorded: by the
 * extension's rules, the page's own signals or the host's refusal; such a page is not
 * extracted or sent again), and forget marks (a page, site or time range forgotten: a
 * queued copy read before the forget never reaches the host).
 * Never: store page text, keep a copy in worker globals, or grow without bound.
 */

import { hostMatches } from "../lib/rules.js";
import { serial } from "./serial.js";

const KNOWN = "known_hashes";
const VERDICTS = "page_verdicts";
const FORGETS = "forget_marks";
export const MAX_KNOWN = 5000; // oldest entries are evicted past this
export const MAX_VERDICTS = 2000;
export const MAX_FORGETS = 200;

/**
 * @typedef {{category: string, why: string, by: "rules"|"page"|"host"|"held"|"declined", at: number, hash?: string}} Verdict
 *   held: waiting for the person's keep / don't keep (its content hash, to remember once kept);
 *   declined: the person did not keep it
 * @typedef {{url?: string, domain?: string, all?: boolean, since?: number, until?: number, at: number}} ForgetMark
 *   url / domain / all: what was forgotten at `at` (epoch ms); since/until: a time range (epoch s)
 */

const lane = serial();

/** @template T @param {string} key @returns {Promise<Record<string, T>>} */
async function readMap(key) {
  const got = await chrome.storage.local.get(key);
  const m = got[key];
  return m && typeof m === "object" && !Array.isArray(m) ? m : {};
}

/**
 * Keep the `max` newest entries (by their `at`).
 * @param {Record<string, {at: number}>} m @param {number} max
 */
function trim(m, max) {
  const keys = Object.keys(m);
  if (keys.length <= max) return;
  keys.sort((a, b) => m[a].at - m[b].at);
  for (const k of keys.slice(0, keys.length - max)) delete m[k];
}

// ---- content hashes ---------------------------------------------------------------------

/** @param {string} url @returns {Promise<string|null>} */
export async function knownHash(url) {
  const m = /** @type {Record<string, {hash: string, at: number}>} */ (await readMap(KNOWN));
  return m[url]?.hash ?? null;
}

/** @param {string} url @param {string} hash @param {number} now */
export function rememberHash(url, hash, now) {
  return lane(async () => {
    const m = /** @type {Record<string, {hash: string, at: number}>} */ (await readMap(KNOWN));
    m[url] = { hash, at: now };
    trim(m, MAX_KNOWN);
    await chrome.storage.local.set({ [KNOWN]: m });
  });
}

/** Forget hashes whose URL matches. @param {(url: string) => boolean} match */
export function forgetHashes(match) {
  return lane(async () => {
    const m = await readMap(KNOWN);
    for (const k of Object.keys(m)) if (match(k)) delete m[k];
    await chrome.storage.local.set({ [KNOWN]: m });
  });
}

/** For tests and the popup. */
export async function knownCount() {
  return Object.keys(await readMap(KNOWN)).length;
}

// ---- verdicts: why a page was not recorded ------------------------------------------------

/** @param {string} url @param {Omit<Verdict, "at">} verdict @param {number} now */
export function noteVerdict(url, verdict, now) {
  return lane(async () => {
    const m = /** @type {Record<string, Verdict>} */ (await readMap(VERDICTS));
    m[url] = { category: String(verdict.category), why: String(verdict.why).slice(0, 300), by: verdict.by, at: now };
    if (typeof verdict.hash === "string") m[url].hash = verdict.hash;
    trim(m, MAX_VERDICTS);
    await chrome.storage.local.set({ [VERDICTS]: m });
  });
}

/** @param {string} url @returns {Promise<Verdict|null>} */
export async function verdictFor(url) {
  const m = /** @type {Record<string, Verdict>} */ (await readMap(VERDICTS));
  return Object.prototype.hasOwnProperty.call(m, url) ? m[url] : null;
}

/** Every verdict at once, url -> verdict (a history import reads them once). @returns {Promise<Record<string, Verdict>>} */
export async function verdictMap() {
  return /** @type {Record<string, Verdict>} */ (await readMap(VERDICTS));
}

/** Drop verdicts whose URL matches (the person said: always record this site). @param {(url: string) => boolean} match */
export function clearVerdicts(match) {
  return lane(async () => {
    const m = await readMap(VERDICTS);
    for (const k of Object.keys(m)) if (match(k)) delete m[k];
    await chrome.storage.local.set({ [VERDICTS]: m });
  });
}

// ---- forget marks -------------------------------------------------------------------------

/** @param {ForgetMark} mark */
export function addForgetMark(mark) {
  return lane(async () => {
    const got = await chrome.storage.local.get(FORGETS);
    const list = Array.isArray(got[FORGETS]) ? got[FORGETS] : [];
    list.push(mark);
    await chrome.storage.local.set({ [FORGETS]: list.slice(-MAX_FORGETS) });
  });
}

/**
 * Was this page, read at `visitedAt` (epoch s), forgotten since? Pure.
 * @param {ForgetMark[]} marks @param {string} url @param {number} visitedAt
 */
export function coveredByForget(marks, url, visitedAt) {
  let host = "";
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  for (const m of marks) {
    const readBefore = visitedAt * 1000 < m.at;
    if (m.all && readBefore) return true;
    if (m.url !== undefined && m.url === url && readBefore) return true;
    if (m.domain !== undefined && hostMatches(host, m.domain) && readBefore) return true;
    if (m.since !== undefined || m.until !== undefined) {
      if (visitedAt >= (m.since ?? -Infinity) && visitedAt <= (m.until ?? Infinity)) return true;
    }
  }
  return false;
}

/** @param {string} url @param {number} visitedAt epoch s */
export async function forgotten(url, visitedAt) {
  const got = await chrome.storage.local.get(FORGETS);
  return coveredByForget(Array.isArray(got[FORGETS]) ? got[FORGETS] : [], url, visitedAt);
}
