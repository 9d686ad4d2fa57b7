/**
 * The host's settings as form rows, for any section that shows some of them.
 *
 * Job: one labelled input per field of lib/settings-form.js (number, checkbox or list),
 * with the default beside it when it was changed, and read the rows back into the
 * changes to send with set_settings (or the first error, in words).
 * Never: draw a setting the host did not describe, or send one that did not change.
 */

import { h } from "../lib/dom.js";
import { readField } from "../lib/settings-form.js";

/** @typedef {import("../lib/settings-form.js").Field} Field */
/** @typedef {import("../lib/settings-form.js").Group} Group */

/** @param {Field} f */
export function fieldRow(f) {
  const id = `host-${f.name}`;
  let input;
  if (f.type === "choice") {
    input = h("select", { id }, ...(f.choices ?? []).map((c) => h("option", { value: c, text: c, selected: c === f.value })));
  } else if (f.type === "bool") {
    input = h("input", { id, type: "checkbox", checked: f.value === true });
  } else {
    input = h("input", { id, type: "number", min: f.min, max: f.max, step: f.step ?? "any", value: String(f.value) });
  }
  const changed = f.dflt !== undefined && f.dflt !== f.value;
  return h("div", { class: "row", title: f.name },
    h("label", { for: id, text: f.label }),
    input,
    changed ? h("span", { class: "muted small", text: `default ${f.dflt}` }) : null);
}

/** Groups as headed lists of rows. @param {Group[]} groups */
export function groupRows(groups) {
  return groups.flatMap((g) => [h("h3", { text: g.title }), ...g.fields.map(fieldRow)]);
}

/**
 * What the person changed in the rows of `fields`, or the first error.
 * @param {Field[]} fields @returns {{changed: Record<string, unknown>}|{error: string}}
 */
export function readChanges(fields) {
  /** @type {Record<string, unknown>} */
  const changed = {};
  for (const f of fields) {
    const el = /** @type {HTMLInputElement|null} */ (document.getElementById(`host-${f.name}`));
    if (!el) continue;
    const got = readField(f, f.type === "bool" ? el.checked : el.value);
    if ("error" in got) return { error: got.error };
    if (got.value !== f.value) changed[f.name] = got.value;
  }
  return { changed };
}
