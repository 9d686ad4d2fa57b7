/**
 * An ask reply in the words and links the side panel shows, as pure functions.
 *
 * Job: split an answer into text and citation badges, each badge with the passage that
 * backs its sentence (`citations[i].quote`, else the cited source's first passage) and a
 * link that opens the page at that passage; tell a "couldn't find" reply and its closest
 * pages (as search-result-shaped hits, never prose), and a "closest passage" reply's quote.
 * Never: touch the DOM or `chrome.*` (node tests import this); produce HTML (page text and
 * quotes stay plain strings for textContent).
 */

import { citationTokens, textFragmentUrl } from "./format.js";

/** The host's one line for a question the history cannot answer (answers/prompt.py). */
export const COULD_NOT_FIND = "I couldn't find that in your history.";
/** Longest passage shown in a citation's tooltip, in characters. */
export const TIP_CHARS = 420;

/** @param {unknown} s */
const str = (s) => (typeof s === "string" ? s : "");

/** Letters and digits only, lower case: how sentences are compared. @param {string} s */
function norm(s) {
  return s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * Source number n (1-based) of `sources`: the one whose `n` says so, else the n-th.
 * @param {unknown} sources @param {number} n @returns {any}
 */
export function sourceFor(sources, n) {
  if (!Array.isArray(sources)) return null;
  const byN = sources.find((s) => s && Number(s.n ?? s.index) === n);
  const src = byN ?? sources[n - 1];
  return src && typeof src === "object" ? src : null;
}

/**
 * A source's best passage: `passages[0].text`, else `passage` (hosts before passages[]).
 * @param {any} src
 */
export function sourcePassage(src) {
  if (!src) return "";
  const first = Array.isArray(src.passages) ? src.passages.find((p) => p && str(p.text).trim()) : null;
  return str(first?.text) || str(src.passage) || str(src.snippet) || str(src.text);
}

/** At most `max` characters, cut at a word, with "…". @param {string} text @param {number} [max] */
export function clip(text, max = TIP_CHARS) {
  const s = text.replace(/\s+/g, " ").trim();
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * @typedef {{text: string}} TextPart
 * @typedef {{cite: number, source: any, title: string, quote: string, href: string}} CitePart
 */

/**
 * The checked citation behind each group of badges, in order. A group's sentence is the
 * text since the last group (". It does " for "… [Source 1]. It does [Source 2].") and
 * must end with the citation's `sentence`; failing that, the next citation that cites
 * the group's first number is taken. A citation is used once.
 * @param {({text: string}|{cite: number})[]} tokens @param {any[]} citations
 * @returns {(any|null)[]} per token: its citation, or null
 */
function citationsOf(tokens, citations) {
  const used = new Set();
  let last = -1;
  /** @param {(c: any) => boolean} test */
  const take = (test) => {
    const i = citations.findIndex((c, j) => !used.has(j) && j > last && test(c));
    if (i < 0) return null;
    used.add(i);
    last = i;
    return citations[i];
  };
  /** @type {(any|null)[]} */
  const out = [];
  let pending = "";
  /** @type {any|null} */
  let current = null;
  let inGroup = false;
  for (const t of tokens) {
    if ("text" in t) {
      // "[Source 1] [Source 3]": the space between two badges does not end their group.
      if (!(inGroup && /^[\s,;]*$/.test(t.text))) {
        pending = inGroup ? t.text : pending + t.text;
        inGroup = false;
      }
      out.push(null);
      continue;
    }
    if (!inGroup) {
      const said = norm(pending);
      const n = t.cite;
      current =
        take((c) => Boolean(norm(str(c?.sentence))) && said.endsWith(norm(str(c.sentence)))) ??
        take((c) => Array.isArray(c?.sources) && c.sources.map(Number).includes(n));
      inGroup = true;
    }
    out.push(current);
  }
  return out;
}

/**
 * The passage that backs a badge: its citation's `quote`, which is the passage of the
 * sentence's first source (the host checks every source a sentence keeps, and quotes the
 * first), when the badge is that source; else the source's own first passage.
 * @param {any|null} citation @param {any} src @param {number} n
 */
function backing(citation, src, n) {
  const quote = str(citation?.quote).trim();
  const kept = Array.isArray(citation?.sources) ? citation.sources.map(Number) : [];
  if (quote && (kept.length === 0 || kept[0] === n)) return quote;
  return sourcePassage(src).trim();
}

/**
 * An answer as text parts and citation parts, each citation with what its tooltip shows
 * and where its link goes. A badge whose number is not among `sources` has `source: null`.
 * @param {unknown} answer @param {unknown} citations @param {unknown} sources
 * @returns {(TextPart|CitePart)[]}
 */
export function answerParts(answer, citations, sources) {
  const tokens = citationTokens(str(answer));
  const checks = citationsOf(tokens, Array.isArray(citations) ? citations : []);
  return tokens.map((t, i) => {
    if ("text" in t) return t;
    const src = sourceFor(sources, t.cite);
    const passage = src ? backing(checks[i], src, t.cite) : "";
    return {
      cite: t.cite,
      source: src,
      title: src ? str(src.title).trim() || str(src.url) || `Source ${t.cite}` : `Source ${t.cite}`,
      quote: clip(passage),
      href: src ? textFragmentUrl(str(src.url), passage) : "",
    };
  });
}

/**
 * Is this final frame "I couldn't find that in your history"? `supported: false` says so;
 * a host that leaves `supported` out is read from its answer's first words.
 * @param {any} reply
 */
export function isCouldNotFind(reply) {
  if (!reply || typeof reply !== "object") return false;
  if (typeof reply.outcome === "string") return reply.outcome === "not_found";
  if (reply.supported === false) return true;
  return reply.supported === undefined && str(reply.answer).trim().startsWith(COULD_NOT_FIND);
}

/**
 * The closest passage of a reply whose outcome is "closest" (no answer is backed, but a
 * page near the question was found): what the side panel shows of it, or null.
 * @param {any} reply
 * @returns {{n: number, url: string, title: string, quote: string, passage: string, href: string}|null}
 */
export function closestPassage(reply) {
  if (!reply || typeof reply !== "object" || reply.outcome !== "closest") return null;
  const c = reply.closest;
  if (!c || typeof c !== "object" || !str(c.quote).trim()) return null;
  const url = str(c.url);
  const passage = str(c.passage) || str(c.quote);
  return {
    n: Number.isInteger(c.n) ? c.n : 1,
    url,
    title: str(c.title).trim() || url,
    quote: str(c.quote),
    passage,
    href: textFragmentUrl(url, passage),
  };
}

/**
 * The closest pages of a "couldn't find" reply as search hits (result cards): the
 * history sources (not the current tab), one per page, with their best passage.
 * @param {unknown} sources @returns {any[]}
 */
export function closestPages(sources) {
  if (!Array.isArray(sources)) return [];
  const seen = new Set();
  const out = [];
  for (const src of sources) {
    if (!src || typeof src !== "object") continue;
    if ((src.kind ?? "history") !== "history") continue;
    const url = str(src.url);
    if (!url || seen.has(url)) continue;
    seen.add(url);
    const passage = sourcePassage(src);
    out.push({ ...src, url, title: str(src.title), passage, snippet: clip(passage, 300) });
  }
  return out;
}

/** A source's link: the page, scrolled to its best passage. @param {any} src */
export function sourceHref(src) {
  return textFragmentUrl(str(src?.url), sourcePassage(src));
}
