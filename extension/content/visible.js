/**
 * What a person can see on the page, as a clean detached copy, and the page's own signals.
 *
 * Job: walk the live DOM once (open shadow roots and same-origin frames included),
 * deciding visibility there from computed style and layout — display:none, visibility
 * hidden/collapse, opacity 0, content-visibility hidden, zero-size or clipped boxes,
 * boxes off the page's top or left edge, closed <details>, aria-hidden subtrees — and
 * build a detached document holding only visible text and the structure the chunker and
 * Readability need. Form fields, contenteditable regions and <template> never enter it.
 * On the way, note visible password, payment and one-time-code fields (the page's own
 * reason not to be recorded), except in site chrome (a header, navigation, sidebar or
 * footer outside the page's article: a site's login box beside an article).
 * A live page is walked in slices of a few milliseconds (`copySliced`), the page getting
 * its thread back between them: a huge or busy page never turns the walk into a long task.
 * Never: mutate the page, copy scripts, styles, event handlers, `src` or `style`
 * attributes into the copy, hold the page's thread for more than a slice, or do
 * unbounded work (nodes, characters and time are capped).
 *
 * Classic script and ES module at once, like chunker.js: defines `RewindVisible`.
 */
{
  const DEFAULTS = Object.freeze({
    maxNodes: 250_000, // elements and text nodes visited
    maxChars: 1_000_000, // text copied
    maxDepth: 128,
    maxFrames: 16, // same-origin frames read
    budgetMs: 4000, // wall clock (the page's own time between slices too); stops (truncated) past it
    sliceMs: 8, // copySliced: work this long, then give the page its thread back
  });

  // Never copied (their text is not page content, or they are handled apart).
  const SKIP = new Set([
    "script", "style", "noscript", "template", "head", "title", "meta", "link", "base",
    "svg", "math", "canvas", "object", "embed", "audio", "video", "picture", "img", "map",
    "area", "datalist", "option", "optgroup", "progress", "meter", "output", "dialog",
  ]);
  const FIELDS = new Set(["input", "textarea", "select", "button"]);
  const FRAMES = new Set(["iframe", "frame"]);
  const ATTRS = ["class", "id", "role", "lang", "dir", "rel", "itemprop"];
  const CHROME_TAGS = new Set(["nav", "aside"]);
  const CHROME_ROLES = new Set(["banner", "navigation", "complementary", "contentinfo", "search"]);
  const SECTIONING = new Set(["article", "main", "section", "aside", "nav"]);
  const BLOCKISH = /^(block|flex|grid|list-item|table|flow-root)/;

  // Signals carry the category ids of policy.json (account, finance) with their own reason.
  /** @typedef {{category: string, why: string, signal: string}} Signal */
  const SIGN_IN = { category: "account", why: "looks like a sign-in page (it shows a password field)", signal: "password" };
  const PAYMENT = { category: "finance", why: "looks like a payment page (it shows card or bank fields)", signal: "payment" };
  const ONE_TIME = { category: "account", why: "looks like a verification page (it asks for a one-time code)", signal: "one-time-code" };
  const PAYMENT_AC = new Set(["cc-number", "cc-csc", "cc-exp", "cc-exp-month", "cc-exp-year"]);
  const PAYMENT_NAME = /(^|[^a-z])(card-?num(ber)?|cc-?num(ber)?|cardno|cvc2?|cvv2?|csc|card-?code|security-?code|iban)([^a-z]|$)/;
  const PAYMENT_FRAME = /(card|payment|cvc|cvv|security code|expir)/i;

  /**
   * @typedef {{
   *   styleOf?: (el: Element) => CSSStyleDeclaration|Record<string, string>|null,
   *   rectOf?: (el: Element) => {left: number, top: number, right: number, bottom: number, width: number, height: number}|null,
   *   now?: () => number,
   *   newDocument?: () => Document, // node tests: linkedom has no DOMImplementation
   *   limits?: Partial<typeof DEFAULTS>,
   * }} CopyOptions
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

  /** The field's own reason not to record the page, or null. @param {any} el @param {string} tag */
  function fieldSignal(el, tag) {
    const type = String(attr(el, "type") || "").toLowerCase();
    const ac = String(attr(el, "autocomplete") || "").toLowerCase().split(/\s+/);
    if (tag === "input" && type === "password") return SIGN_IN;
    if (ac.includes("current-password") || ac.includes("new-password")) return SIGN_IN;
    if (ac.includes("one-time-code")) return ONE_TIME;
    if (ac.some((t) => PAYMENT_AC.has(t))) return PAYMENT;
    if (tag === "input" && ["hidden", "submit", "button", "checkbox", "radio"].includes(type)) return null;
    const name = `${attr(el, "name") || ""} ${attr(el, "id") || ""}`.toLowerCase();
    return name.length < 200 && PAYMENT_NAME.test(name) ? PAYMENT : null;
  }

  /** @param {any} el */
  function editable(el) {
    const v = attr(el, "contenteditable");
    if (v === null) return null;
    return v.toLowerCase() !== "false"; // "", "true", "plaintext-only"
  }

  /** Default style and layout readers: the element's own window (frames have theirs). */
  function liveStyle(/** @type {any} */ el) {
    const view = el.ownerDocument && el.ownerDocument.defaultView;
    return view && typeof view.getComputedStyle === "function" ? view.getComputedStyle(el) : null;
  }
  function liveRect(/** @type {any} */ el) {
    return typeof el.getBoundingClientRect === "function" ? el.getBoundingClientRect() : null;
  }

  /** Give the page its thread back until its next task has run. */
  function yieldToPage() {
    const s = /** @type {any} */ (globalThis).scheduler;
    if (s && typeof s.yield === "function") return s.yield(); // no 4 ms clamp, input first
    return new Promise((resolve) => setTimeout(resolve, 0));
  }

  /**
   * Copy what is visible under `doc.body` into a new detached document, in one go (a
   * parsed page without layout: the history backfill, node tests).
   * @param {Document} doc @param {CopyOptions} [opts]
   */
  function copy(doc, opts = {}) {
    const w = walker(doc, opts);
    w.step(Infinity);
    return w.result();
  }

  /**
   * The same copy of a live page in slices of `sliceMs`, yielding to the page between
   * them, so that the tab never waits on the walk; `budgetMs` is wall-clock time, the
   * page's own time between slices included (a page that blocks its thread leaves less).
   * Nodes the page removed while we yielded are no longer shown: they are left out.
   * @param {Document} doc @param {CopyOptions & {yieldToPage?: () => Promise<unknown>}} [opts]
   */
  async function copySliced(doc, opts = {}) {
    const w = walker(doc, { ...opts, live: true });
    const pause = opts.yieldToPage || yieldToPage;
    while (!w.step(w.now() + w.limits.sliceMs)) await pause();
    return w.result();
  }

  /**
   * The walk as a machine that can stop between any two nodes: an explicit stack of
   * child lists instead of recursion (no stack overflow, and a slice can end anywhere).
   * @param {Document} doc @param {CopyOptions & {live?: boolean}} opts
   */
  function walker(doc, opts) {
    const L = { ...DEFAULTS, ...(opts.limits || {}) };
    const styleOf = opts.styleOf || liveStyle;
    const rectOf = opts.rectOf || liveRect;
    const now = opts.now || (() => Date.now());
    const started = now();
    const out = opts.newDocument ? opts.newDocument() : doc.implementation.createHTMLDocument("");
    const ctx = {
      nodes: 0, chars: 0, frames: 0, shadows: 0, hidden: 0, truncated: false, stop: false,
      /** @type {""|"nodes"|"chars"|"time"} */ stoppedBy: "",
      /** @type {Signal[]} */ signals: [],
      ignoredSignals: 0, slices: 0, longestSliceMs: 0, gone: 0,
    };
    /** @typedef {{visible: boolean, editable: boolean, chrome: boolean, sectioned: boolean}} State */
    /** @type {{kids: any[], i: number, dst: any, depth: number, st: State}[]} */
    const stack = [];

    // -- stage: what is rendered under a node --------------------------------------------

    /** Push the children a node renders (an open shadow root's, a slot's assigned nodes). */
    function pushChildren(/** @type {any} */ node, /** @type {any} */ dst, /** @type {number} */ depth, /** @type {State} */ st) {
      let kids = node.childNodes;
      if (node.nodeType === 1 && node.shadowRoot) {
        kids = node.shadowRoot.childNodes; // an open shadow root is what is rendered
        ctx.shadows++;
      } else if (tagOf(node) === "slot" && typeof node.assignedNodes === "function") {
        const assigned = node.assignedNodes({ flatten: true });
        if (assigned.length) kids = assigned;
      }
      // A snapshot: the live list shifts when the page changes between two slices.
      if (kids && kids.length) stack.push({ kids: Array.from(kids), i: 0, dst, depth, st });
    }

    // -- stage: is an element shown, and what does it pass on -------------------------------

    /** Is the element's box shown (for what the computed style cannot say)? @param {any} el @param {any} cs */
    function boxShown(el, cs) {
      const pos = String(cs.position || "");
      const clipsOverflow = cs.overflow !== undefined && cs.overflow !== "" && cs.overflow !== "visible";
      const clipPath = String(cs.clipPath || "");
      if (/^inset\(\s*(50|100)%/.test(clipPath)) return false;
      const transformed = cs.transform !== undefined && cs.transform !== "" && cs.transform !== "none";
      if (!clipsOverflow && pos !== "absolute" && pos !== "fixed" && !transformed) return true;
      const r = rectOf(el);
      if (!r) return true;
      if (clipsOverflow && (r.width <= 1 || r.height <= 1)) return false; // zero size, or sr-only
      const view = el.ownerDocument && el.ownerDocument.defaultView;
      const sx = (view && view.scrollX) || 0;
      const sy = (view && view.scrollY) || 0;
      return r.right + sx > 0 && r.bottom + sy > 0; // never scrollable into view otherwise
    }

    /**
     * The element's computed style and the state its children inherit, or null when
     * nothing under it is shown.
     * @param {any} node @param {string} tag @param {State} st
     * @returns {{cs: any, next: State}|null}
     */
    function judge(node, tag, st) {
      if (SKIP.has(tag)) return null;
      if (attr(node, "aria-hidden") === "true") return void ctx.hidden++, null;
      const cs = /** @type {any} */ (styleOf(node)) || {};
      if (cs.display === "none" || cs.opacity === "0" || !boxShown(node, cs)) return void ctx.hidden++, null;
      const visible = cs.visibility === undefined || cs.visibility === "" ? st.visible : cs.visibility === "visible";
      const ownEditable = editable(node);
      const next = {
        visible,
        editable: ownEditable === null ? st.editable : ownEditable,
        chrome:
          st.chrome ||
          CHROME_TAGS.has(tag) ||
          CHROME_ROLES.has(String(attr(node, "role") || "").toLowerCase()) ||
          ((tag === "header" || tag === "footer") && !st.sectioned),
        sectioned: st.sectioned || SECTIONING.has(tag),
      };
      return { cs, next };
    }

    // -- stage: fields and frames (signals, never content) ---------------------------------

    /** A form field: its own reason not to record the page, never its text. @param {any} node @param {string} tag @param {State} next */
    function noteField(node, tag, next) {
      const signal = next.visible ? fieldSignal(node, tag) : null;
      if (signal && next.chrome) ctx.ignoredSignals++;
      else if (signal && !ctx.signals.some((s) => s.signal === signal.signal)) ctx.signals.push(signal);
    }

    /** A same-origin frame's visible text, in a section of its own. @param {any} node @param {any} dst @param {number} depth @param {State} st */
    function frame(node, dst, depth, st) {
      let inner = null;
      try {
        inner = node.contentDocument; // null for another origin
      } catch {
        inner = null;
      }
      if (!inner || !inner.body) {
        const label = `${attr(node, "title") || ""} ${attr(node, "name") || ""}`;
        if (st.visible && !st.chrome && PAYMENT_FRAME.test(label) && !ctx.signals.some((s) => s.signal === "payment")) {
          ctx.signals.push(PAYMENT); // a card form in another origin's frame (Stripe and co.)
        }
        return;
      }
      if (++ctx.frames > L.maxFrames) return;
      const section = out.createElement("section");
      dst.appendChild(section);
      pushChildren(inner.body, section, depth, st);
    }

    // -- stage: copying text and elements ----------------------------------------------------

    /** @param {any} node @param {any} dst @param {State} st */
    function copyText(node, dst, st) {
      if (!st.visible || st.editable) return;
      let text = String(node.data ?? "");
      if (ctx.chars + text.length > L.maxChars) {
        text = text.slice(0, Math.max(0, L.maxChars - ctx.chars));
        halt("chars");
      }
      ctx.chars += text.length;
      if (text) dst.appendChild(out.createTextNode(text));
    }

    /** @param {string} tag @param {any} cs */
    function copyTag(tag, cs) {
      if (!tag.includes("-") && tag !== "slot") return tag;
      // Custom elements and slots: a block or an inline box, as rendered.
      return BLOCKISH.test(String(cs.display || "")) ? "div" : "span";
    }

    /** The element's copy: its tag and a few harmless attributes. @param {any} node @param {string} tag @param {any} cs @param {any} dst */
    function copyElement(node, tag, cs, dst) {
      const el = out.createElement(copyTag(tag, cs));
      for (const name of ATTRS) {
        const v = attr(node, name);
        if (v !== null && v.length < 500) el.setAttribute(name, v);
      }
      const href = tag === "a" ? attr(node, "href") : null;
      if (href && /^(https?:|#)/i.test(href)) el.setAttribute("href", href.slice(0, 2000));
      dst.appendChild(el);
      return el;
    }

    /** @param {"nodes"|"chars"|"time"} why */
    function halt(why) {
      ctx.truncated = true;
      ctx.stop = true;
      ctx.stoppedBy = ctx.stoppedBy || why;
    }

    /** One node: text copied, an element judged, copied and its children queued. @param {any} node @param {any} dst @param {number} depth @param {State} st */
    function visit(node, dst, depth, st) {
      if (++ctx.nodes > L.maxNodes) return halt("nodes");
      if (opts.live && node.isConnected === false) return void ctx.gone++; // removed while we yielded
      if (node.nodeType === 3 || node.nodeType === 4) return copyText(node, dst, st);
      if (node.nodeType !== 1 || depth > L.maxDepth) return;
      const tag = tagOf(node);
      const seen = judge(node, tag, st);
      if (!seen) return;
      const { cs, next } = seen;
      if (FIELDS.has(tag)) return noteField(node, tag, next); // a field's value or label text is never content
      if (FRAMES.has(tag)) return frame(node, dst, depth, next);
      if (next.editable) return; // a draft being typed is not something read
      if (cs.contentVisibility === "hidden") return;
      const el = copyElement(node, tag, cs, dst);
      if (tag === "details" && attr(node, "open") === null) {
        // Closed: only its summary shows.
        const summary = Array.from(node.children || []).find((c) => tagOf(c) === "summary");
        if (summary) stack.push({ kids: [summary], i: 0, dst: el, depth, st: next });
        return;
      }
      pushChildren(node, el, depth, next);
    }

    // -- the driver ----------------------------------------------------------------------------

    const root = doc.body || doc.documentElement;
    if (root) {
      const designMode = String(/** @type {any} */ (doc).designMode || "").toLowerCase() === "on";
      pushChildren(root, out.body, 0, { visible: true, editable: designMode, chrome: false, sectioned: false });
    }

    /** Walk until done (true) or `deadline` (false: call again). @param {number} deadline */
    function step(deadline) {
      const began = now();
      let n = 0;
      while (stack.length && !ctx.stop) {
        const f = stack[stack.length - 1];
        if (f.i >= f.kids.length) {
          stack.pop();
          continue;
        }
        visit(f.kids[f.i++], f.dst, f.depth + 1, f.st);
        if (++n % 16 !== 0) continue;
        const t = now();
        if (t - started > L.budgetMs) halt("time");
        else if (t >= deadline) break;
      }
      ctx.slices++;
      ctx.longestSliceMs = Math.max(ctx.longestSliceMs, now() - began);
      return ctx.stop || !stack.length;
    }

    function result() {
      return {
        doc: out,
        signals: ctx.signals,
        stats: {
          nodes: ctx.nodes,
          chars: ctx.chars,
          frames: ctx.frames,
          shadow_roots: ctx.shadows,
          hidden: ctx.hidden,
          ignored_signals: ctx.ignoredSignals,
          truncated: ctx.truncated,
          stopped_by: ctx.stoppedBy || null,
          removed_while_reading: ctx.gone,
          slices: ctx.slices,
          longest_slice_ms: ctx.longestSliceMs,
          took_ms: now() - started,
        },
      };
    }

    return { step, result, now, limits: L };
  }

  /**
   * What a page parsed from its HTML (no layout, no style sheets) says of its own
   * visibility: the `hidden` attribute and inline `display: none` / `visibility: hidden` /
   * `opacity: 0`. Text hidden by a style sheet's class cannot be seen here: the history
   * backfill, which uses this, reads public pages its site sends to anyone.
   * @param {any} el
   */
  function staticStyle(el) {
    if (typeof el.hasAttribute === "function" && el.hasAttribute("hidden")) return { display: "none" };
    const inline = String((typeof el.getAttribute === "function" && el.getAttribute("style")) || "");
    if (!inline) return null;
    const rule = (/** @type {string} */ prop) => {
      const m = new RegExp(`(?:^|;)\\s*${prop}\\s*:\\s*([^;!]+)`, "i").exec(inline);
      return m ? m[1].trim().toLowerCase() : undefined;
    };
    return { display: rule("display"), visibility: rule("visibility"), opacity: rule("opacity") };
  }

  /** @type {any} */ (globalThis).RewindVisible = Object.freeze({ copy, copySliced, yieldToPage, fieldSignal, staticStyle, DEFAULTS });
}
