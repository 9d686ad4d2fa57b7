/**
 * Passage chunker, after Chrome's DocumentChunker (blink content_extraction).
 *
 * Job: walk a DOM subtree and cut its text into passages of at most 200 words
 * (counted for every script: Chinese, Japanese and Thai have no spaces),
 * merging neighbouring text greedily without running across section breaks,
 * with a quality score and a position for each passage; the page title is a
 * passage of its own (position 0).
 * Never: run, insert or render page content (text is read through
 * `textContent`/`data` only), touch `chrome.*`, or do unbounded work — every
 * walk is capped in characters, nodes and depth (a 10 MB wall of text costs
 * the same as a long article).
 *
 * It recurses over `childNodes` and reads text nodes' `data`, so the same code
 * runs in the browser, in linkedom and in jsdom (node tests).
 *
 * Classic script and ES module at once (no import/export): the worker injects
 * it with `scripting.executeScript({files})` into the content script's
 * isolated world, node tests `import` it; both get `globalThis.RewindChunker`.
 * Wrapped in a block so injecting it twice does not redeclare anything.
 */
{
  /** Defaults until the host's first hello; its `capture` limits (the host's Settings, the one
   *  source of these numbers) are passed in as `limits` after that. */
  const LIMITS = Object.freeze({
    maxWords: 200, // Chrome's max_words_per_aggregate_passage
    minWords: 5, // shorter passages are dropped (the title is kept apart)
    minQuality: 0.1, // pure link lists (menus) score 0 and are dropped
    maxPassages: 30, // per page, title included
    maxPassageChars: 2400, // a passage of 200 very long "words" is cut here
    maxTitleChars: 1000,
    maxCharsRead: 400_000, // text read from the page, in total (bounded work)
    maxNodes: 60_000, // nodes visited
    maxDepth: 96, // deeper nesting is ignored (no stack overflow on hostile pages)
    maxCandidates: 400, // passages collected before choosing the best maxPassages
  });

  // Elements whose text is never page content.
  const SKIP = new Set([
    "script", "style", "noscript", "template", "head", "title", "meta", "link",
    "svg", "math", "canvas", "iframe", "frame", "frameset", "object", "embed",
    "audio", "video", "picture", "img", "map", "select", "option", "datalist",
    "textarea", "input", "button", "dialog",
  ]);

  // Section breaks: text is never merged across them (Chrome's list plus
  // section, aside, table, form, body). A heading starts a new passage and
  // stays open so that the text under it joins it; the others close theirs.
  // <br> is only a line break here: treated as a section break (as Chrome
  // does) it cut poems and addresses into pieces under minWords, all dropped.
  const SECTION = new Set([
    "article", "aside", "body", "div", "footer", "form", "h1", "h2", "h3",
    "h4", "h5", "h6", "header", "hr", "html", "main", "nav", "section", "table",
  ]);
  const HEADING = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);

  // Blocks that are not section breaks: neighbours merge up to maxWords, but
  // their text is separated by a line break, never glued into one word.
  const BLOCK = new Set([
    "p", "li", "ul", "ol", "dl", "dt", "dd", "blockquote", "pre", "tr", "td",
    "th", "thead", "tbody", "tfoot", "caption", "figure", "figcaption",
    "details", "summary", "address", "fieldset", "legend", "center", "menu",
    "label",
  ]);
  const LIST = new Set(["li", "dd", "dt"]);
  const NAV_TAGS = new Set(["nav", "header", "footer", "aside"]);
  const NAV_ROLES = new Set([
    "navigation", "banner", "contentinfo", "complementary", "menu", "menubar",
    "search", "toolbar", "tablist",
  ]);
  const NAV_HINT =
    /(^|[\s_-])(nav|navbar|navigation|menu|breadcrumbs?|footer|sidebar|cookies?|consent|banner|share|sharing|social|related|promo|advert|ads?|subscribe|newsletter|pagination|masthead|skip-link)([\s_-]|$)/i;
  const BOILERPLATE =
    /(cookie|privacy policy|terms of (use|service)|all rights reserved|©|copyright \d|subscribe to|sign up for|newsletter|accept all|skip to (main )?content|follow us)/i;
  const SENTENCE_END = /[.!?…]["')\]»”’]?(\s|$)|[。！？]/; // CJK full stops need no space
  const HIDDEN_STYLE = /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)/i;
  // A heading's permalink ("¶" in Sphinx docs, "#" or "§" elsewhere): link furniture, not text.
  const PERMALINK_TEXT = /^\s*[¶§#🔗]\s*$/u;

  /**
   * @typedef {{text: string, position: number, quality: number}} Passage
   * @typedef {{
   *   title?: string,
   *   isHidden?: (el: Element) => boolean,
   *   limits?: Partial<typeof LIMITS>,
   * }} ChunkOptions
   * @typedef {{
   *   passages: Passage[], candidates: number, dropped_short: number,
   *   dropped_low_quality: number,
   *   nodes: number, chars_read: number, truncated: boolean,
   * }} ChunkResult
   */

  /**
   * An aggregate: neighbouring text that may still grow by merging siblings.
   * @typedef {{
   *   text: string, words: number, order: number, chars: number,
   *   linkChars: number, navChars: number, listChars: number,
   *   heading: boolean,
   * }} Agg
   */

  // Scripts written without spaces (host/rewind/capture/units.py, same numbers): each
  // character counts the share of a word it carries for an embedding model, in twelfths —
  // a Han character half a word, a kana a third, a Thai, Lao, Myanmar or Khmer letter a
  // quarter; a word between spaces counts one (12). CJK and full-width punctuation separate
  // and weigh 0; combining marks stay on their letter.
  const WHOLE = 12;
  const DENSE = [
    [0x3400, 0x4dbf, 6], [0x4e00, 0x9fff, 6], [0xf900, 0xfaff, 6], [0x20000, 0x2ffff, 6],
    [0x3040, 0x30ff, 4], [0x31f0, 0x31ff, 4], [0xff66, 0xff9f, 4],
    [0x0e00, 0x0eff, 3], [0x1000, 0x109f, 3], [0x1780, 0x17ff, 3],
  ];
  const SPACE = /\s/;
  const MARK = /\p{M}/u;
  const ALNUM = /[\p{L}\p{N}]/u;

  /** Twelfths of a word for one code point of a script without spaces, else 0. @param {number} cp */
  function weight(cp) {
    if (cp < 0x0e00) return 0;
    for (const [first, last, w] of DENSE) if (cp >= first && cp <= last) return w;
    return 0;
  }

  /**
   * Units of `s`: [start, end, twelfths] for each word between separators and each
   * character of a script without spaces (UTF-16 offsets).
   * @param {string} s @returns {[number, number, number][]}
   */
  function units(s) {
    /** @type {[number, number, number][]} */
    const out = [];
    let start = -1;
    /** @type {[number, number, number] | null} */
    let last = null; // the dense unit a combining mark joins (Thai vowels and tone marks)
    for (let i = 0; i < s.length; ) {
      const cp = /** @type {number} */ (s.codePointAt(i));
      const size = cp > 0xffff ? 2 : 1;
      const ch = s.slice(i, i + size);
      if (last && MARK.test(ch)) {
        last[1] = i + size;
        i += size;
        continue;
      }
      if (last) out.push(last);
      last = null;
      const w = weight(cp);
      const sep = SPACE.test(ch) || (cp >= 0x3000 && cp <= 0x303f) || (cp >= 0xff00 && cp <= 0xff65 && !ALNUM.test(ch));
      if (w || sep) {
        if (start >= 0) out.push([start, i, WHOLE]);
        start = -1;
        if (w) last = [i, i + size, w];
      } else if (start < 0) start = i;
      i += size;
    }
    if (last) out.push(last);
    if (start >= 0) out.push([start, s.length, WHOLE]);
    return out;
  }

  /** Words in `s`, every script measured (rounded up over the whole text). @param {string} s */
  function countWords(s) {
    let t = 0;
    for (const u of units(s)) t += u[2];
    return Math.ceil(t / WHOLE);
  }

  /** @param {any} node */
  function tagOf(node) {
    return String(node.localName || node.nodeName || "").toLowerCase();
  }

  /** @param {any} el */
  function attr(el, name) {
    try {
      return typeof el.getAttribute === "function" ? el.getAttribute(name) : null;
    } catch {
      return null;
    }
  }

  /** @param {any} el @param {ChunkOptions} opts */
  function hidden(el, opts) {
    if (attr(el, "hidden") !== null) return true;
    if (attr(el, "aria-hidden") === "true") return true;
    const style = attr(el, "style");
    if (style && HIDDEN_STYLE.test(style)) return true;
    if (opts.isHidden) {
      try {
        return opts.isHidden(el);
      } catch {
        return false;
      }
    }
    return false;
  }

  /** An in-page anchor whose only text is one permalink symbol. @param {any} el */
  function permalink(el) {
    const href = attr(el, "href");
    if (href === null || !href.startsWith("#")) return false;
    const only = el.firstChild;
    return Boolean(only && !only.nextSibling && only.nodeType === 3 && PERMALINK_TEXT.test(String(only.data ?? "")));
  }

  /** @param {any} el */
  function navLike(el, tag) {
    if (NAV_TAGS.has(tag)) return true;
    const role = attr(el, "role");
    if (role && NAV_ROLES.has(role.toLowerCase())) return true;
    const hint = `${attr(el, "class") || ""} ${attr(el, "id") || ""}`;
    return hint.length < 300 && NAV_HINT.test(hint);
  }

  /**
   * Quality in [0, 1]: rewards sentences, length, headings and lists;
   * penalises link-heavy, navigation and boilerplate text.
   * @param {Agg} a @param {string} text
   */
  function quality(a, text) {
    let q = 0.5;
    if (a.words >= 40) q += 0.15;
    else if (a.words >= 20) q += 0.05;
    else if (a.words < 12) q -= 0.15;
    if (a.heading) q += 0.1;
    if (a.chars > 0 && a.listChars / a.chars > 0.3) q += 0.05;
    if (SENTENCE_END.test(text)) q += 0.1;
    const linkDensity = a.chars > 0 ? a.linkChars / a.chars : 0;
    if (linkDensity > 0.3) q -= 0.45 * linkDensity;
    const navShare = a.chars > 0 ? a.navChars / a.chars : 0;
    q -= 0.3 * navShare;
    if (BOILERPLATE.test(text)) q -= 0.2;
    return Math.round(Math.min(1, Math.max(0, q)) * 1000) / 1000;
  }

  /** @param {string} text */
  function tidy(text) {
    return text
      .replace(/[ \t\r\f\u00a0]+/g, " ")
      .replace(/ ?\n[ \n]*/g, "\n")
      .trim();
  }

  /**
   * Split `text` into consecutive pieces of at most maxWords words and maxChars chars, cut
   * where a unit starts (a single unit longer than maxChars is cut hard); pieces are trimmed
   * slices of `text` that together hold all of it but whitespace.
   * @param {string} text @param {number} maxWords @param {number} maxChars
   */
  function splitLong(text, maxWords, maxChars) {
    const limit = Math.max(1, maxWords) * WHOLE;
    /** @type {string[]} */
    const pieces = [];
    let start = -1;
    let total = 0;
    /** The piece open since `start`, up to `end` (where the next unit starts). @param {number} end */
    const close = (end) => {
      if (start >= 0) {
        const p = text.slice(start, end).trim();
        if (p) pieces.push(p);
      }
      start = -1;
      total = 0;
    };
    for (let [s, e, w] of units(text)) {
      while (e - s > maxChars) {
        close(s);
        pieces.push(text.slice(s, s + maxChars));
        s += maxChars;
      }
      if (start >= 0 && (total + w > limit || e - start > maxChars)) close(s);
      if (start < 0) start = s;
      total += w;
    }
    close(text.length);
    return pieces;
  }

  /**
   * Cut the subtree under `root` into passages.
   * @param {Node} root @param {ChunkOptions} [options] @returns {ChunkResult}
   */
  function chunk(root, options = {}) {
    const L = { ...LIMITS, ...(options.limits || {}) };
    const ctx = {
      remaining: L.maxCharsRead,
      nodes: 0,
      order: 0,
      truncated: false,
      stop: false,
      /** @type {{text: string, order: number, words: number, quality: number}[]} */
      out: [],
      droppedShort: 0,
      droppedLow: 0,
    };

    /** @param {Agg|null} a */
    function flush(a) {
      if (!a || a.words === 0) return;
      const text = tidy(a.text);
      const words = countWords(text);
      if (words < L.minWords) {
        ctx.droppedShort++;
        return;
      }
      const q = quality(a, text);
      if (q < L.minQuality) {
        ctx.droppedLow++;
        return;
      }
      ctx.out.push({ text, order: a.order, words, quality: q });
      if (ctx.out.length >= L.maxCandidates) {
        ctx.stop = true;
        ctx.truncated = true;
      }
    }

    /** @param {Agg} a @param {Agg} b */
    function merge(a, b) {
      a.text += b.text;
      a.words += b.words;
      a.chars += b.chars;
      a.linkChars += b.linkChars;
      a.navChars += b.navChars;
      a.listChars += b.listChars;
      a.heading = a.heading || b.heading;
      if (a.words === b.words) a.order = b.order; // `a` held only whitespace
    }

    /** @param {Agg} a @param {Agg} b */
    function fits(a, b) {
      return a.words + b.words <= L.maxWords && a.text.length + b.text.length < L.maxPassageChars;
    }

    /** @returns {Agg} */
    function lineBreak() {
      return {
        text: "\n", words: 0, order: ctx.order++, chars: 0,
        linkChars: 0, navChars: 0, listChars: 0, heading: false,
      };
    }

    /**
     * @param {string} raw
     * @param {{link: boolean, nav: boolean, list: boolean, heading: boolean}} flags
     * @returns {Agg|null}
     */
    function textNode(raw, flags) {
      if (ctx.remaining <= 0) {
        ctx.truncated = true;
        ctx.stop = true;
        return null;
      }
      let s = raw;
      if (s.length > ctx.remaining) {
        s = s.slice(0, ctx.remaining);
        ctx.truncated = true;
      }
      ctx.remaining -= s.length;
      s = s.replace(/\s+/g, " ");
      if (!s) return null;
      const words = countWords(s);
      /** @param {string} t @returns {Agg} */
      const make = (t) => {
        const chars = t.trim().length;
        return {
          text: t,
          words: countWords(t),
          order: ctx.order++,
          chars,
          linkChars: flags.link ? chars : 0,
          navChars: flags.nav ? chars : 0,
          listChars: flags.list ? chars : 0,
          heading: flags.heading && chars > 0,
        };
      };
      if (words <= L.maxWords && s.length <= L.maxPassageChars) return make(s);
      const pieces = splitLong(s.trim(), L.maxWords, L.maxPassageChars);
      for (let i = 0; i < pieces.length - 1; i++) flush(make(pieces[i]));
      return make(pieces[pieces.length - 1]);
    }

    /**
     * Returns the aggregate this subtree hands to its parent for merging, or
     * null when it emitted its own passages (or had no text).
     * @param {any} node @param {number} depth
     * @param {{link: boolean, nav: boolean, list: boolean, heading: boolean}} flags
     * @returns {Agg|null}
     */
    function walk(node, depth, flags) {
      if (ctx.stop) return null;
      if (++ctx.nodes > L.maxNodes) {
        ctx.truncated = true;
        ctx.stop = true;
        return null;
      }
      const type = node.nodeType;
      if (type === 3 || type === 4) return textNode(String(node.data ?? node.textContent ?? ""), flags);
      if (type !== 1 && type !== 9 && type !== 11) return null; // comments, PIs, doctypes
      if (depth > L.maxDepth) {
        ctx.truncated = true;
        return null;
      }
      const tag = type === 1 ? tagOf(node) : "";
      if (type === 1 && (SKIP.has(tag) || hidden(node, options))) return null;
      if (tag === "a" && permalink(node)) return null;
      if (tag === "br") return lineBreak();
      const childFlags =
        type === 1
          ? {
              link: flags.link || tag === "a",
              nav: flags.nav || navLike(node, tag),
              list: flags.list || LIST.has(tag),
              heading: flags.heading || HEADING.has(tag),
            }
          : flags;

      /** @type {Agg|null} */
      let cur = null;
      let emitted = false;
      for (let child = node.firstChild; child && !ctx.stop; child = child.nextSibling) {
        const ctag = child.nodeType === 1 ? tagOf(child) : "";
        const section = SECTION.has(ctag);
        const c = walk(child, depth + 1, childFlags);
        if (section) {
          // Nothing before a section break joins it or what follows it.
          if (cur && cur.words > 0) {
            flush(cur);
            emitted = true;
          }
          cur = null;
        }
        if (!c) {
          if (section) emitted = true;
          continue;
        }
        if (cur && fits(cur, c) && !section) {
          merge(cur, c);
        } else {
          if (cur && cur.words > 0) {
            flush(cur);
            emitted = true;
          }
          cur = c;
        }
        if (section && !HEADING.has(ctag)) {
          flush(cur);
          emitted = true;
          cur = null;
        }
      }
      if (ctx.stop) {
        flush(cur);
        return null;
      }
      if (emitted) {
        flush(cur);
        return null;
      }
      // Blocks keep their text apart from their neighbours' with a line break.
      if (cur && (BLOCK.has(tag) || SECTION.has(tag))) cur.text = `\n${cur.text}\n`;
      return cur;
    }

    const rest = walk(root, 0, { link: false, nav: false, list: false, heading: false });
    flush(rest);

    // Positions follow document order (title = 0); when there are more
    // candidates than slots, the best ones are kept, still in document order.
    const candidates = ctx.out.sort((a, b) => a.order - b.order);
    const ranked = candidates.map((p, i) => ({ ...p, position: i + 1 }));
    const title = String(options.title || "")
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, L.maxTitleChars);
    const slots = Math.max(0, L.maxPassages - (title ? 1 : 0));
    let chosen = ranked;
    if (ranked.length > slots) {
      chosen = [...ranked]
        .sort((a, b) => b.quality - a.quality || a.position - b.position)
        .slice(0, slots)
        .sort((a, b) => a.position - b.position);
    }
    /** @type {Passage[]} */
    const passages = [];
    if (title) passages.push({ text: title, position: 0, quality: 1 });
    for (const p of chosen) passages.push({ text: p.text, position: p.position, quality: p.quality });
    return {
      passages,
      candidates: candidates.length,
      dropped_short: ctx.droppedShort,
      dropped_low_quality: ctx.droppedLow,
      nodes: ctx.nodes,
      chars_read: L.maxCharsRead - ctx.remaining,
      truncated: ctx.truncated,
    };
  }

  /** Pieces of at most maxWords words (no character cap): the host's units.cut. */
  const cut = (/** @type {string} */ text, /** @type {number} */ maxWords) => splitLong(text, maxWords, Infinity);

  globalThis.RewindChunker = Object.freeze({ chunk, countWords, cut, LIMITS });
}
