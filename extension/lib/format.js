/**
 * Formatting for the extension's pages, as pure functions over data.
 *
 * Job: relative times, dwell, sizes, URLs shown to people, highlight segments,
 * citation tokens, text-fragment links and time-range filters.
 * Never: touch the DOM or `chrome.*` (node tests import this); never produce
 * HTML — callers build elements from the plain strings returned here.
 */

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86400;

/** @param {number} n @param {string} unit */
function plural(n, unit) {
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/**
 * "just now", "5 minutes ago", "yesterday", "7 days ago", ...
 * @param {number} epochSeconds @param {number} [nowMs]
 */
export function relativeTime(epochSeconds, nowMs = Date.now()) {
  if (!Number.isFinite(epochSeconds)) return "at an unknown time";
  const s = Math.max(0, nowMs / 1000 - epochSeconds);
  if (s < MINUTE) return "just now";
  if (s < HOUR) return `${plural(Math.floor(s / MINUTE), "minute")} ago`;
  if (s < DAY) return `${plural(Math.floor(s / HOUR), "hour")} ago`;
  const days = Math.floor(s / DAY);
  if (days === 1) return "yesterday";
  if (days < 14) return `${days} days ago`;
  if (days < 60) return `${Math.floor(days / 7)} weeks ago`;
  if (days < 365) return `${Math.floor(days / 30)} months ago`;
  return days < 730 ? "a year ago" : `${Math.floor(days / 365)} years ago`;
}

/**
 * "read for 40 s", "read for 2 min", "read for 1 h 5 min"; "" when unknown.
 * @param {number} dwellSeconds
 */
export function readFor(dwellSeconds) {
  if (!Number.isFinite(dwellSeconds) || dwellSeconds <= 0) return "";
  const s = Math.round(dwellSeconds);
  if (s < MINUTE) return `read for ${s} s`;
  if (s < HOUR) return `read for ${Math.round(s / MINUTE)} min`;
  const h = Math.floor(s / HOUR);
  const m = Math.round((s % HOUR) / MINUTE);
  return m ? `read for ${h} h ${m} min` : `read for ${h} h`;
}

/**
 * "visited 7 days ago, read for 2 min, 3 visits"
 * @param {{visited_at?: number, dwell_s?: number, visit_count?: number}} hit
 * @param {number} [nowMs]
 */
export function visitLine(hit, nowMs = Date.now()) {
  const parts = [`visited ${relativeTime(Number(hit.visited_at), nowMs)}`];
  // Imported from the browser's history: Rewind never saw it read.
  if (hit.read === false) parts.push("not read (from your history)");
  const read = readFor(Number(hit.dwell_s));
  if (read) parts.push(read);
  const visits = Number(hit.visit_count);
  if (Number.isFinite(visits) && visits > 1) parts.push(`${visits} visits`);
  return parts.join(", ");
}

/** "12.3 MB" @param {number} bytes */
export function formatBytes(bytes) {
  if (!Number.isFinite(bytes) || bytes < 0) return "unknown";
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let n = bytes;
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${n.toFixed(n < 10 ? 1 : 0)} ${units[i]}`;
}

/** "1,234" @param {number} n */
export function formatCount(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "0";
}

/**
 * Host and path for display, without scheme, "www." or query noise.
 * @param {string} url @param {number} [max]
 */
export function displayUrl(url, max = 80) {
  let shown = url;
  try {
    const u = new URL(url);
    shown = `${u.hostname.replace(/^www\./, "")}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    // not a URL: show it as it is
  }
  return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown;
}

/**
 * Split `text` into plain and highlighted segments. Ranges are [start, end)
 * offsets in Unicode code points (the host's Python string indices); bad,
 * overlapping or out-of-range ranges are clamped and merged, never trusted.
 * @param {string} text @param {unknown} ranges
 * @returns {{text: string, mark: boolean}[]}
 */
export function highlightSegments(text, ranges) {
  const chars = Array.from(String(text ?? ""));
  /** @type {[number, number][]} */
  const clean = [];
  if (Array.isArray(ranges)) {
    for (const r of ranges.slice(0, 200)) {
      if (!Array.isArray(r) || r.length < 2) continue;
      const s = Math.max(0, Math.min(chars.length, Math.floor(Number(r[0]))));
      const e = Math.max(0, Math.min(chars.length, Math.floor(Number(r[1]))));
      if (Number.isFinite(s) && Number.isFinite(e) && e > s) clean.push([s, e]);
    }
  }
  clean.sort((a, b) => a[0] - b[0]);
  /** @type {[number, number][]} */
  const merged = [];
  for (const r of clean) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  /** @type {{text: string, mark: boolean}[]} */
  const out = [];
  let at = 0;
  for (const [s, e] of merged) {
    if (s > at) out.push({ text: chars.slice(at, s).join(""), mark: false });
    out.push({ text: chars.slice(s, e).join(""), mark: true });
    at = e;
  }
  if (at < chars.length) out.push({ text: chars.slice(at).join(""), mark: false });
  return out;
}

/**
 * Split an answer into text and citation tokens: "[Source 2]" and
 * "[Source 1, 3]" become {cite: n}; everything else stays text.
 * @param {string} answer @returns {({text: string} | {cite: number})[]}
 */
export function citationTokens(answer) {
  const re = /\[Sources?\s*(\d+(?:\s*(?:,|and)\s*(?:Source\s*)?\d+)*)\]/gi;
  /** @type {({text: string} | {cite: number})[]} */
  const out = [];
  let at = 0;
  for (const m of String(answer ?? "").matchAll(re)) {
    if (m.index > at) out.push({ text: answer.slice(at, m.index) });
    for (const n of m[1].match(/\d+/g) || []) out.push({ cite: Number(n) });
    at = m.index + m[0].length;
  }
  if (at < String(answer ?? "").length) out.push({ text: answer.slice(at) });
  return out;
}

/** @param {string} s */
function fragmentEncode(s) {
  // Text-fragment syntax characters must be escaped as well: - , &
  return encodeURIComponent(s).replace(/-/g, "%2D").replace(/,/g, "%2C");
}

/**
 * A URL that opens the page scrolled to `passage` (`#:~:text=start,end`).
 * Start and end come from the passage's first and last lines, so that each
 * stays inside one block of the page (a text directive's start or end cannot
 * span blocks).
 * @param {string} url @param {string} passage
 */
export function textFragmentUrl(url, passage) {
  const base = String(url).split("#")[0];
  const lines = String(passage ?? "")
    .split(/\n+/)
    .map((l) => l.replace(/\s+/g, " ").replace(/^…|…$/g, "").trim())
    .filter((l) => l.split(" ").length >= 1 && l.length > 0);
  if (!lines.length) return base;
  const first = lines[0].split(" ");
  const last = lines[lines.length - 1].split(" ");
  const N = 6;
  if (lines.length === 1 && first.length <= N * 2) return `${base}#:~:text=${fragmentEncode(lines[0])}`;
  const start = first.slice(0, N).join(" ");
  const end = last.slice(-N).join(" ");
  return `${base}#:~:text=${fragmentEncode(start)},${fragmentEncode(end)}`;
}

/**
 * The `since` filter (epoch seconds) of a time range, or null for any time.
 * @param {"any"|"today"|"7d"|"30d"|string} range @param {number} [nowMs]
 */
export function sinceFor(range, nowMs = Date.now()) {
  if (range === "today") {
    const d = new Date(nowMs);
    d.setHours(0, 0, 0, 0);
    return d.getTime() / 1000;
  }
  if (range === "7d") return nowMs / 1000 - 7 * DAY;
  if (range === "30d") return nowMs / 1000 - 30 * DAY;
  return null;
}

/**
 * The domain filter as typed ("https://www.Example.com/x" -> "example.com"), or null.
 * @param {string} input
 */
export function domainFilter(input) {
  let s = String(input ?? "").trim().toLowerCase();
  if (!s) return null;
  s = s.replace(/^[a-z]+:\/\//, "").replace(/^www\./, "").split(/[/?#]/)[0];
  return /^[a-z0-9.-]+(:\d+)?$/.test(s) ? s : null;
}

/**
 * The models in use, from hello's `models` (one row per known model:
 * {name, kind, installed, status}) and the store's stats (embedding_model,
 * embedder_ready, embedder_problem).
 * @param {unknown} models @param {any} stats
 * @returns {{role: string, name: string, ready: boolean, problem: string}[]}
 */
export function modelsInUse(models, stats) {
  const rows = Array.isArray(models) ? models.filter((m) => m && typeof m === "object") : [];
  const of = (/** @type {string} */ kind) => rows.filter((m) => m.kind === kind);
  const inUse = stats && typeof stats.embedding_model === "string" ? stats.embedding_model : "";
  const embRows = of("embedding");
  const embRow = embRows.find((m) => m.name === inUse) ?? embRows.find((m) => m.installed);
  const embReady =
    stats && typeof stats.embedder_ready === "boolean" ? stats.embedder_ready : Boolean(embRow?.installed);
  /** @type {{role: string, name: string, ready: boolean, problem: string}[]} */
  const out = [];
  if (inUse || embRow) {
    out.push({
      role: "Embeddings",
      name: String(inUse || embRow?.name),
      ready: embReady,
      problem: String(stats?.embedder_problem ?? (embReady ? "" : embRow?.status ?? "")),
    });
  }
  // The model an answer uses (stats.answer_model: the largest installed), else the first.
  const chosen = stats && typeof stats.answer_model === "string" ? stats.answer_model : "";
  const llm = of("llm").find((m) => m.installed && (!chosen || m.name === chosen));
  if (llm) out.push({ role: "Answers", name: String(llm.name), ready: true, problem: "" });
  else if (of("llm").length) out.push({ role: "Answers", name: "no model installed", ready: false, problem: "" });
  return out;
}
