/**
 * What may be recorded: pure functions over a URL and the user's rules.
 *
 * Job: say whether a page may be sent to the host, and why not. Defaults keep
 * sign-in, password, payment, banking and auth pages out; the user adds
 * patterns and pauses sites.
 * Never: touch `chrome.*` or the network, or allow anything that is not
 * http(s), runs in incognito, or carries credentials in its URL.
 */

/**
 * Built-in sensitive patterns, matched against "host/path" in lower case.
 * Word-ish boundaries keep "author" or "blogging" from matching "auth"/"login".
 * @type {ReadonlyArray<{name: string, re: RegExp}>}
 */
export const SENSITIVE_PATTERNS = Object.freeze([
  { name: "login", re: /(^|[^a-z])(log-?in|log-?on|sign-?in|sign_in|sign-?on|sso|saml)([^a-z]|$)/ },
  { name: "password", re: /pass(word|wd)s?|(^|[^a-z])pwd([^a-z]|$)/ },
  { name: "checkout", re: /(^|[^a-z])check-?out([^a-z]|$)/ },
  { name: "payment", re: /(^|[^a-z])(payments?|billing|pay)([^a-z]|$)/ },
  // "banking" anywhere; "bank" inside a host name (mybank.com, online.bank.example)
  { name: "banking", re: /banking|^[^/]*bank[^/]*\// },
  // accounts.example.com, /account/security, /myaccount/settings/recovery
  { name: "account security", re: /^accounts?\.|(^|[^a-z])(my-?)?accounts?[^a-z].*(security|recovery)/ },
  { name: "oauth", re: /(^|[^a-z])(oauth2?|openid|oidc)([^a-z]|$)/ },
  {
    name: "auth",
    re: /(^|[^a-z])(auth|authn|authorize|authorization|authenticate|authentication|2fa|mfa|otp|verify-?identity)([^a-z]|$)/,
  },
]);

/**
 * @typedef {{
 *   incognito?: boolean,
 *   blocklist?: string[],
 *   pausedSites?: string[],
 *   paused?: boolean,
 * }} RecordContext
 */

/** @param {string} url @returns {URL|null} */
function parse(url) {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** Host without a leading "www.", lower case. @param {string} host */
export function siteOf(host) {
  return host.toLowerCase().replace(/^www\./, "");
}

/**
 * The site (host) of a URL for per-site pauses, or "" for non-web URLs.
 * @param {string} url
 */
export function siteOfUrl(url) {
  const u = parse(url);
  return u && (u.protocol === "http:" || u.protocol === "https:") ? siteOf(u.hostname) : "";
}

/** Does `host` equal `domain` or sit under it? @param {string} host @param {string} domain */
export function hostMatches(host, domain) {
  const h = siteOf(host);
  const d = siteOf(domain.trim().replace(/^\*\./, "").replace(/\.$/, ""));
  return d !== "" && (h === d || h.endsWith(`.${d}`));
}

/** @param {string} glob */
function globToRegExp(glob) {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`, "i");
}

/**
 * One user pattern against a URL:
 *  - with "*": a glob over the whole URL ("*" matches anything, e.g. https://mail.* );
 *  - with "/": a prefix of the URL without its scheme ("example.com/private");
 *  - with ".": a domain and its subdomains ("example.com");
 *  - else: a word in the host or path ("intranet").
 * @param {string} pattern @param {URL} u
 */
export function patternMatches(pattern, u) {
  const p = pattern.trim().toLowerCase();
  if (!p) return false;
  const href = u.href.toLowerCase();
  if (p.includes("*")) return globToRegExp(p).test(href);
  const noScheme = href.replace(/^https?:\/\//, "").replace(/^www\./, "");
  if (p.includes("/")) return noScheme.startsWith(p.replace(/^https?:\/\//, "").replace(/^www\./, ""));
  if (p.includes(".")) return hostMatches(u.hostname, p);
  return `${u.hostname}${u.pathname}`.toLowerCase().includes(p);
}

/**
 * Why a URL must not be recorded, or null when it may be.
 * @param {string} url @param {RecordContext} [ctx] @returns {string|null}
 */
export function whyNotRecord(url, ctx = {}) {
  if (ctx.paused) return "paused";
  if (ctx.incognito) return "incognito";
  if (typeof url !== "string" || url.length > 8192) return "bad url";
  const u = parse(url);
  if (!u) return "bad url";
  if (u.protocol !== "http:" && u.protocol !== "https:") return "not a web page";
  if (u.username || u.password) return "credentials in url";
  const host = u.hostname.toLowerCase();
  for (const site of ctx.pausedSites || []) {
    if (hostMatches(host, site)) return "site paused";
  }
  let path = u.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep the raw path
  }
  const subject = `${host}${path}`.toLowerCase();
  for (const { name, re } of SENSITIVE_PATTERNS) {
    if (re.test(subject)) return `sensitive: ${name}`;
  }
  for (const pattern of ctx.blocklist || []) {
    if (patternMatches(pattern, u)) return `excluded: ${pattern}`;
  }
  return null;
}

/**
 * May this URL be recorded?
 * @param {string} url @param {RecordContext} [ctx]
 */
export function shouldRecord(url, ctx = {}) {
  return whyNotRecord(url, ctx) === null;
}

/**
 * The URL without its fragment: one page, whatever part of it is shown.
 * @param {string} url
 */
export function pageKey(url) {
  const i = url.indexOf("#");
  return i === -1 ? url : url.slice(0, i);
}
