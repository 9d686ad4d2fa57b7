/**
 * May this page be recorded now? The one place the worker asks.
 *
 * Job: apply the rules (lib/rules.js over the sensitive-page policy, policy.json, loaded
 * and compiled once per worker life by lib/load_policy.js) with the person's current
 * settings — pause, paused sites, "always record" sites, switched-off categories, own
 * patterns — and incognito, and say why not as {category, why}; used when a visit starts,
 * at the dwell threshold, before every delivery and by the popup.
 * Never: let "always record" or anything else override incognito, or answer "yes" because
 * the policy file could not be read (rules.js then refuses every page, and says why).
 */

import { loadPolicy } from "../lib/load_policy.js";
import { recordVerdict } from "../lib/rules.js";
import { getSettings } from "./storage.js";

/** @typedef {{category: string, why: string}} Refusal */

/**
 * Why `url` must not be recorded now, or null.
 * @param {string} url
 * @param {{incognito?: boolean, ignorePause?: boolean}} [where]
 * @returns {Promise<Refusal|null>}
 */
export async function refusal(url, where = {}) {
  return (await refuser(where))(url);
}

/**
 * `refusal` for many URLs at once (a history import): the settings and policy are read
 * once, the returned function answers for each URL.
 * @param {{incognito?: boolean, ignorePause?: boolean}} [where]
 * @returns {Promise<(url: string) => Refusal|null>}
 */
export async function refuser(where = {}) {
  const [settings, policy] = await Promise.all([getSettings(), loadPolicy()]);
  const ctx = {
    ...settings,
    paused: where.ignorePause ? false : settings.paused,
    incognito: Boolean(where.incognito),
    policy,
  };
  return (url) => {
    const verdict = recordVerdict(url, ctx);
    return verdict ? { category: verdict.category, why: verdict.why } : null;
  };
}
