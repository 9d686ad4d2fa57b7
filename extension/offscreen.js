/**
 * The history backfill's reader: a page's HTML, as its site sent it, into passages.
 *
 * Job: answer the worker's `{target: "offscreen", action: "extract", html, url, limits,
 * redact}` with what a tab's extraction returns (content/extract.js `runOn`): the same
 * visible copy (hidden text, form fields and drafts left out; a password, card or
 * one-time-code field refuses the page), Readability or the fallback, the chunker and the
 * masking of personal data. The HTML is parsed with DOMParser: nothing in it runs or
 * loads (no scripts, no images, no style sheets), and it never enters this page's DOM.
 * Never: fetch anything, keep anything between two messages, or answer anyone but the
 * extension's own worker.
 */

/** @param {any} msg */
function extract(msg) {
  const g = /** @type {any} */ (globalThis);
  const doc = new DOMParser().parseFromString(String(msg.html ?? ""), "text/html");
  return g.RewindExtract.runOn(doc, String(msg.url), {
    limits: msg.limits,
    redact: msg.redact !== false,
    honourSignals: true,
    styleOf: g.RewindVisible.staticStyle,
  });
}

chrome.runtime.onMessage.addListener((msg, sender, respond) => {
  if (!msg || msg.target !== "offscreen" || sender.id !== chrome.runtime.id) return false;
  try {
    respond({ ok: true, result: extract(msg) });
  } catch (err) {
    respond({ ok: false, error: String(/** @type {any} */ (err)?.message ?? err).slice(0, 300) });
  }
  return false;
});
