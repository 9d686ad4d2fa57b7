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
   * @param {Document} doc
   * @returns {{lang: string, app: string[], manifest: boolean, controls: string[], editors: number}}
   */
  function collect(doc) {
    const controls = [];
    const seen = new Set();
    /** @param {unknown} raw @param {number} max */
    const add = (raw, max = LIMITS.label) => {
      const s = String(raw ?? "").replace(/\s+/g, " ").trim();
      if (!s || s.length > max || seen.has(s) || controls.length >= LIMITS.controls) return;
      seen.add(s);
      controls.push(s.slice(0, LIMITS.chars));
    };
    const app = [];
    for (const sel of APP_META) {
      const v = String(attr(doc.querySelector(sel), "content") || "").trim();
      if (v && !app.includes(v.slice(0, LIMITS.chars))) app.push(v.slice(0, LIMITS.chars));
    }
    let looked = 0;
    for (const el of Array.from(doc.querySelectorAll(CONTROLS))) {
      if (++looked > LIMITS.elements || controls.length >= LIMITS.controls) break;
      add(el.textContent);
      add(attr(el, "aria-label"));
      add(attr(el, "title"));
      add(attr(el, "value"));
      const img = typeof el.querySelector === "function" ? el.querySelector("img[alt]") : null;
      if (img) add(attr(img, "alt"));
      const href = String(el.localName || el.nodeName || "").toLowerCase() === "a" ? attr(el, "href") : null;
      if (href && href.length < 2000) for (const w of hrefWords(href)) add(`href:${w}`);
    }
    // Short texts of the page's own header and navigation: "Hallo, Anna", "Kontostand".
    for (const box of Array.from(doc.querySelectorAll(CHROME)).slice(0, 20)) {
      for (const el of Array.from(box.querySelectorAll("*")).slice(0, 300)) {
        if (controls.length >= LIMITS.controls) break;
        if (el.children && el.children.length === 0) add(el.textContent, 40);
      }
    }
    const editors = Math.min(LIMITS.editors, doc.querySelectorAll(EDITORS).length);
    return {
      lang: String(attr(doc.documentElement, "lang") || "").slice(0, 16),
      app: app.slice(0, LIMITS.apps),
      manifest: Boolean(doc.querySelector('link[rel~="manifest"]')),
      controls,
      editors,
    };
  }

  /** @type {any} */ (globalThis).RewindSignals = Object.freeze({ collect, hrefWords, LIMITS });
}
