/**
 * Search from the address bar: type `rw`, a space, then words.
 *
 * Job: as the person types, ask the helper (the same `search` the side panel runs) and
 * offer the pages found as suggestions, title and address; Enter on a suggestion opens
 * that page, Enter on the words themselves opens the side panel's page searching them.
 * Never: put a page's title or address into a suggestion unescaped (Chrome reads the
 * description as XML: a title is hostile text), or search while the helper is away
 * (the suggestion then says what is wrong).
 */

import { displayUrl } from "../lib/format.js";

const MAX_SUGGESTIONS = 6; // what Chrome shows under the address bar
const DEBOUNCE_MS = 150;

/** Text as XML character data for an omnibox description. @param {string} s */
export function escapeXml(s) {
  return String(s)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/**
 * Suggestions for `text`: one per page found.
 * @param {{request: (type: string, fields: object) => Promise<any>}} native
 * @param {string} text
 * @returns {Promise<{content: string, description: string}[]>}
 */
export async function suggestions(native, text) {
  const query = text.trim().slice(0, 2000);
  if (!query) return [];
  const r = await native.request("search", { query, limit: MAX_SUGGESTIONS });
  const seen = new Set();
  const out = [];
  for (const hit of r.results ?? []) {
    const url = String(hit.url ?? "");
    if (!/^https?:\/\//.test(url) || seen.has(url) || url === query) continue;
    seen.add(url);
    const title = String(hit.title || "").trim() || displayUrl(url);
    const read = hit.read === false ? " · visited, not read" : "";
    out.push({
      content: url,
      description: `<match>${escapeXml(title.slice(0, 200))}</match> <dim>${escapeXml(displayUrl(url))}${read}</dim>`,
    });
  }
  return out;
}

/**
 * Where Enter goes: a suggested page, or the side panel's page searching the words.
 * @param {string} text @param {string} panelUrl the extension's sidepanel.html
 */
export function destination(text, panelUrl) {
  const t = text.trim();
  if (/^https?:\/\/\S+$/.test(t)) return t;
  return `${panelUrl}?q=${encodeURIComponent(t.slice(0, 2000))}`;
}

/**
 * Register the address-bar listeners.
 * @param {import("./native.js").NativeClient} native
 * @param {(name: string, fn: (...args: any[]) => any) => (...args: any[]) => any} guard
 */
export function registerOmnibox(native, guard) {
  if (!chrome.omnibox) return;
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  chrome.omnibox.setDefaultSuggestion({ description: "Search what you've read with Rewind" });
  chrome.omnibox.onInputChanged.addListener(
    guard("omnibox.onInputChanged", (text, suggest) => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        try {
          suggest(await suggestions(native, text));
        } catch (err) {
          const why = /** @type {any} */ (err)?.message ?? "Rewind's helper is not connected";
          chrome.omnibox.setDefaultSuggestion({ description: escapeXml(`Rewind: ${why}`) });
        }
      }, DEBOUNCE_MS);
    }),
  );
  chrome.omnibox.onInputStarted.addListener(
    guard("omnibox.onInputStarted", () =>
      chrome.omnibox.setDefaultSuggestion({ description: "Search what you've read with Rewind" })),
  );
  chrome.omnibox.onInputEntered.addListener(
    guard("omnibox.onInputEntered", async (text, disposition) => {
      const url = destination(text, chrome.runtime.getURL("sidepanel.html"));
      if (disposition === "currentTab") await chrome.tabs.update({ url });
      else await chrome.tabs.create({ url, active: disposition === "newForegroundTab" });
    }),
  );
}
