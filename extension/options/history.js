/**
 * Options section "Your history": where it is kept, what each part takes, and the other
 * histories found on this computer (switch to one, confirmed).
 *
 * Job: show the data folder and its profile, the storage line (lib/kept.js), how this
 * browser came to its history, and the others with a "Use this history" button each.
 * Never: switch histories without a confirmation, or render a path as HTML.
 */

import { h } from "../lib/dom.js";
import { formatCount, relativeTime } from "../lib/format.js";
import { retentionLine, storageLine } from "../lib/kept.js";

/** @param {HTMLElement} _root @param {import("./page.js").Page} page */
export function mount(_root, page) {
  const { $ } = page;

  /** @param {any} r the worker's `profiles` answer */
  function renderProfiles(r) {
    const here = r.data_dir ?? r.forced_data_dir;
    $("data-dir").replaceChildren(
      document.createTextNode("Data folder in use: "),
      h("code", { text: String(here ?? "unknown") }),
      r.current ? document.createTextNode(` (profile ${r.current})`) : null,
    );
    const o = r.origin;
    $("profile-origin").textContent =
      o?.how === "adopted"
        ? `This browser found the history Rewind already had (${formatCount(Number(o.pages ?? 0))} pages) and goes on with it.`
        : "";
    const others = (r.profiles ?? []).filter((/** @type {any} */ p) => p.profile !== r.current);
    $("profiles").replaceChildren(
      ...others.map((/** @type {any} */ p) =>
        h("li", null,
          h("span", {
            text: `${p.profile}: ${p.pages === null ? `cannot be read (${p.problem})` : `${formatCount(p.pages)} pages`}` +
              (p.last_indexed ? `, last added ${relativeTime(p.last_indexed)}` : ""),
            title: p.data_dir,
          }),
          h("button", {
            type: "button", class: "small secondary", text: "Use this history", disabled: p.pages === null,
            on: {
              click: async () => {
                if (!window.confirm(`Switch to the history ${p.profile}? The current one stays on disk.`)) return;
                try {
                  renderProfiles(await page.call("use_profile", { profile: p.profile }));
                  page.msg("data-msg", `Now using ${p.profile}.`);
                } catch (err) {
                  page.msg("data-msg", page.errText(err), true);
                }
              },
            },
          })),
      ),
    );
  }

  page.onLoad((status) => {
    if (!page.connected) return;
    page.call("profiles").then(renderProfiles, (err) => page.msg("data-msg", page.errText(err), true));
    const stats = status.stats;
    if (stats?.storage) {
      $("storage").textContent = `${storageLine(stats)} ${retentionLine(stats)} (Retention, under “Search and answers”).`;
    }
  });
}
