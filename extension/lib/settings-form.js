/**
 * The host's user settings as form fields, drawn from the schema get_settings returns.
 *
 * Job: turn `{settings, defaults, schema}` (schema: name -> {type: "int"|"float"|"bool"|
 * "choice", min, max, choices, doc, label, group, advanced}) into groups of field
 * descriptions the options page renders — the everyday ones, or those a person finds
 * under "Advanced" — and read an edited value back into the type the host expects. The
 * settings are defined once, in the host's Settings (with their plain-language labels):
 * nothing about them is written here.
 * Never: touch the DOM or `chrome.*` (node tests import it), or offer a setting the host
 * did not describe.
 */

/**
 * @typedef {{type: "int"|"float"|"bool"|"choice", min?: number, max?: number,
 *            choices?: string[], doc?: string, label?: string, group?: string,
 *            advanced?: boolean}} FieldSchema
 * @typedef {{name: string, type: FieldSchema["type"], label: string, min?: number, max?: number,
 *            step?: number|"any", choices?: string[], value: unknown, dflt: unknown,
 *            advanced: boolean}} Field
 * @typedef {{group: string, title: string, fields: Field[]}} Group
 */

const GROUP_ORDER = ["search", "answers", "capture", "retention"];
/** What each group is called on the page; a group not named here gets its own name. */
const GROUP_TITLES = /** @type {Record<string, string>} */ ({
  search: "Search results", answers: "Answers", capture: "Recording", retention: "Keeping your history",
});
const TYPES = new Set(["int", "float", "bool", "choice"]);

/** @param {string} g */
function groupTitle(g) {
  if (GROUP_TITLES[g]) return GROUP_TITLES[g];
  return g ? g.charAt(0).toUpperCase() + g.slice(1).replace(/_/g, " ") : "Other";
}

/** @param {FieldSchema} f */
function stepOf(f) {
  if (f.type === "int") return 1;
  if (f.type !== "float") return undefined;
  const span = Number(f.max) - Number(f.min);
  return Number.isFinite(span) && span > 0 && span <= 10 ? 0.01 : "any";
}

/**
 * Groups of fields for the host settings in `reply` (get_settings' answer): with
 * `advanced` given, only the advanced ones (true) or only the everyday ones (false);
 * never those named in `skip` (a section that shows them itself).
 * @param {{settings?: Record<string, unknown>, defaults?: Record<string, unknown>,
 *          schema?: Record<string, FieldSchema>}} reply
 * @param {{advanced?: boolean, skip?: string[]}} [which]
 * @returns {Group[]}
 */
export function hostSettingGroups(reply, which = {}) {
  const values = reply.settings ?? {};
  const defaults = reply.defaults ?? {};
  const schema = reply.schema && typeof reply.schema === "object" ? reply.schema : {};
  /** @type {Map<string, Field[]>} */
  const groups = new Map();
  for (const name of Object.keys(schema)) {
    if (!(name in values)) continue; // described but not reported: nothing to edit
    const f = schema[name];
    if (!f || !TYPES.has(f.type)) continue; // a kind this page cannot edit
    if (f.type === "choice" && !Array.isArray(f.choices)) continue;
    const advanced = f.advanced === true;
    if (which.advanced !== undefined && which.advanced !== advanced) continue;
    if (which.skip?.includes(name)) continue;
    const group = String(f.group ?? "");
    /** @type {Field} */
    const field = {
      name,
      type: f.type,
      label: String(f.label || f.doc || name),
      value: values[name],
      dflt: defaults[name],
      advanced,
    };
    if (f.min !== undefined) field.min = f.min;
    if (f.max !== undefined) field.max = f.max;
    const step = stepOf(f);
    if (step !== undefined) field.step = step;
    if (f.type === "choice") field.choices = f.choices;
    if (!groups.has(group)) groups.set(group, []);
    /** @type {Field[]} */ (groups.get(group)).push(field);
  }
  const order = (/** @type {string} */ g) => (GROUP_ORDER.includes(g) ? GROUP_ORDER.indexOf(g) : GROUP_ORDER.length);
  return [...groups.entries()]
    .sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b))
    .map(([group, fields]) => ({ group, title: groupTitle(group), fields }));
}

/**
 * An edited value in the field's type, or an error saying what is wrong.
 * @param {Field} field @param {string|boolean} raw the input's value (checked state for bool)
 * @returns {{value: unknown}|{error: string}}
 */
export function readField(field, raw) {
  if (field.type === "bool") return { value: raw === true };
  if (field.type === "choice") {
    return field.choices?.includes(String(raw)) ? { value: String(raw) } : { error: `${field.label}: choose one of the list.` };
  }
  const n = Number(raw);
  if (String(raw).trim() === "" || !Number.isFinite(n)) return { error: `${field.label}: not a number.` };
  if (field.type === "int" && !Number.isInteger(n)) return { error: `${field.label}: a whole number, please.` };
  if ((field.min !== undefined && n < field.min) || (field.max !== undefined && n > field.max)) {
    return { error: `${field.label}: between ${field.min} and ${field.max}.` };
  }
  return { value: n };
}
