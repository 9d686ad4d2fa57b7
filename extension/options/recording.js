/**
 * Options section "Recording": when a page counts as read, pausing Rewind, masking
 * personal data.
 *
 * Job: show and save the extension's `dwellSeconds`, `paused` and `redact`.
 * Never: save a dwell time outside 1-600 seconds.
 */

/** @param {HTMLElement} _root @param {import("./page.js").Page} page */
export function mount(_root, page) {
  const { $ } = page;
  page.onLocal((s) => {
    $("dwell").value = String(s.dwellSeconds);
    $("paused").checked = s.paused;
    $("redact").checked = s.redact;
  });
  $("save-recording").addEventListener("click", () => {
    const dwell = Number($("dwell").value);
    if (!Number.isFinite(dwell) || dwell < 1 || dwell > 600) {
      page.msg("rec-msg", "Choose between 1 and 600 seconds.", true);
      return;
    }
    page.saveLocal({ dwellSeconds: dwell, paused: $("paused").checked, redact: $("redact").checked }, "rec-msg");
  });
}
