/**
 * Building the extension's pages safely.
 *
 * Job: `h(tag, props, ...children)` creates elements whose text goes in
 * through text nodes only, and `highlighted(text, ranges)` renders a snippet
 * with <mark> elements.
 * Never: assign innerHTML / outerHTML / insertAdjacentHTML, set `on*`
 * attributes or `javascript:` links from data: page text and titles are
 * hostile input and stay text.
 */

import { highlightSegments } from "./format.js";

/**
 * @param {string} tag
 * @param {Record<string, any>|null} [props] attributes; `class`, `text`, `on` ({event: fn}), `dataset`
 * @param {...(Node|string|number|null|undefined|false)} children
 * @returns {HTMLElement}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") el.textContent = String(v);
    else if (k === "class") el.className = String(v);
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "href") el.setAttribute("href", safeHref(String(v)));
    else if (/^on/i.test(k)) throw new Error(`event attributes are not allowed: ${k}`);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return el;
}

/** Only web and extension URLs become links. @param {string} url */
export function safeHref(url) {
  try {
    const u = new URL(url, location.href);
    return ["http:", "https:", "chrome-extension:"].includes(u.protocol) ? u.href : "#";
  } catch {
    return "#";
  }
}

/**
 * A snippet as text nodes and <mark> elements.
 * @param {string} text @param {unknown} ranges @returns {DocumentFragment}
 */
export function highlighted(text, ranges) {
  const frag = document.createDocumentFragment();
  for (const seg of highlightSegments(text, ranges)) {
    if (seg.mark) {
      const m = document.createElement("mark");
      m.textContent = seg.text;
      frag.append(m);
    } else {
      frag.append(document.createTextNode(seg.text));
    }
  }
  return frag;
}

/** Replace an element's children. @param {Element} el @param {...(Node|string)} nodes */
export function replace(el, ...nodes) {
  el.replaceChildren(...nodes);
}
