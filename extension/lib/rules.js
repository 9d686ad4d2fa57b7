/**
 * What may be recorded: pure functions over a URL, the policy and the user's rules.
 *
 * Job: say whether a page may be sent to the host, and why not. The built-in
 * categories (mail, banking, health portals, settings pages, ...) are the
 * policy table, classified by policy.js; the user pauses sites, adds
 * patterns, switches categories off and marks sites "always record".
 * Never: touch `chrome.*` or the network, or allow anything that is not
 * http(s), runs in incognito, or carries credentials in its URL; with no
 * policy loaded, refuse (fail closed) rather than record unchecked.
 */

import { classifyUrl, hostMatches, patternMatches, siteOf } from "./policy.js";

export { hostMatches, patternMatches, siteOf };

/**
 * @typedef {import("./policy.js").Policy} Policy
 * @typedef {import("./policy.js").Verdict} Verdict
 * @typedef {{
 *   policy?: Policy|null,
 *   incognito?: boolean,
 *   paused?: boolean,
 *   blocklist?: string[],
 *   pausedSites?: string[],
 *   alwaysRecord?: string[],
 *   disabledCategories?: string[],
 * }} RecordContext
 */

/** @param {string} category @param {string} why @returns {Verdict} */
function refuse(category, why) {
  return { category, label: why, why, rule: category };
}

/**
 * Why a URL must not be recorded (category, label, why, rule), or null when
 * it may be. Besides the policy's categories and "paused" / "excluded", the
 * category is one of: "paused-all", "incognito", "bad-url", "not-web",
 * "credentials", "no-policy".
 * @param {string} url @param {RecordContext} [ctx] @returns {Verdict|null}
 */
export function recordVerdict(url, ctx = {}) {
  if (ctx.paused) return refuse("paused-all", "Rewind is paused");
  if (ctx.incognito) return refuse("incognito", "incognito windows are never recorded");
  if (typeof url !== "string" || url.length > 8192) return refuse("bad-url", "not a valid address");
  let u;
  try {
    u = new URL(url);
  } catch {
    return refuse("bad-url", "not a valid address");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return refuse("not-web", "Rewind records web pages only");
  if (u.username || u.password) return refuse("credentials", "its address carries a password");
  if (!ctx.policy) return refuse("no-policy", "the list of sensitive sites could not be loaded");
  return classifyUrl(url, ctx.policy, ctx);
}

/**
 * Why a URL must not be recorded, in words ("looks like a payment page"), or
 * null when it may be.
 * @param {string} url @param {RecordContext} [ctx] @returns {string|null}
 */
export function whyNotRecord(url, ctx = {}) {
  return recordVerdict(url, ctx)?.why ?? null;
}

/** The site (host) of a URL for per-site pauses, or "" for non-web URLs. @param {string} url */
export function siteOfUrl(url) {
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? siteOf(u.hostname) : "";
  } catch {
    return "";
  }
}

/**
 * The URL without its fragment: one page, whatever part of it is shown.
 * @param {string} url
 */
export function pageKey(url) {
  const i = url.indexOf("#");
  return i === -1 ? url : url.slice(0, i);
}

/**
 * The person's rules as the host keeps them (`set_rules`, PROTOCOL.md): the host screens
 * every page from any way in (the CLI too) against them, and masks as the person chose.
 * @param {import("./settings.js").LocalSettings} s
 */
export function hostRules(s) {
  return {
    rules: {
      disabled_categories: s.disabledCategories,
      always_record: s.alwaysRecord,
      paused_sites: s.pausedSites,
      blocklist: s.blocklist,
    },
    redact: s.redact,
  };
}
