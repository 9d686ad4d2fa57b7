/**
 * The worker's stored documents: settings, profile id, known page hashes.
 *
 * Job: read and update what lives in `chrome.storage.local` — the extension's
 * settings (validated by lib/settings.js), the stable profile id sent in hello,
 * and a small map url -> content hash so an unchanged revisit sends only a
 * visit record.
 * Never: keep a copy in worker globals (the worker can be killed at any time),
 * store page text here (queue payloads are the queue's business).
 */

import { applyPatch, normalizeSettings } from "../lib/settings.js";
import { serial } from "./serial.js";

const SETTINGS = "settings";
const PROFILE = "profile_id";
const KNOWN = "known_hashes";
export const MAX_KNOWN = 5000; // oldest entries are evicted past this

const lane = serial();

/** @returns {Promise<import("../lib/settings.js").LocalSettings>} */
export async function getSettings() {
  const got = await chrome.storage.local.get(SETTINGS);
  return normalizeSettings(got[SETTINGS]);
}

/** @param {Partial<import("../lib/settings.js").LocalSettings>} patch */
export function patchSettings(patch) {
  return lane(async () => {
    const next = applyPatch(await getSettings(), patch);
    await chrome.storage.local.set({ [SETTINGS]: next });
    return next;
  });
}

/** A stable id for this browser profile (a data directory per profile on the host). */
export function getProfileId() {
  return lane(async () => {
    const got = await chrome.storage.local.get(PROFILE);
    if (typeof got[PROFILE] === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(got[PROFILE])) {
      return got[PROFILE];
    }
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    const id = `p${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
    await chrome.storage.local.set({ [PROFILE]: id });
    return id;
  });
}

/** @returns {Promise<Record<string, {hash: string, at: number}>>} */
async function readKnown() {
  const got = await chrome.storage.local.get(KNOWN);
  const m = got[KNOWN];
  return m && typeof m === "object" ? m : {};
}

/** @param {string} url @returns {Promise<string|null>} */
export async function knownHash(url) {
  const m = await readKnown();
  return m[url]?.hash ?? null;
}

/** @param {string} url @param {string} hash @param {number} now */
export function rememberHash(url, hash, now) {
  return lane(async () => {
    const m = await readKnown();
    m[url] = { hash, at: now };
    const keys = Object.keys(m);
    if (keys.length > MAX_KNOWN) {
      keys.sort((a, b) => m[a].at - m[b].at);
      for (const k of keys.slice(0, keys.length - MAX_KNOWN)) delete m[k];
    }
    await chrome.storage.local.set({ [KNOWN]: m });
  });
}

/** Forget hashes whose URL matches (after forget/clear on the host). @param {(url: string) => boolean} match */
export function forgetHashes(match) {
  return lane(async () => {
    const m = await readKnown();
    for (const k of Object.keys(m)) if (match(k)) delete m[k];
    await chrome.storage.local.set({ [KNOWN]: m });
  });
}

/** For tests and the popup. */
export async function knownCount() {
  return Object.keys(await readKnown()).length;
}
