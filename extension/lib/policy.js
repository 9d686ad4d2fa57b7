/**
 * The sensitive-page policy: which URLs are never recorded, and why.
 *
 * Job: compile the policy table (host/rewind/capture/policy.json, copied into
 * the built extension as policy.json; its format is documented in
 * host/rewind/capture/policy_file.py) and classify a URL against it plus the
 * person's own rules. The host's policy.py is the same classifier in Python:
 * tests/data/policy_cases.json is run by both, so they never disagree.
 * Never: touch `chrome.*` or the network (the policy object is passed in), or
 * run a regex that is not from the policy file (people's patterns are globs).
 */

/**
 * @typedef {{
 *   id: string, label: string, why: string, default: boolean,
 *   domains?: string[], hosts?: string[], prefixes?: string[], paths?: string[],
 *   searches?: {host: string, path: string, params: string[]}[],
 *   signals?: {apps?: string[], terms?: Record<string, string[]>},
 * }} RawCategory
 * @typedef {{version: number, categories: RawCategory[]}} RawPolicy
 * @typedef {{
 *   id: string, label: string, why: string, default: boolean,
 *   domains: string[],
 *   hosts: {re: RegExp, source: string}[],
 *   prefixes: {host: string, segs: string[], source: string}[],
 *   paths: {anchored: boolean, segs: RegExp[], source: string}[],
 *   searches: {host: RegExp, path: RegExp, params: string[], source: string}[],
 * }} Category
 * @typedef {{version: number, categories: Category[]}} Policy
 * @typedef {{
 *   disabledCategories?: string[],
 *   alwaysRecord?: string[],
 *   pausedSites?: string[],
 *   blocklist?: string[],
 * }} PersonRules
 * @typedef {{category: string, label: string, why: string, rule: string}} Verdict
 */

export class PolicyError extends Error {}

const RULE_KEYS = ["domains", "hosts", "prefixes", "paths", "searches"];
const LINE_BREAKS = /[\n\r\u2028\u2029]/g;

/** @param {string} where @param {unknown} source @returns {RegExp} */
function regex(where, source) {
  if (typeof source !== "string" || !source) throw new PolicyError(`${where}: a regex must be a non-empty string.`);
  try {
    return new RegExp(`^(?:${source})$`);
  } catch (err) {
    throw new PolicyError(`${where}: ${JSON.stringify(source)} is not a valid regex (${/** @type {Error} */ (err).message}).`);
  }
}

/** @param {string} where @param {unknown} value @returns {string[]} */
function strings(where, value) {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v)) {
    throw new PolicyError(`${where}: expected a list of non-empty strings.`);
  }
  return value;
}

/**
 * Check and compile the policy table; a PolicyError names the bad entry.
 * (policy.py validates the same file more strictly; its test runs on every change.)
 * @param {unknown} raw @returns {Policy}
 */
export function compilePolicy(raw) {
  const r = /** @type {RawPolicy} */ (raw);
  if (!r || typeof r !== "object" || r.version !== 1 || !Array.isArray(r.categories) || !r.categories.length) {
    throw new PolicyError("policy: expected {version: 1, categories: [...]}.");
  }
  const ids = new Set();
  const categories = r.categories.map((c, i) => {
    let where = `categories[${i}]`;
    if (!c || typeof c !== "object" || typeof c.id !== "string" || !/^[a-z][a-z0-9-]*$/.test(c.id)) {
      throw new PolicyError(`${where}: a category needs an id matching [a-z][a-z0-9-]*.`);
    }
    where = `${where} (${c.id})`;
    if (ids.has(c.id)) throw new PolicyError(`${where}: the id is used twice.`);
    ids.add(c.id);
    for (const key of Object.keys(c)) {
      if (!["id", "label", "why", "default", "signals", ...RULE_KEYS].includes(key)) throw new PolicyError(`${where}: unknown key ${key}.`);
    }
    // `signals` (apps, topic words) are read by the host's content check only.
    if (c.signals !== undefined && (!c.signals || typeof c.signals !== "object" || Array.isArray(c.signals))) {
      throw new PolicyError(`${where}.signals: expected {apps, terms}.`);
    }
    if (typeof c.label !== "string" || typeof c.why !== "string" || typeof c.default !== "boolean") {
      throw new PolicyError(`${where}: label and why must be strings, default true or false.`);
    }
    const searches = c.searches ?? [];
    if (!Array.isArray(searches)) throw new PolicyError(`${where}.searches: expected a list.`);
    return {
      id: c.id,
      label: c.label.trim(),
      why: c.why.trim(),
      default: c.default,
      domains: strings(`${where}.domains`, c.domains),
      hosts: strings(`${where}.hosts`, c.hosts).map((s, j) => ({ re: regex(`${where}.hosts[${j}]`, s), source: s })),
      prefixes: strings(`${where}.prefixes`, c.prefixes).map((s) => {
        const slash = s.indexOf("/");
        return { host: s.slice(0, slash), segs: s.slice(slash + 1).split("/").filter(Boolean), source: s };
      }),
      paths: strings(`${where}.paths`, c.paths).map((s, j) => {
        const anchored = s.startsWith("/");
        const parts = (anchored ? s.slice(1) : s).split("/");
        return { anchored, segs: parts.map((p) => regex(`${where}.paths[${j}]`, p)), source: s };
      }),
      searches: searches.map((s, j) => {
        const w = `${where}.searches[${j}]`;
        if (!s || typeof s !== "object") throw new PolicyError(`${w}: expected {host, path, params}.`);
        return { host: regex(`${w}.host`, s.host), path: regex(`${w}.path`, s.path), params: strings(`${w}.params`, s.params), source: s.host };
      }),
    };
  });
  return { version: 1, categories };
}

/** Host without a leading "www.", lower case. @param {string} host */
export function siteOf(host) {
  return host.toLowerCase().replace(/^www\./, "");
}

/** Does `host` equal `domain` or sit under it? @param {string} host @param {string} domain */
export function hostMatches(host, domain) {
  const h = siteOf(host);
  const d = siteOf(domain.trim().replace(/^\*\./, "").replace(/\.$/, ""));
  return d !== "" && (h === d || h.endsWith(`.${d}`));
}

/**
 * An http(s) URL parsed as the classifier reads it (host without its trailing
 * dot), or null.
 * @param {string} url @returns {URL|null}
 */
export function parseWebUrl(url) {
  if (typeof url !== "string" || url.length > 8192) return null;
  let u;
  try {
    u = new URL(url.trim());
  } catch {
    return null;
  }
  if ((u.protocol !== "http:" && u.protocol !== "https:") || !u.hostname) return null;
  if (u.hostname.endsWith(".")) u.hostname = u.hostname.slice(0, -1);
  u.username = "";
  u.password = "";
  return u;
}

/** @param {string} glob */
function globToRegExp(glob) {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`, "is");
}

/**
 * One of the person's patterns against a URL:
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
  const strip = (/** @type {string} */ s) => s.replace(/^https?:\/\//, "").replace(/^www\./, "");
  if (p.includes("/")) return strip(href).startsWith(strip(p));
  if (p.includes(".")) return hostMatches(u.hostname, p);
  return `${u.hostname}${u.pathname}`.toLowerCase().includes(p);
}

/** Path segments, percent-decoded, lower case. @param {string} pathname */
function segments(pathname) {
  return pathname
    .split("/")
    .filter(Boolean)
    .map((raw) => {
      let seg = raw;
      try {
        seg = decodeURIComponent(raw);
      } catch {
        // malformed escapes: keep the raw segment, as policy.py does
      }
      return seg.replace(LINE_BREAKS, " ").toLowerCase();
    });
}

/** @param {{anchored: boolean, segs: RegExp[]}} p @param {string[]} segs */
function pathMatch(p, segs) {
  const last = p.anchored ? 0 : segs.length - p.segs.length;
  for (let s = 0; s <= last; s++) {
    if (s + p.segs.length <= segs.length && p.segs.every((re, i) => re.test(segs[s + i]))) return true;
  }
  return false;
}

/** @param {Category} cat @param {URL} u @param {string[]} segs @returns {string} */
function matchCategory(cat, u, segs) {
  const site = siteOf(u.hostname);
  for (const d of cat.domains) if (site === d || site.endsWith(`.${d}`)) return `domain ${d}`;
  for (const h of cat.hosts) if (h.re.test(site)) return `host ${h.source}`;
  for (const p of cat.prefixes) {
    if (site === p.host && p.segs.every((s, i) => segs[i] === s)) return `prefix ${p.source}`;
  }
  for (const p of cat.paths) if (pathMatch(p, segs)) return `path ${p.source}`;
  const path = u.pathname.toLowerCase();
  for (const s of cat.searches) {
    if (s.host.test(site) && s.path.test(path) && s.params.some((k) => (u.searchParams.get(k) ?? "").trim())) {
      return `search ${s.source}`;
    }
  }
  return "";
}

/**
 * Why `url` must not be recorded, or null when it may be (also for non-web
 * URLs: those are the caller's business). Paused sites and the person's
 * patterns first, then "always record", then the categories not switched off.
 * @param {string} url @param {Policy} policy @param {PersonRules} [rules] @returns {Verdict|null}
 */
export function classifyUrl(url, policy, rules = {}) {
  const u = parseWebUrl(url);
  if (!u) return null;
  for (const site of rules.pausedSites ?? []) {
    if (hostMatches(u.hostname, site)) {
      return { category: "paused", label: "Paused site", why: `you paused recording on ${siteOf(site)}`, rule: `paused ${site}` };
    }
  }
  for (const pattern of rules.blocklist ?? []) {
    if (patternMatches(pattern, u)) {
      const p = pattern.trim();
      return { category: "excluded", label: "Your exclusions", why: `matches your exclusion “${p}”`, rule: `pattern ${p}` };
    }
  }
  if ((rules.alwaysRecord ?? []).some((site) => hostMatches(u.hostname, site))) return null;
  const segs = segments(u.pathname);
  const disabled = new Set(rules.disabledCategories ?? []);
  for (const cat of policy.categories) {
    if (disabled.has(cat.id)) continue;
    const rule = matchCategory(cat, u, segs);
    if (rule) return { category: cat.id, label: cat.label, why: cat.why, rule };
  }
  return null;
}
