/**
 * The pages Rewind held because they looked private, as a list a person answers: the popup
 * and the options page show the same one.
 *
 * Job: `heldView(list, onDecide)` builds "Rewind held 2 pages that looked private — keep /
 * don't keep", then each page's title, site, why and when it will be wiped, with Keep and
 * Don't keep buttons (`onDecide(page, keep)`); `heldHeadline(n)` is the headline alone.
 * Never: render a title or site as HTML (page text is hostile: textContent only, lib/dom.js),
 * or decide anything itself.
 */

import { h } from "./dom.js";

/** @param {number} n */
export function heldHeadline(n) {
  return `Rewind held ${n} ${n === 1 ? "page" : "pages"} that looked private — keep / don't keep`;
}

/** "in 23 h", "in 40 min" @param {number} expiresAt epoch s @param {number} nowMs */
export function wipedIn(expiresAt, nowMs = Date.now()) {
  const s = Math.max(0, expiresAt - nowMs / 1000);
  return s >= 3600 ? `in ${Math.floor(s / 3600)} h` : `in ${Math.max(1, Math.ceil(s / 60))} min`;
}

/**
 * @typedef {{id: string, url: string, site: string, title: string, category: string,
 *   label: string, why: string, expires_at: number}} HeldPage
 * @param {HeldPage[]} list @param {(page: HeldPage, keep: boolean) => void} onDecide
 * @param {number} [nowMs]
 * @returns {HTMLElement|null}
 */
export function heldView(list, onDecide, nowMs = Date.now()) {
  if (!Array.isArray(list) || !list.length) return null;
  return h("section", { class: "held", "aria-label": "Pages held for your decision" },
    h("p", { class: "held-headline", role: "status", text: heldHeadline(list.length) }),
    h("ul", { class: "held-list" }, ...list.map((p) =>
      h("li", { class: "held-page", dataset: { held: p.id } },
        h("strong", { class: "held-title", text: p.title || p.url }),
        h("span", { class: "muted small held-site", text: ` · ${p.site}` }),
        h("p", { class: "small held-why", text: `It ${String(p.why || "looked private")} (${p.label || p.category}). Not kept, it is wiped ${wipedIn(p.expires_at, nowMs)}.` }),
        h("p", { class: "small muted held-rule", text: `Don't keep also stops recording ${p.site} (Never record, in the options).` }),
        h("div", { class: "row-actions" },
          h("button", { type: "button", class: "held-keep", text: "Keep", on: { click: () => onDecide(p, true) } }),
          h("button", { type: "button", class: "secondary held-drop", text: "Don't keep", on: { click: () => onDecide(p, false) } }),
        ),
      ))),
  );
}
