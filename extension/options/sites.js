/**
 * Options section "Sites": the sites paused, and those always recorded.
 *
 * Job: list both (each with a button to take it off), and pause a site typed in.
 * Never: render a site as HTML.
 */

import { h } from "../lib/dom.js";
import { domainFilter } from "../lib/format.js";

/** @param {HTMLElement} _root @param {import("./page.js").Page} page */
export function mount(_root, page) {
  const { $ } = page;

  /** @param {string[]} list @param {string} listId @param {"pausedSites"|"alwaysRecord"} key @param {string} verb */
  function siteList(list, listId, key, verb) {
    $(listId).replaceChildren(
      ...(list.length
        ? list.map((site) =>
            h("li", null,
              h("span", { text: site }),
              h("button", {
                type: "button", class: "small secondary", text: verb, "aria-label": `${verb}: ${site}`,
                on: { click: () => page.saveLocal({ [key]: list.filter((d) => d !== site) }, "sites-msg") },
              })),
          )
        : [h("li", { class: "muted", text: "None." })]),
    );
  }

  page.onLocal((s) => {
    siteList(s.pausedSites, "paused-sites", "pausedSites", "Resume");
    siteList(s.alwaysRecord, "always-sites", "alwaysRecord", "Stop");
  });
  $("add-site").addEventListener("click", () => {
    const site = domainFilter($("new-site").value);
    if (!site) {
      page.msg("sites-msg", "Type a site like example.com.", true);
      return;
    }
    $("new-site").value = "";
    page.call("pause_site", { site }).then(
      (r) => {
        page.setLocal(r.settings);
        page.msg("sites-msg", `Paused on ${site}.`);
      },
      (err) => page.msg("sites-msg", page.errText(err), true),
    );
  });
}
