/**
 * The worker's small stored documents: settings, profile id, the host's capture limits.
 *
 * Job: read and update what lives in `chrome.storage.local` — the extension's settings
 * (validated by lib/settings.js), the profile id sent in hello (adopted from the host's
 * existing stores when there is none: a reinstalled extension finds its history), and the
 * chunking limits the host gave in its last hello.
 * Never: keep a copy in worker globals (the worker can be killed at any time), store page
 * text here (queue payloads are queue-store.js's), or invent a new profile id while the
 * host's answer about existing ones is unknown (that would orphan the person's history).
 */

import { applyPatch, normalizeSettings } from "../lib/settings.js";
import { serial } from "./serial.js";

const SETTINGS = "settings";
const PROFILE = "profile_id";
const PROFILE_ORIGIN = "profile_origin"; // how the id was chosen, for the options page
const CAPTURE = "capture_limits";
const PROFILE_RE = /^[A-Za-z0-9_-]{1,64}$/;

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

/** @param {unknown} id @returns {id is string} */
export function validProfileId(id) {
  return typeof id === "string" && PROFILE_RE.test(id);
}

function newProfileId() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `p${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * @typedef {{profile: string, pages: number|null, last_indexed: number|null, data_dir: string}} HostProfile
 * @typedef {{how: "adopted"|"new"|"chosen", at: number, pages?: number|null, others?: number}} ProfileOrigin
 */

/**
 * The profile id for hello. Without a stored one, `discover` asks the host which stores
 * exist (most recently used first): the first is adopted, none means a new id. `discover`
 * throws when the host could not say (then nothing is stored and hello fails: it is asked
 * again on the next connection, never guessed).
 * @param {() => Promise<HostProfile[]>} [discover]
 * @returns {Promise<string>}
 */
export function getProfileId(discover) {
  return lane(async () => {
    const got = await chrome.storage.local.get(PROFILE);
    if (validProfileId(got[PROFILE])) return got[PROFILE];
    const found = discover ? await discover() : [];
    const best = found.find((p) => validProfileId(p.profile));
    const id = best ? best.profile : newProfileId();
    /** @type {ProfileOrigin} */
    const origin = best
      ? { how: "adopted", at: Date.now(), pages: best.pages, others: found.length - 1 }
      : { how: "new", at: Date.now() };
    await chrome.storage.local.set({ [PROFILE]: id, [PROFILE_ORIGIN]: origin });
    return id;
  });
}

/** The person chose another existing profile (options page). @param {string} id */
export function setProfileId(id) {
  return lane(async () => {
    if (!validProfileId(id)) throw new Error(`not a profile id: ${id}`);
    await chrome.storage.local.set({ [PROFILE]: id, [PROFILE_ORIGIN]: { how: "chosen", at: Date.now() } });
  });
}

/** @returns {Promise<{id: string|null, origin: ProfileOrigin|null}>} */
export async function profileInfo() {
  const got = await chrome.storage.local.get([PROFILE, PROFILE_ORIGIN]);
  return { id: validProfileId(got[PROFILE]) ? got[PROFILE] : null, origin: got[PROFILE_ORIGIN] ?? null };
}

/** The chunking limits of the host's last hello (`capture`), or null before the first. */
export async function getCaptureLimits() {
  const got = await chrome.storage.local.get(CAPTURE);
  const c = got[CAPTURE];
  return c && typeof c === "object" ? c : null;
}

/** @param {unknown} capture hello's `capture` */
export async function rememberCaptureLimits(capture) {
  if (capture && typeof capture === "object") await chrome.storage.local.set({ [CAPTURE]: capture });
}
