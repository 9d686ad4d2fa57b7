/**
 * May this page be recorded now? The one place the worker asks.
 *
 * Job: apply the rules (lib/rules.js over the sensitive-page policy, policy.json, loaded
 * once per worker life) with the person's current settings — pause, paused sites,
 * "always record" sites, switched-off categories, own patterns — and incognito, and say
 * why not as {category, why}; used when a visit starts, at the dwell threshold, before
 * every delivery and by the popup.
 * Never: let "always record" or anything else override incognito, or answer "yes" because
 * the policy file could not be read (the built-in rules still apply).
 */

import { whyNotRecord } from "../lib/rules.js";
import { getSettings } from "./storage.js";

/** @typedef {{category: string, why: string}} Refusal */

/** @type {Promise<object|null>|null} */
let policyLoad = null; // the file never changes during a worker's life: read it once

/** The sensitive-page policy shipped in the extension (policy.json), or null. */
export function loadPolicy() {
  policyLoad ??= fetch(chrome.runtime.getURL("policy.json"))
    .then((r) => (r.ok ? r.json() : null))
    .catch((err) => {
      console.error("rewind: policy.json could not be read", err);
      return null;
    });
  return policyLoad;
}

/**
 * A rules verdict as {category, why}.
 * @param {unknown} v whyNotRecord's answer @returns {Refusal|null}
 */
export function asRefusal(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "object") {
    const o = /** @type {any} */ (v);
    return { category: String(o.category ?? o.id ?? "rule"), why: String(o.why ?? o.label ?? o.category) };
  }
  const s = String(v);
  if (s === "paused") return { category: "paused", why: "Rewind is paused" };
  if (s === "site paused") return { category: "paused-site", why: "paused on this site" };
  if (s === "incognito") return { category: "incognito", why: "incognito windows are never recorded" };
  if (s.startsWith("sensitive: ")) return { category: s.slice(11), why: `looks like a ${s.slice(11)} page` };
  if (s.startsWith("excluded: ")) return { category: "own-rule", why: `it matches your rule “${s.slice(10)}”` };
  return { category: s, why: s };
}

/**
 * Why `url` must not be recorded now, or null.
 * @param {string} url
 * @param {{incognito?: boolean, ignorePause?: boolean}} [where]
 * @returns {Promise<Refusal|null>}
 */
export async function refusal(url, where = {}) {
  const [settings, policy] = await Promise.all([getSettings(), loadPolicy()]);
  const ctx = { ...settings, policy, incognito: Boolean(where.incognito) };
  if (where.ignorePause) ctx.paused = false;
  return asRefusal(whyNotRecord(url, ctx));
}
