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
 * or replaced by the page's scripts is captured as shown. The live page is read in slices
 * (visible.js `copySliced`, then one stage at a time), giving the page its thread back
 * between them, within a wall-clock budget from the host's hello
 * (`capture.extract_budget_ms`); a page that leaves too little time is skipped with that
 * reason.
 * Never: execute, insert or render anything from the page (its text is data), hold the
 * page's thread for long (no long task: slices of a few ms), send
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
   *   readabilityMaxChars?: number, readabilityMaxElements?: number, // lower on a live page
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
    return passagesOf(doc, mainContent(doc, env), env);
  }

  /**
   * Stage one: where the page's main text is (Readability's article, or the fallback).
   * @param {Document} doc @param {ExtractEnv} env
   */
  function mainContent(doc, env) {
    const title = pageTitle(doc);
    /** @type {Node|null} */
    let root = null;
    /** @type {"readability"|"fallback"} */
    let method = "fallback";
    /** @type {string|undefined} */
    let readabilityError;
    const body = doc.body;
    const bodyChars = body ? String(body.textContent || "").length : 0;
    if (env.Readability && bodyChars <= (env.readabilityMaxChars ?? MAX_READABILITY_CHARS)) {
      try {
        const readerable = env.isProbablyReaderable ? env.isProbablyReaderable(doc) : true;
        if (readerable) {
          const clone = env.owned ? doc : /** @type {Document} */ (doc.cloneNode(true));
          const article = new env.Readability(clone, {
            serializer: (/** @type {Element} */ el) => el, // keep the element: the chunker needs structure
            maxElemsToParse: env.readabilityMaxElements ?? MAX_READABILITY_ELEMENTS,
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
    return { title, root, method, readabilityError, bodyChars };
  }

  /**
   * Stage two: the main text cut into passages by the chunker.
   * @param {Document} doc @param {ReturnType<typeof mainContent>} main @param {ExtractEnv} env
   * @returns {Extraction}
   */
  function passagesOf(doc, main, env) {
    const RewindChunker = /** @type {any} */ (globalThis).RewindChunker;
    const { title, method, readabilityError, bodyChars } = main;
    /** @type {any} */
    const options = { title, limits: env.limits };
    let root = main.root;
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
   * script runs in, read in slices so that the tab never waits on us (the worker awaits
   * the promise).
   * @param {RunOptions} [opts]
   */
  function run(opts = {}) {
    return runSliced(document, String(location.href), opts);
  }

  /**
   * @typedef {{limits?: Record<string, number>, redact?: boolean, honourSignals?: boolean,
   *            budgetMs?: number, sliceMs?: number,
   *            styleOf?: (el: Element) => object|null}} RunOptions
   */

  /**
   * What `run` does, for any document, in one go: the history backfill's offscreen
   * document (a page parsed from the HTML its site sent, which has no layout and no
   * person waiting on its thread): `styleOf` then says what is hidden (visible.js's
   * `staticStyle`).
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
    if (seen.signals.length && opts.honourSignals !== false) return refusedBy(url, title, seen, started);
    const env = extractEnv(seen.doc, title, opts);
    const out = extractFrom(seen.doc, env);
    return finish(doc, url, title, out, opts, { ...out.stats, visible: seen.stats, copy_ms: copiedMs }, started);
  }

  // A live page's copy holds what Readability and the chunker below can use, no more (a
  // bigger copy only costs the page time and memory).
  const LIVE_COPY = Object.freeze({ maxNodes: 60_000, maxChars: 400_000 });
  const LIVE_CHUNK = Object.freeze({ maxNodes: 12_000, maxCharsRead: 100_000 });
  const LIVE_READABILITY = Object.freeze({ readabilityMaxChars: 300_000, readabilityMaxElements: 10_000 });
  const MIN_READ_CHARS = 200; // less than this read when the time ran out: skipped, not recorded

  /**
   * The live page, stage by stage, giving the page its thread back between stages and
   * inside the walk (visible.js `copySliced`): no stage but the bounded Readability and
   * chunker passes holds the thread for more than `sliceMs`. Past `budgetMs` (wall clock,
   * the page's own busy time included) the walk stops: what was read is recorded when it
   * is a real part of the page's text, else the page is skipped with the reason.
   * @param {Document} doc @param {string} url @param {RunOptions} [opts]
   */
  async function runSliced(doc, url, opts = {}) {
    const g = /** @type {any} */ (globalThis);
    const V = g.RewindVisible;
    const pause = V.yieldToPage;
    const started = Date.now();
    /** @type {Record<string, number>} */
    const stages = {};
    /** @template T @param {string} name @param {() => T} fn @returns {T} */
    const timed = (name, fn) => {
      const t = Date.now();
      try {
        return fn();
      } finally {
        stages[name] = Date.now() - t;
      }
    };
    const title = timed("title", () => pageTitle(doc));
    const limits = {
      ...LIVE_COPY,
      ...(opts.budgetMs ? { budgetMs: opts.budgetMs } : {}),
      ...(opts.sliceMs ? { sliceMs: opts.sliceMs } : {}),
    };
    const t0 = Date.now();
    const seen = await V.copySliced(doc, { limits, ...(opts.styleOf ? { styleOf: opts.styleOf } : {}) });
    stages.copy = Date.now() - t0;
    // The longest the page waited on us at once: a slice of the walk, or a whole stage.
    const blocks = () => ({
      stages_ms: stages,
      longest_block_ms: Math.max(seen.stats.longest_slice_ms, ...Object.entries(stages).filter(([k]) => k !== "copy").map(([, v]) => v)),
    });
    if (seen.signals.length && opts.honourSignals !== false) {
      return { ...refusedBy(url, title, seen, started), stats: { visible: seen.stats, ...blocks() } };
    }
    if (seen.stats.stopped_by === "time" && seen.stats.chars < MIN_READ_CHARS) {
      const budget = Math.round((opts.budgetMs || V.DEFAULTS.budgetMs) / 100) / 10;
      return {
        url, title, method: "skipped", lang: "", passages: [], refused: null,
        skipped: { category: "unreadable", why: `kept its thread too busy to be read within ${budget} s (Rewind tries again on your next visit)` },
        stats: { visible: seen.stats, ...blocks() }, took_ms: Date.now() - started,
      };
    }
    await pause();
    // Readability and the chunker each run in one go: on a live page both are capped lower,
    // which only binds on huge pages (the chunker's 100,000 characters still hold what 30
    // passages can; past Readability's caps the fallback root is chunked).
    const env = {
      ...extractEnv(seen.doc, title, { ...opts, limits: { ...LIVE_CHUNK, ...(opts.limits || {}) } }),
      ...LIVE_READABILITY,
    };
    const main = timed("readability", () => mainContent(seen.doc, env));
    await pause();
    const out = timed("chunk", () => passagesOf(seen.doc, main, env));
    await pause();
    const done = timed("redact", () => finish(null, url, title, out, opts, {}, started));
    await pause();
    const signals = await pageSignalsSliced(doc, opts.redact !== false ? g.RewindRedact : null, pause, stages);
    return { ...done, signals, stats: { ...out.stats, visible: seen.stats, copy_ms: stages.copy, ...blocks() },
             took_ms: Date.now() - started };
  }

  /** The page's own reason not to be recorded: its text never leaves this script. */
  function refusedBy(/** @type {string} */ url, /** @type {string} */ title, /** @type {any} */ seen, /** @type {number} */ started) {
    return { url, title, method: "refused", lang: "", passages: [], refused: seen.signals[0],
             stats: { visible: seen.stats }, took_ms: Date.now() - started };
  }

  /** What extractFrom needs for the visible copy. @param {Document} copied @param {string} title @param {RunOptions} opts */
  function extractEnv(copied, title, opts) {
    const g = /** @type {any} */ (globalThis);
    // The copy has no <title>: the live page's goes in for Readability's byline logic.
    copied.title = title;
    return {
      Readability: typeof g.Readability === "function" ? g.Readability : undefined,
      isProbablyReaderable: typeof g.isProbablyReaderable === "function" ? g.isProbablyReaderable : undefined,
      limits: opts.limits,
      owned: true,
    };
  }

  /**
   * Last stage: personal data masked in passages and title, the page's signals.
   * @param {Document|null} doc the page (its signals; null: read apart) @param {string} url @param {string} title
   * @param {Extraction} out @param {RunOptions} opts @param {object} stats @param {number} started
   */
  function finish(doc, url, title, out, opts, stats, started) {
    const g = /** @type {any} */ (globalThis);
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
    const signals = doc ? pageSignals(doc, opts.redact !== false ? g.RewindRedact : null) : null;
    return {
      ...out, title: shownTitle, url, passages, refused: null, redacted, signals,
      stats, took_ms: Date.now() - started,
    };
  }

  /**
   * `pageSignals` a stage at a time (signals.js `collectSliced`), the longest in `stages.signals`.
   * @param {Document} doc @param {any} redactor @param {() => Promise<unknown>} pause @param {Record<string, number>} stages
   */
  async function pageSignalsSliced(doc, redactor, pause, stages) {
    const g = /** @type {any} */ (globalThis);
    if (!g.RewindSignals) return null;
    let longest = 0;
    let t = Date.now();
    const timedPause = async () => {
      longest = Math.max(longest, Date.now() - t);
      await pause();
      t = Date.now();
    };
    const s = await g.RewindSignals.collectSliced(doc, timedPause);
    stages.signals = longest;
    return masked(s, redactor);
  }

  /**
   * The page's signals (signals.js), their labels masked like passages when `redactor` is given.
   * @param {Document} doc @param {any} [redactor] `RewindRedact`
   */
  function pageSignals(doc, redactor) {
    const g = /** @type {any} */ (globalThis);
    if (!g.RewindSignals) return null;
    return masked(g.RewindSignals.collect(doc), redactor);
  }

  /** @param {any} s signals.js's @param {any} [redactor] */
  function masked(s, redactor) {
    if (!redactor) return s;
    /** @param {string} t */
    const mask = (t) => {
      const r = redactor.redact(t);
      return typeof r === "string" ? r : String(r.text);
    };
    return { ...s, controls: s.controls.map(mask), app: s.app.map(mask) };
  }

  /** @type {any} */ (globalThis).RewindExtract = Object.freeze({ extractFrom, run, runOn, runSliced, pageTitle, redactAll, pageSignals });
}
