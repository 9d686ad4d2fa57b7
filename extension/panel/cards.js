/**
 * A page as a result card, and opening a page from the side panel.
 *
 * Job: the card a search hit (or a "couldn't find" answer's closest page) is shown as —
 * title linking to the page at its passage, address, snippet with highlights, when it
 * was visited, a confidence badge, and (for search results) a "Forget" button — and
 * `openUrl`, which opens a page in a new tab so the panel stays. The title link and the
 * Forget button are siblings in a plain list item, each reached by Tab (no control inside
 * another: a screen reader reaches both); a click anywhere else on the card opens the page.
 * Never: render page text or titles as HTML (lib/dom.js builds every element).
 */

import { inExtension } from "../lib/client.js";
import { h, highlighted } from "../lib/dom.js";
import { forgetButton } from "../lib/forget.js";
import { displayUrl, textFragmentUrl, visitLine } from "../lib/format.js";

/** Open a page in a new tab (the side panel stays). @param {string} url */
export function openUrl(url) {
  if (inExtension()) chrome.tabs.create({ url, active: true });
  else window.open(url, "_blank", "noopener");
}

/** The page a hit opens: at its passage (a text fragment). @param {any} hit */
export function hitUrl(hit) {
  return textFragmentUrl(String(hit.url ?? ""), String(hit.passage || hit.snippet || ""));
}

/** The id of a card's title link (the search box's aria-activedescendant). @param {string} id */
export function linkId(id) {
  return `${id}-link`;
}

/**
 * @param {any} hit a search result (PROTOCOL.md, search) or a closest page
 * @param {{id?: string, current?: boolean, showScore?: boolean,
 *   onOpen?: (url: string) => void,
 *   onForget?: (outcome: {ok: boolean, removed?: number, error?: any}) => void}} [opts]
 *   `current`: the result the search box's arrow keys are on (Enter there opens it)
 */
export function resultCard(hit, opts = {}) {
  const url = hitUrl(hit);
  const conf = ["high", "medium", "low"].includes(hit.confidence) ? hit.confidence : null;
  const title = String(hit.title || "").trim() || displayUrl(String(hit.url ?? ""));
  return h(
    "li",
    {
      id: opts.id,
      class: "result",
      "aria-current": opts.current ? "true" : null,
      on: {
        click: (/** @type {MouseEvent} */ ev) => {
          ev.preventDefault();
          (opts.onOpen ?? openUrl)(url);
        },
      },
    },
    h(
      "div",
      { class: "result-head" },
      h("a", { class: "title", id: opts.id ? linkId(opts.id) : null, href: url, text: title }),
      conf ? h("span", { class: `badge ${conf}`, title: `${conf} confidence`, text: conf }) : null,
      opts.showScore && Number.isFinite(hit.score)
        ? h("span", { class: "score muted", text: Number(hit.score).toFixed(3) })
        : null,
    ),
    h("div", { class: "url muted", text: displayUrl(String(hit.url ?? "")) }),
    hit.snippet ? h("p", { class: "snippet" }, highlighted(String(hit.snippet), hit.highlights)) : null,
    h(
      "div",
      { class: "meta-row" },
      h("span", { class: "meta muted", text: visitLine(hit) }),
      opts.onForget ? forgetButton(String(hit.url ?? ""), opts.onForget) : null,
    ),
  );
}
