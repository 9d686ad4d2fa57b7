/**
 * The built-in kinds of pages never recorded (the policy's categories), as switches: the
 * options page and the welcome page show the same list.
 *
 * Job: one list item per category — its label, why such pages are left out, and a
 * checkbox that is ticked while the category is on; `toggled(disabled, id, on)` is the
 * person's new list of switched-off categories.
 * Never: save anything itself (the page saves through the worker), or show a category as
 * off when the policy could not be read (the caller says nothing is recorded then).
 */

import { h } from "./dom.js";

/**
 * @param {{categories: {id: string, label: string, why: string}[]}} policy
 * @param {string[]} disabled @param {(id: string, on: boolean) => void} onToggle
 * @returns {HTMLElement[]}
 */
export function categoryItems(policy, disabled, onToggle) {
  const off = new Set(disabled);
  return policy.categories.map((c) =>
    h("li", null,
      h("label", { class: "check" },
        h("input", {
          type: "checkbox", checked: !off.has(c.id), "data-category": c.id,
          on: { change: (/** @type {Event} */ ev) => onToggle(c.id, /** @type {HTMLInputElement} */ (ev.target).checked) },
        }),
        h("span", { text: c.label }),
        h("span", { class: "why", text: ` — ${c.why}` }))));
}

/** @param {string[]} disabled @param {string} id @param {boolean} on @returns {string[]} */
export function toggled(disabled, id, on) {
  const next = new Set(disabled);
  if (on) next.delete(id);
  else next.add(id);
  return [...next];
}
