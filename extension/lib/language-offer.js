/**
 * The offer of the multilingual model, where people look (popup and options): "42 % of
 * your pages are in German or French: search them by meaning too with the multilingual
 * model", what switching costs, and two buttons.
 *
 * Job: turn the host's `stats.languages.offer` into elements; "Use it" calls
 * `start(model, dim)` (a `reindex` start: the re-embedding job), "Not now" calls
 * `dismiss(key)` so the same offer is not shown again until the languages change.
 * Never: render host text as HTML (lib/dom.js builds text nodes), or start a job without
 * the person's click.
 */

import { h } from "./dom.js";

/** The offer's identity: its languages (a new language makes a new offer). @param {any} offer */
export function offerKey(offer) {
  return Array.isArray(offer?.languages) ? offer.languages.map(String).join(",") : "";
}

/**
 * The offer's card, or null when there is none, it was dismissed, or a job is running.
 * @param {any} languages stats.languages
 * @param {{job?: any, dismissed?: string, start: (model: string, dim: number) => void,
 *          dismiss: (key: string) => void}} opts
 * @returns {HTMLElement|null}
 */
export function languageOffer(languages, opts) {
  const offer = languages?.offer;
  if (!offer || typeof offer !== "object" || !offer.model) return null;
  if (opts.job) return null; // one job at a time: the offer comes back when it ends
  const key = offerKey(offer);
  if (opts.dismissed && opts.dismissed === key) return null;
  return h("div", { class: "language-offer", id: "language-offer-card", role: "note" },
    h("p", { class: "language-offer-text", text: String(offer.text ?? "") }),
    offer.cost ? h("p", { class: "help", text: String(offer.cost) }) : null,
    h("div", { class: "row-actions" },
      h("button", {
        type: "button", id: "language-offer-use", text: "Use the multilingual model",
        on: { click: () => opts.start(String(offer.model), Number(offer.dim)) },
      }),
      h("button", {
        type: "button", class: "secondary", id: "language-offer-dismiss", text: "Not now",
        on: { click: () => opts.dismiss(key) },
      })));
}
