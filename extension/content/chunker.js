/**
 * Passage chunker, after Chrome's DocumentChunker (blink content_extraction).
 *
 * Job: walk a DOM subtree and cut its text into passages of at most 200 words
 * (counted for every script by units.js: Chinese, Japanese and Thai have no spaces),
 * merging neighbouring text greedily without running across section breaks,
 * with a quality score (quality.js) and a position for each passage; the page title is a
 * passage of its own (position 0). In stages: `readText` (a text node within the budget),
 * `walk` and `mergeChildren` (an element's children merged into aggregates, cut at section
 * breaks), `flush` (an aggregate kept as a candidate passage or dropped), `choose` (the
 * best candidates, in document order).
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
 * isolated world after units.js and quality.js, node tests `import` the three; all get
 * `globalThis.RewindChunker`. Wrapped in a block so injecting it twice does not
 * redeclare anything.
 */
{
  const { countWords, splitLong, cut } = /** @type {any} */ (globalThis).RewindUnits;
  const { passageQuality } = /** @type {any} */ (globalThis).RewindQuality;

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
  const HIDDEN_STYLE = /(^|;)\s*(display\s*:\s*none|visibility\s*:\s*hidden)/i;
  // A heading's permalink ("¶" in Sphinx docs, "#" or "§" elsewhere): link furniture, not text.
  const PERMALINK_TEXT = /^\s*[¶§#🔗]\s*$/u;
  const PLAIN = Object.freeze({ link: false, nav: false, list: false, heading: false });

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
   * @typedef {{text: string, order: number, words: number, quality: number}} Candidate
   * @typedef {{link: boolean, nav: boolean, list: boolean, heading: boolean}} Flags
   */

  /**
   * An aggregate: neighbouring text that may still grow by merging siblings.
   * @typedef {{text: string, words: number, order: number, chars: number, linkChars: number,
   *   navChars: number, listChars: number, heading: boolean}} Agg
   */

  /**
   * One run of `chunk`: its limits and options, the budget left, and what it has kept.
   * @typedef {{L: typeof LIMITS, options: ChunkOptions, remaining: number, nodes: number,
   *   order: number, truncated: boolean, stop: boolean, out: Candidate[],
   *   droppedShort: number, droppedLow: number}} Run
   */

  /** @param {any} node */
  function tagOf(node) {
    return String(node.localName || node.nodeName || "").toLowerCase();
  }

  /** @param {any} el @param {string} name */
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

  /** @param {any} el @param {string} tag */
  function navLike(el, tag) {
    if (NAV_TAGS.has(tag)) return true;
    const role = attr(el, "role");
    if (role && NAV_ROLES.has(role.toLowerCase())) return true;
    const hint = `${attr(el, "class") || ""} ${attr(el, "id") || ""}`;
    return hint.length < 300 && NAV_HINT.test(hint);
  }

  /** @param {string} text */
  function tidy(text) {
    return text
      .replace(/[ \t\r\f\u00a0]+/g, " ")
      .replace(/ ?\n[ \n]*/g, "\n")
      .trim();
  }

  // ---- aggregates ------------------------------------------------------------------------

  /** @param {Run} run @param {string} t @param {Flags} flags @returns {Agg} */
  function makeAgg(run, t, flags) {
    const chars = t.trim().length;
    return {
      text: t,
      words: countWords(t),
      order: run.order++,
      chars,
      linkChars: flags.link ? chars : 0,
      navChars: flags.nav ? chars : 0,
      listChars: flags.list ? chars : 0,
      heading: flags.heading && chars > 0,
    };
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

  /** @param {Run} run @param {Agg} a @param {Agg} b */
  function fits(run, a, b) {
    return a.words + b.words <= run.L.maxWords && a.text.length + b.text.length < run.L.maxPassageChars;
  }

  // ---- stage 1: text ---------------------------------------------------------------------

  /**
   * A text node's text, within what is left of the budget, as an aggregate; text longer
   * than a passage is cut into passages at once and its last piece handed on.
   * @param {Run} run @param {string} raw @param {Flags} flags @returns {Agg|null}
   */
  function readText(run, raw, flags) {
    if (run.remaining <= 0) {
      run.truncated = true;
      run.stop = true;
      return null;
    }
    let s = raw;
    if (s.length > run.remaining) {
      s = s.slice(0, run.remaining);
      run.truncated = true;
    }
    run.remaining -= s.length;
    s = s.replace(/\s+/g, " ");
    if (!s) return null;
    if (countWords(s) <= run.L.maxWords && s.length <= run.L.maxPassageChars) return makeAgg(run, s, flags);
    const pieces = splitLong(s.trim(), run.L.maxWords, run.L.maxPassageChars);
    for (let i = 0; i < pieces.length - 1; i++) flush(run, makeAgg(run, pieces[i], flags));
    return makeAgg(run, pieces[pieces.length - 1], flags);
  }

  // ---- stage 2: walk ---------------------------------------------------------------------

  /**
   * Returns the aggregate this subtree hands to its parent for merging, or
   * null when it emitted its own passages (or had no text).
   * @param {Run} run @param {any} node @param {number} depth @param {Flags} flags
   * @returns {Agg|null}
   */
  function walk(run, node, depth, flags) {
    if (run.stop) return null;
    if (++run.nodes > run.L.maxNodes) {
      run.truncated = true;
      run.stop = true;
      return null;
    }
    const type = node.nodeType;
    if (type === 3 || type === 4) return readText(run, String(node.data ?? node.textContent ?? ""), flags);
    if (type !== 1 && type !== 9 && type !== 11) return null; // comments, PIs, doctypes
    if (depth > run.L.maxDepth) {
      run.truncated = true;
      return null;
    }
    const tag = type === 1 ? tagOf(node) : "";
    if (type === 1 && (SKIP.has(tag) || hidden(node, run.options))) return null;
    if (tag === "a" && permalink(node)) return null;
    if (tag === "br") return makeAgg(run, "\n", PLAIN); // a line break joins its neighbours
    const inner =
      type === 1
        ? {
            link: flags.link || tag === "a",
            nav: flags.nav || navLike(node, tag),
            list: flags.list || LIST.has(tag),
            heading: flags.heading || HEADING.has(tag),
          }
        : flags;
    const { cur, emitted } = mergeChildren(run, node, depth, inner);
    if (run.stop || emitted) {
      flush(run, cur);
      return null;
    }
    // Blocks keep their text apart from their neighbours' with a line break.
    if (cur && (BLOCK.has(tag) || SECTION.has(tag))) cur.text = `\n${cur.text}\n`;
    return cur;
  }

  /**
   * An element's children, walked and merged greedily into aggregates; a section break
   * flushes what came before it (and itself, unless it is a heading, which stays open for
   * the text under it). `cur` is what is still open; `emitted`, whether passages were kept.
   * @param {Run} run @param {any} node @param {number} depth @param {Flags} flags
   * @returns {{cur: Agg|null, emitted: boolean}}
   */
  function mergeChildren(run, node, depth, flags) {
    /** @type {Agg|null} */
    let cur = null;
    let emitted = false;
    for (let child = node.firstChild; child && !run.stop; child = child.nextSibling) {
      const ctag = child.nodeType === 1 ? tagOf(child) : "";
      const section = SECTION.has(ctag);
      const c = walk(run, child, depth + 1, flags);
      if (section) {
        // Nothing before a section break joins it or what follows it.
        if (cur && cur.words > 0) {
          flush(run, cur);
          emitted = true;
        }
        cur = null;
      }
      if (!c) {
        if (section) emitted = true;
        continue;
      }
      if (cur && fits(run, cur, c) && !section) {
        merge(cur, c);
      } else {
        if (cur && cur.words > 0) {
          flush(run, cur);
          emitted = true;
        }
        cur = c;
      }
      if (section && !HEADING.has(ctag)) {
        flush(run, cur);
        emitted = true;
        cur = null;
      }
    }
    return { cur, emitted };
  }

  // ---- stage 3: passages -----------------------------------------------------------------

  /** An aggregate kept as a candidate passage, or counted as dropped. @param {Run} run @param {Agg|null} a */
  function flush(run, a) {
    if (!a || a.words === 0) return;
    const text = tidy(a.text);
    const words = countWords(text);
    if (words < run.L.minWords) {
      run.droppedShort++;
      return;
    }
    const q = passageQuality(text, a);
    if (q < run.L.minQuality) {
      run.droppedLow++;
      return;
    }
    run.out.push({ text, order: a.order, words, quality: q });
    if (run.out.length >= run.L.maxCandidates) {
      run.stop = true;
      run.truncated = true;
    }
  }

  // ---- stage 4: choose -------------------------------------------------------------------

  /**
   * Positions follow document order (title = 0); when there are more candidates than
   * slots, the best ones are kept, still in document order.
   * @param {Candidate[]} candidates (in document order) @param {string} title @param {typeof LIMITS} L
   * @returns {Passage[]}
   */
  function choose(candidates, title, L) {
    const ranked = candidates.map((p, i) => ({ ...p, position: i + 1 }));
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
    return passages;
  }

  /**
   * Cut the subtree under `root` into passages.
   * @param {Node} root @param {ChunkOptions} [options] @returns {ChunkResult}
   */
  function chunk(root, options = {}) {
    const L = { ...LIMITS, ...(options.limits || {}) };
    /** @type {Run} */
    const run = {
      L, options, remaining: L.maxCharsRead, nodes: 0, order: 0, truncated: false, stop: false,
      out: [], droppedShort: 0, droppedLow: 0,
    };
    flush(run, walk(run, root, 0, PLAIN));
    const candidates = run.out.sort((a, b) => a.order - b.order);
    const title = String(options.title || "").replace(/\s+/g, " ").trim().slice(0, L.maxTitleChars);
    return {
      passages: choose(candidates, title, L),
      candidates: candidates.length,
      dropped_short: run.droppedShort,
      dropped_low_quality: run.droppedLow,
      nodes: run.nodes,
      chars_read: L.maxCharsRead - run.remaining,
      truncated: run.truncated,
    };
  }

  globalThis.RewindChunker = Object.freeze({ chunk, countWords, cut, LIMITS });
}
