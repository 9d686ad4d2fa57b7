/**
 * The tab the person is looking at, for whoever in the worker asks about it.
 *
 * Job: `frontTab()`, the active tab of the last focused window (the side panel's window:
 * the panel itself is not a tab), for the popup's page status (handlers/status.js) and an
 * ask with the current tab (ports.js).
 * Never: read a tab's content here (extractor.js does, when the rules allow it).
 */

/** The tab the person is looking at (the side panel's window is the last focused). */
export async function frontTab() {
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  return tab ?? null;
}
