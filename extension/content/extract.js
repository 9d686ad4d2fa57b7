/**
 * Content extraction: the page's main text, as passages.
 *
 * Job: find the main content (Mozilla Readability when the page looks like an
 * article and yields enough text; else main / [role=main] / a single article /
 * body) and hand it to `RewindChunker`. Runs when the worker asks — after the
 * dwell threshold — so text loaded late by the page's scripts is there.
 * Never: execute, insert or render anything from the page (its text is data),
 * send anything anywhere (the worker gets the return value of `run`), touch a
 * live node's content (Readability works on a clone), or expose itself to the
 * page (it lives in the extension's isolated world).
 *
 * Classic script and ES module at once, like chunker.js: Readability-readerable.js,
 * Readability.js and chunker.js are injected before it and define
 * `isProbablyReaderable`, `Readability` and `RewindChunker` in the same world.
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
          const clone = /** @type {Document} */ (doc.cloneNode(true));
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

  /** In the page: hidden by CSS (display:none / visibility:hidden). @param {Element} el */
  function computedHidden(el) {
    const view = el.ownerDocument && el.ownerDocument.defaultView;
    if (!view || typeof view.getComputedStyle !== "function") return false;
    const cs = view.getComputedStyle(el);
    return cs.display === "none" || cs.visibility === "hidden";
  }

  /**
   * Entry point for the worker (`scripting.executeScript({func})`).
   * @param {{limits?: object}} [opts]
   */
  function run(opts = {}) {
    const g = /** @type {any} */ (globalThis);
    const started = Date.now();
    const out = extractFrom(document, {
      Readability: typeof g.Readability === "function" ? g.Readability : undefined,
      isProbablyReaderable:
        typeof g.isProbablyReaderable === "function" ? g.isProbablyReaderable : undefined,
      isHidden: computedHidden,
      limits: opts.limits,
    });
    return { ...out, url: String(location.href), took_ms: Date.now() - started };
  }

  /** @type {any} */ (globalThis).RewindExtract = Object.freeze({ extractFrom, run, pageTitle });
}
