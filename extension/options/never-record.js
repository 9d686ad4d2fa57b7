/**
 * Options section "Never record": the built-in kinds of pages (each with a switch) and the
 * person's own exclusion rules.
 *
 * Job: draw lib/policy.js's categories with a switch each (lib/categories.js, as on the welcome page) (saved at once), and save the
 * rules typed one per line.
 * Never: record anything while the category list cannot be loaded (say so instead).
 */

import { categoryItems, toggled } from "../lib/categories.js";
import { h } from "../lib/dom.js";
import { loadPolicy } from "../lib/load_policy.js";

/** @param {HTMLElement} _root @param {import("./page.js").Page} page */
export function mount(_root, page) {
  const { $ } = page;

  async function renderCategories() {
    const policy = await loadPolicy();
    if (!policy) {
      $("categories").replaceChildren(h("li", { class: "bad", text: "The list could not be loaded: nothing is recorded until it is." }));
      return;
    }
    $("categories").replaceChildren(...categoryItems(policy, page.settings.disabledCategories, (id, on) =>
      page.saveLocal({ disabledCategories: toggled(page.settings.disabledCategories, id, on) }, "block-msg")));
  }

  page.onLocal((s) => {
    $("blocklist").value = s.blocklist.join("\n");
    renderCategories();
  });
  $("save-blocklist").addEventListener("click", () => {
    const lines = String($("blocklist").value)
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    page.saveLocal({ blocklist: lines }, "block-msg");
  });
}
