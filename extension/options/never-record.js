/**
 * Options section "Never record": the built-in kinds of pages (each with a switch) and the
 * person's own exclusion rules.
 *
 * Job: draw lib/policy.js's categories with a switch each (saved at once), and save the
 * rules typed one per line.
 * Never: record anything while the category list cannot be loaded (say so instead).
 */

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
    const off = new Set(page.settings.disabledCategories);
    $("categories").replaceChildren(
      ...policy.categories.map((c) =>
        h("li", null,
          h("label", { class: "check" },
            h("input", {
              type: "checkbox", checked: !off.has(c.id), "data-category": c.id,
              on: {
                change: (/** @type {Event} */ ev) => {
                  const on = /** @type {HTMLInputElement} */ (ev.target).checked;
                  const next = new Set(page.settings.disabledCategories);
                  if (on) next.delete(c.id);
                  else next.add(c.id);
                  page.saveLocal({ disabledCategories: [...next] }, "block-msg");
                },
              },
            }),
            h("span", { text: c.label }),
            h("span", { class: "why", text: ` — ${c.why}` }))),
      ),
    );
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
