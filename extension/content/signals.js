/**
 * What a page says about itself beyond its text: the signals the host's content check reads
 * to tell a signed-in personal screen from an article (host/rewind/capture/page_signals.py).
 *
 * Job: `collect(doc)` reads, from the live document, the page's declared language, the app
 * names it declares (application-name, apple-mobile-web-app-title, og:site_name, generator),
 * whether it links a web app manifest, the labels of its controls (links, buttons, menu
 * items: their text, aria-label, title and image alt — "Abmelden", "Mon compte", "Hallo,
 * Anna" — and "href:<word>" for a link's last path segment, since a sign-out link is often
 * only an address), short texts of its header and navigation, and how many places one can
 * type in (a message composer). Hidden controls count too: an account menu's "Sign out"
 * sits in a closed dropdown. The host decides what they mean, in any language.
 * Never: mutate the page, follow a link, read a field's value, or do unbounded work (the
 * elements looked at, the labels kept and their lengths are capped).
 *
 * Classic script and ES module at once, like chunker.js: defines `RewindSignals`.
 */
{
  const LIMITS = Object.freeze({ elements: 3000, controls: 200, chars: 100, label: 60, apps: 6, editors: 1000 });
  const APP_META = [
    'meta[name="application-name"]', 'meta[name="apple-mobile-web-app-title"]',
    'meta[property="og:site_name"]', 'meta[name="generator"]',
  ];
  const CONTROLS = 'a, button, summary, [role="button"], [role="menuitem"], [role="link"], [role="tab"], input[type="submit"], input[type="button"]';
  const CHROME = 'header, nav, [role="banner"], [role="navigation"]';
  const EDITORS = 'textarea, [contenteditable=""], [contenteditable="true"], [contenteditable="plaintext-only"], [role="textbox"]';
  const SEGMENT = /^[a-z][a-z0-9_-]{1,30}$/i;
  const WORD = /^[a-z][a-z_-]{1,19}$/i; // a query value that is a word, not a token

  /** @param {any} el @param {string} name */
  function attr(el, name) {
    try {
      return typeof el.getAttribute === "function" ? el.getAttribute(name) : null;
    } catch {
      return null;
    }
  }

  /** A link's last path segment and its short word-like query values ("logout", "action=logout"). @param {string} href */
  function hrefWords(href) {
    let url;
    try {
      url = new URL(href, "https://page.invalid/");
    } catch {
      return [];
    }
    const out = [];
    const last = url.pathname.split("/").filter(Boolean).pop() || "";
    const seg = last.replace(/\.(php|html?|aspx?|jsp)$/i, "");
    if (SEGMENT.test(seg)) out.push(seg.toLowerCase());
    for (const value of url.searchParams.values()) if (WORD.test(value)) out.push(value.toLowerCase());
    return out.slice(0, 3);
  }

  /**
   * @typedef {{lang: string, app: string[], manifest: boolean, controls: string[], editors: number}} PageSignals
   * @typedef {{doc: Document, controls: string[], seen: Set<string>, app: string[], editors: number}} Reading
   */

  /** @param {Reading} r @param {unknown} raw @param {number} [max] */
  function add(r, raw, max = LIMITS.label) {
    const s = String(raw ?? "").replace(/\s+/g, " ").trim();
    if (!s || s.length > max || r.seen.has(s) || r.controls.length >= LIMITS.controls) return;
    r.seen.add(s);
    r.controls.push(s.slice(0, LIMITS.chars));
  }

  /** Stage: the app names the page declares. @param {Reading} r */
  function appNames(r) {
    for (const sel of APP_META) {
      const v = String(attr(r.doc.querySelector(sel), "content") || "").trim();
      if (v && !r.app.includes(v.slice(0, LIMITS.chars))) r.app.push(v.slice(0, LIMITS.chars));
    }
  }

  /** Stage: the labels of links, buttons and menu items. @param {Reading} r */
  function controlLabels(r) {
    let looked = 0;
    for (const el of Array.from(r.doc.querySelectorAll(CONTROLS))) {
      if (++looked > LIMITS.elements || r.controls.length >= LIMITS.controls) break;
      add(r, el.textContent);
      add(r, attr(el, "aria-label"));
      add(r, attr(el, "title"));
      add(r, attr(el, "value"));
      const img = typeof el.querySelector === "function" ? el.querySelector("img[alt]") : null;
      if (img) add(r, attr(img, "alt"));
      const href = String(el.localName || el.nodeName || "").toLowerCase() === "a" ? attr(el, "href") : null;
      if (href && href.length < 2000) for (const w of hrefWords(href)) add(r, `href:${w}`);
    }
  }

  /** Stage: short texts of the page's own header and navigation ("Hallo, Anna", "Kontostand"). @param {Reading} r */
  function chromeTexts(r) {
    for (const box of Array.from(r.doc.querySelectorAll(CHROME)).slice(0, 20)) {
      for (const el of Array.from(box.querySelectorAll("*")).slice(0, 300)) {
        if (r.controls.length >= LIMITS.controls) break;
        if (el.children && el.children.length === 0) add(r, el.textContent, 40);
      }
    }
  }

  /** Stage: how many places one can type in. @param {Reading} r */
  function editorCount(r) {
    r.editors = Math.min(LIMITS.editors, r.doc.querySelectorAll(EDITORS).length);
  }

  const STAGES = [appNames, controlLabels, chromeTexts, editorCount];

  /** @param {Document} doc @returns {Reading} */
  function reading(doc) {
    return { doc, controls: [], seen: new Set(), app: [], editors: 0 };
  }

  /** @param {Reading} r @returns {PageSignals} */
  function done(r) {
    return {
      lang: String(attr(r.doc.documentElement, "lang") || "").slice(0, 16),
      app: r.app.slice(0, LIMITS.apps),
      manifest: Boolean(r.doc.querySelector('link[rel~="manifest"]')),
      controls: r.controls,
      editors: r.editors,
    };
  }

  /** @param {Document} doc @returns {PageSignals} */
  function collect(doc) {
    const r = reading(doc);
    for (const stage of STAGES) stage(r);
    return done(r);
  }

  /**
   * The same, giving the page its thread back between stages (each is one query over the
   * whole document: tens of milliseconds on a page of 200,000 nodes).
   * @param {Document} doc @param {() => Promise<unknown>} pause @returns {Promise<PageSignals>}
   */
  async function collectSliced(doc, pause) {
    const r = reading(doc);
    for (const stage of STAGES) {
      stage(r);
      await pause();
    }
    return done(r);
  }

  /** @type {any} */ (globalThis).RewindSignals = Object.freeze({ collect, collectSliced, hrefWords, LIMITS });
}
