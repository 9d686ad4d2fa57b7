/**
 * Opening the options page at one of its sections, from a page that is not a tab (the
 * popup): options.html#records, #search, #models, #data, #ai-tools (options/nav.js).
 *
 * Job: `openOptions(section)` brings the options tab that is already open to the front at
 * that section (as chrome.runtime.openOptionsPage would, which cannot name a section), or
 * opens one; `optionsSection(href)` reads the section out of a link's href.
 * Never: open a second options tab beside an open one, or a page that is not the
 * extension's options page.
 */

const PAGE = "options.html";

/** The section a link names: "options.html#models" -> "models". @param {string|null} href */
export function optionsSection(href) {
  const m = /^(?:.*\/)?options\.html#([\w-]+)$/.exec(String(href ?? ""));
  return m ? m[1] : "";
}

/**
 * @param {string} [section] a pane's name, or any id in the options page
 * @param {any} [api] chrome (tests give their own)
 */
export async function openOptions(section = "", api = globalThis.chrome) {
  const base = api.runtime.getURL(PAGE);
  const url = section ? `${base}#${encodeURIComponent(section)}` : base;
  /** @type {any[]} */
  const open = api.runtime.getContexts
    ? await api.runtime.getContexts({ contextTypes: ["TAB"] }).catch(() => [])
    : [];
  const tab = open.find((c) => String(c.documentUrl ?? "").split(/[#?]/)[0] === base && c.tabId >= 0);
  if (!tab) {
    await api.tabs.create({ url });
    return;
  }
  await api.tabs.update(tab.tabId, { url, active: true });
  if (tab.windowId >= 0) await api.windows.update(tab.windowId, { focused: true }).catch(() => {});
}
