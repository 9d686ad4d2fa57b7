/**
 * An ask reply in the words and links the side panel shows, as pure functions.
 *
 * Job: split an answer into text and citation badges, each badge with the passage that
 * backs its sentence (`citations[i].quote`, else the cited source's first passage), the
 * part of it that backs the sentence marked (`citations[i].mark`, when the host sends one),
 * and a link that opens the page at that marked part (else at the passage); tell a
 * "couldn't find" reply and its closest pages (as search-result-shaped hits, never prose),
 * and a "closest passage" reply's quote. Every cited sentence is a badge alike, reader
 * quotes (`“…” [Source N]`, status "quoted") included.
 * Never: touch the DOM or `chrome.*` (node tests import this); produce HTML (page text and
 * quotes stay plain strings for textContent); trust a `mark` (it is clamped, or dropped).
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
 * @typedef {{text: string, mark: boolean}} TipPart a piece of a tooltip's passage; `mark`:
 *   the part that backs the sentence
 * @typedef {{cite: number, source: any, title: string, quote: string, tip: TipPart[],
 *   marked: string, href: string}} CitePart `quote`: the tooltip's passage as one string
 *   (`tip` joined); `marked`: the marked part unclipped ("" without a mark); `href`: the
 *   page at `marked`, else at the passage
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

/** @param {string} c */
const isSpace = (c) => /\s/.test(c);

/**
 * A citation's `mark`, `[start, end)` in code points of `quote` (the host's Python string
 * indices), clamped to the quote and narrowed to non-space characters; null when there is
 * none (an older host), it is malformed, or it marks nothing.
 * @param {unknown} mark @param {string} quote @returns {[number, number]|null}
 */
export function markIn(mark, quote) {
  if (!Array.isArray(mark) || mark.length !== 2) return null;
  const [a, b] = mark.map(Number);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return null;
  const chars = Array.from(quote);
  let s = Math.max(0, Math.min(chars.length, Math.floor(a)));
  let e = Math.max(0, Math.min(chars.length, Math.floor(b)));
  while (s < e && isSpace(chars[s])) s++;
  while (e > s && isSpace(chars[e - 1])) e--;
  return e > s ? [s, e] : null;
}

/**
 * The passage that backs a badge: its citation's `quote`, which is the passage of the
 * sentence's first source (the host checks every source a sentence keeps, and quotes the
 * first), when the badge is that source, with the citation's `mark`; else the source's
 * own first passage, unmarked (the mark is an offset into the quote only).
 * @param {any|null} citation @param {any} src @param {number} n
 * @returns {{passage: string, mark: [number, number]|null}}
 */
function backing(citation, src, n) {
  const quote = str(citation?.quote);
  const kept = Array.isArray(citation?.sources) ? citation.sources.map(Number) : [];
  if (quote.trim() && (kept.length === 0 || kept[0] === n)) {
    return { passage: quote, mark: markIn(citation.mark, quote) };
  }
  return { passage: sourcePassage(src).trim(), mark: null };
}

/** Runs of white space as one space. @param {string} s */
const flat = (s) => s.replace(/\s+/g, " ");

/** The last `max` characters of `s` at most, cut at a word, after "…". @param {string} s @param {number} max */
function clipStart(s, max) {
  if (s.length <= max) return s;
  if (max < 2) return "";
  const cut = s.slice(s.length - (max - 1));
  const space = cut.indexOf(" ");
  return `…${(space >= 0 && space < cut.length * 0.4 ? cut.slice(space + 1) : cut).trimStart()}`;
}

/** The first `max` characters of `s` at most, cut at a word, before "…". @param {string} s @param {number} max */
function clipEnd(s, max) {
  if (s.length <= max) return s;
  if (max < 2) return "";
  const cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > cut.length * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * What a badge's tooltip shows of its passage, at most `max` characters: the whole marked
 * part (clipped only when it alone is longer) with as much of the passage on either side
 * as fits, cut at words with "…", so that the mark is always in view. No mark: the
 * passage clipped from its start, one unmarked part.
 * @param {string} passage @param {[number, number]|null} mark @param {number} [max]
 * @returns {TipPart[]}
 */
export function tipParts(passage, mark, max = TIP_CHARS) {
  if (!mark) {
    const text = clip(passage, max);
    return text ? [{ text, mark: false }] : [];
  }
  const chars = Array.from(passage);
  // The mark's ends are not spaces (markIn), so flattening each side on its own gives
  // the same spacing as flattening the whole.
  const marked = flat(chars.slice(mark[0], mark[1]).join(""));
  if (marked.length > max - 2) return [{ text: clip(marked, max), mark: true }];
  const before = flat(chars.slice(0, mark[0]).join("")).trimStart();
  const after = flat(chars.slice(mark[1]).join("")).trimEnd();
  const room = max - marked.length;
  // Half the room after the mark (what follows the sentence), the rest before it; a side
  // that needs less gives its share to the other.
  const afterRoom = Math.min(after.length, Math.max(Math.floor(room / 2), room - before.length));
  const beforeRoom = room - afterRoom;
  /** @type {TipPart[]} */
  const parts = [];
  const lead = clipStart(before, beforeRoom);
  if (lead) parts.push({ text: lead, mark: false });
  parts.push({ text: marked, mark: true });
  const tail = clipEnd(after, afterRoom);
  if (tail) parts.push({ text: tail, mark: false });
  return parts;
}

/**
 * An answer as text parts and citation parts, each citation with what its tooltip shows
 * (its passage, the part that backs the sentence marked) and where its link goes. A badge
 * whose number is not among `sources` has `source: null`.
 * @param {unknown} answer @param {unknown} citations @param {unknown} sources
 * @returns {(TextPart|CitePart)[]}
 */
export function answerParts(answer, citations, sources) {
  const tokens = citationTokens(str(answer));
  const checks = citationsOf(tokens, Array.isArray(citations) ? citations : []);
  return tokens.map((t, i) => {
    if ("text" in t) return t;
    const src = sourceFor(sources, t.cite);
    const { passage, mark } = src ? backing(checks[i], src, t.cite) : { passage: "", mark: null };
    const tip = tipParts(passage, mark);
    const marked = mark ? Array.from(passage).slice(mark[0], mark[1]).join("") : "";
    return {
      cite: t.cite,
      source: src,
      title: src ? str(src.title).trim() || str(src.url) || `Source ${t.cite}` : `Source ${t.cite}`,
      quote: tip.map((p) => p.text).join(""),
      tip,
      marked,
      // The page at the marked sentence: a shorter text directive than the passage, so it
      // lands on the words that back the answer (Chrome opens the page's top if they changed).
      href: src ? textFragmentUrl(str(src.url), marked || passage) : "",
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
