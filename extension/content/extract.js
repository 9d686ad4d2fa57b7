/**
 * Content extraction: the page's main text as the person sees it, as passages.
 *
 * Job: `run` takes the visible copy of the page (visible.js: no hidden text, no form
 * fields or drafts, shadow roots and same-origin frames included), refuses the page when
 * it shows a password, payment or one-time-code field (the reason goes back instead of
 * text), finds the main content (Mozilla Readability when the page looks like an article
 * and yields enough text; else main / [role=main] / a single article / body), hands it
 * to `RewindChunker` with the host's limits, and masks personal data in every passage
 * with `RewindRedact` unless the person switched that off. Runs when the worker asks —
 * after the dwell threshold, and again within the worker's bounds — so text loaded late
 * or replaced by the page's scripts is captured as shown.
 * Never: execute, insert or render anything from the page (its text is data), send
 * anything anywhere (the worker gets the return value of `run`), return text of a page
 * it refuses, touch a live node (the copy is detached), or expose itself to the page (it
 * lives in the extension's isolated world).
 *
 * With the passages go the page's own signals (signals.js: declared app, controls such as
 * "Abmelden", a composer), masked like the passages, for the host's content check.
 *
 * Classic script and ES module at once, like chunker.js: Readability-readerable.js,
 * Readability.js, chunker.js, visible.js, signals.js (and redact.js) are injected before it
 * and define `isProbablyReaderable`, `Readability`, `RewindChunker`, `RewindVisible`,
 * `RewindSignals` (and `RewindRedact`) in the same world.
 */
{
  const MIN_ARTICLE_CHARS = 250; // Readability can return a 7-character "article"
  const MAX_READABILITY_CHARS = 2_000_000; // bigger pages skip Readability (bounded work)
  const MAX_READABILITY_ELEMENTS = 30_000; // Readability throws past this; we fall back

  /**
   * @typedef {{
   *   Readability?: any,
   *   isProbablyReaderable?: (doc: Document, opts?: object) => boolean,
   *   isHidden?: (el: Element) => boolean,
   *   limits?: object,
   *   owned?: boolean, // the document is a detached copy Readability may consume
   * }} ExtractEnv
   * @typedef {{
   *   title: string, method: "readability" | "fallback", lang: string,
   *   passages: {text: string, position: number, quality: number}[],
   *   stats: object, readability_error?: string,
   * }} Extraction
   */

  /** @param {Document} doc */
  function pageTitle(doc) {
    let title = "";
    try {
      title = String(doc.title || "");
    } catch {
      title = "";
    }
    if (!title.trim()) {
      const og = doc.querySelector('meta[property="og:title"]');
      title = (og && og.getAttribute("content")) || "";
    }
    if (!title.trim()) {
      const h1 = doc.querySelector("h1");
      title = (h1 && h1.textContent) || "";
    }
    return title.replace(/\s+/g, " ").trim().slice(0, 1000);
  }

  /** @param {Document} doc @returns {Node} */
  function fallbackRoot(doc) {
    const main = doc.querySelector("main, [role=main]");
    if (main) return main;
    const articles = doc.querySelectorAll("article");
    if (articles.length === 1) return articles[0];
    return doc.body || doc.documentElement || doc;
  }

  /**
   * Extract passages from `doc`. Pure with respect to the page: reads only.
   * @param {Document} doc @param {ExtractEnv} [env] @returns {Extraction}
   */
  function extractFrom(doc, env = {}) {
    const title = pageTitle(doc);
    /** @type {Node|null} */
    let root = null;
    /** @type {"readability"|"fallback"} */
    let method = "fallback";
    let readabilityError;
    const body = doc.body;
    const bodyChars = body ? String(body.textContent || "").length : 0;
    if (env.Readability && bodyChars <= MAX_READABILITY_CHARS) {
      try {
        const readerable = env.isProbablyReaderable ? env.isProbablyReaderable(doc) : true;
        if (readerable) {
          const clone = env.owned ? doc : /** @type {Document} */ (doc.cloneNode(true));
          const article = new env.Readability(clone, {
            serializer: (/** @type {Element} */ el) => el, // keep the element: the chunker needs structure
            maxElemsToParse: MAX_READABILITY_ELEMENTS,
          }).parse();
          const text = article && article.textContent ? String(article.textContent).trim() : "";
          if (article && article.content && text.length >= MIN_ARTICLE_CHARS) {
            root = article.content;
            method = "readability";
          }
        }
      } catch (err) {
        readabilityError = String(err && err.message ? err.message : err).slice(0, 200);
      }
    }
    const RewindChunker = /** @type {any} */ (globalThis).RewindChunker;
    const options = { title, limits: env.limits };
    if (!root) {
      root = fallbackRoot(doc);
      // Only the live DOM has computed styles; Readability already drops hidden nodes.
      if (env.isHidden) options.isHidden = env.isHidden;
    }
    const result = RewindChunker.chunk(root, options);
    /** @type {Extraction} */
    const out = {
      title,
      method,
      lang: String((doc.documentElement && doc.documentElement.getAttribute("lang")) || ""),
      passages: result.passages,
      stats: {
        candidates: result.candidates,
        dropped_short: result.dropped_short,
        dropped_low_quality: result.dropped_low_quality,
        nodes: result.nodes,
        chars_read: result.chars_read,
        truncated: result.truncated,
        body_chars: bodyChars,
      },
    };
    if (readabilityError) out.readability_error = readabilityError;
    return out;
  }

  /**
   * Mask personal data in each passage (the title too), keeping every passage within the
   * length limit (a mask can be longer than what it hides).
   * @param {{text: string, position: number, quality: number}[]} passages
   * @param {any} redactor `RewindRedact` @param {number} maxChars
   */
  function redactAll(passages, redactor, maxChars) {
    /** @type {Record<string, number>} */
    const counts = {};
    const out = passages.map((p) => {
      const r = redactor.redact(p.text);
      const text = typeof r === "string" ? r : String(r.text);
      for (const [kind, n] of Object.entries((r && r.counts) || {})) counts[kind] = (counts[kind] || 0) + Number(n);
      return { ...p, text: text.slice(0, maxChars) };
    });
    return { passages: out, counts };
  }

  /**
   * Entry point for the worker (`scripting.executeScript({func, args})`): the page this
   * script runs in.
   * @param {RunOptions} [opts]
   */
  function run(opts = {}) {
    return runOn(document, String(location.href), opts);
  }

  /**
   * What `run` does, for any document: the live page, or (the history backfill's
   * offscreen document) a page parsed from the HTML its site sent, which has no layout:
   * `styleOf` then says what is hidden (visible.js's `staticStyle`).
   * @typedef {{limits?: Record<string, number>, redact?: boolean, honourSignals?: boolean,
   *            budgetMs?: number, styleOf?: (el: Element) => object|null}} RunOptions
   * @param {Document} doc @param {string} url @param {RunOptions} [opts]
   */
  function runOn(doc, url, opts = {}) {
    const g = /** @type {any} */ (globalThis);
    const started = Date.now();
    const title = pageTitle(doc);
    const seen = g.RewindVisible.copy(doc, {
      ...(opts.budgetMs ? { limits: { budgetMs: opts.budgetMs } } : {}),
      ...(opts.styleOf ? { styleOf: opts.styleOf } : {}),
    });
    const copiedMs = Date.now() - started;
    if (seen.signals.length && opts.honourSignals !== false) {
      // The page's own reason not to be recorded: its text never leaves this script.
      return { url, title, method: "refused", lang: "", passages: [], refused: seen.signals[0],
               stats: { visible: seen.stats }, took_ms: Date.now() - started };
    }
    // The copy has no <title>: the live page's goes in for Readability's byline logic.
    seen.doc.title = title;
    const out = extractFrom(seen.doc, {
      Readability: typeof g.Readability === "function" ? g.Readability : undefined,
      isProbablyReaderable:
        typeof g.isProbablyReaderable === "function" ? g.isProbablyReaderable : undefined,
      limits: opts.limits,
      owned: true,
    });
    const maxChars = Number((opts.limits && opts.limits.maxPassageChars) || g.RewindChunker.LIMITS.maxPassageChars);
    let passages = out.passages;
    /** @type {Record<string, number>|undefined} */
    let redacted;
    let shownTitle = title;
    if (opts.redact !== false) {
      if (!g.RewindRedact) throw new Error("redaction is on but redact.js is not loaded");
      ({ passages, counts: redacted } = redactAll(passages, g.RewindRedact, maxChars));
      const t = g.RewindRedact.redact(title); // "Inbox - maya@example.com - Gmail"
      const maxTitle = Number((opts.limits && opts.limits.maxTitleChars) || g.RewindChunker.LIMITS.maxTitleChars);
      shownTitle = (typeof t === "string" ? t : String(t.text)).slice(0, maxTitle);
    }
    const signals = pageSignals(doc, opts.redact !== false ? g.RewindRedact : null);
    return {
      ...out, title: shownTitle, url, passages, refused: null, redacted, signals,
      stats: { ...out.stats, visible: seen.stats, copy_ms: copiedMs },
      took_ms: Date.now() - started,
    };
  }

  /**
   * The page's signals (signals.js), their labels masked like passages when `redactor` is given.
   * @param {Document} doc @param {any} [redactor] `RewindRedact`
   */
  function pageSignals(doc, redactor) {
    const g = /** @type {any} */ (globalThis);
    if (!g.RewindSignals) return null;
    const s = g.RewindSignals.collect(doc);
    if (!redactor) return s;
    /** @param {string} t */
    const mask = (t) => {
      const r = redactor.redact(t);
      return typeof r === "string" ? r : String(r.text);
    };
    return { ...s, controls: s.controls.map(mask), app: s.app.map(mask) };
  }

  /** @type {any} */ (globalThis).RewindExtract = Object.freeze({ extractFrom, run, runOn, pageTitle, redactAll, pageSignals });
}
