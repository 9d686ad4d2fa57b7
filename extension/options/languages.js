/**
 * The options page's offer of the multilingual model (lib/language-offer.js), in the
 * "Search model" section: shown when the host's stats say a meaningful share of the pages
 * is not in English and the multilingual model is installed but not in use.
 *
 * Job: read `stats.languages`, draw the offer, start the re-embedding only on the person's
 * click (`reindex` start), remember "Not now" (chrome.storage.local) until the languages
 * change. `mount(el, onStarted)` wires it; `onStarted` refreshes the model section.
 * Never: render host text as HTML, or switch models without the click.
 */

import { call, inExtension } from "../lib/client.js";
import { languageOffer } from "../lib/language-offer.js";

const DISMISSED = "languageOfferDismissed";

/** @param {HTMLElement} el @param {() => void} [onStarted] */
export async function mount(el, onStarted = () => {}) {
  const reply = await call("stats", {}).catch(() => null);
  const stats = reply?.stats ?? reply;
  let dismissed = "";
  if (inExtension()) dismissed = String((await chrome.storage.local.get(DISMISSED))[DISMISSED] ?? "");
  const card = languageOffer(stats?.languages, {
    job: stats?.reembed, dismissed,
    start: async (model, dim) => {
      await call("reindex", { job: "start", model, dim }).catch(() => null);
      el.replaceChildren();
      onStarted();
    },
    dismiss: async (key) => {
      if (inExtension()) await chrome.storage.local.set({ [DISMISSED]: key });
      el.replaceChildren();
    },
  });
  el.replaceChildren(...(card ? [card] : []));
}
