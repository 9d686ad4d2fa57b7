/**
 * The host's user settings as form fields, drawn from the schema get_settings returns.
 *
 * Job: turn `{settings, defaults, schema}` (schema: name -> {type: "int"|"float"|"bool"|
 * "choice", min, max, choices, doc, group}) into groups of field descriptions the options
 * page renders, and read an edited value back into the type the host expects. A host
 * whose reply has no schema yet gets today's hand-written labels (LEGACY), kept only for
 * that case.
 * Never: touch the DOM or `chrome.*` (node tests import it), or offer a setting the host
 * did not report.
 */

/**
 * @typedef {{type: "int"|"float"|"bool"|"choice", min?: number, max?: number,
 *            choices?: string[], doc?: string, group?: string}} FieldSchema
 * @typedef {{name: string, type: FieldSchema["type"], label: string, min?: number, max?: number,
 *            step?: number|"any", choices?: string[], value: unknown, dflt: unknown}} Field
 * @typedef {{group: string, title: string, fields: Field[]}} Group
 */

/** Labels and bounds for hosts that send no schema (host 0.2.0). */
const LEGACY = /** @type {Record<string, FieldSchema>} */ ({
  fusion: { type: "choice", choices: ["adaptive", "rrf"], doc: "How meaning and words are combined", group: "search" },
  rrf_alpha: { type: "float", min: 0, max: 1, doc: "Weight of meaning over exact words (alpha)", group: "search" },
  mmr_lambda: { type: "float", min: 0, max: 1, doc: "Relevance over variety (MMR lambda)", group: "search" },
  max_pages_per_domain: { type: "int", min: 1, max: 100, doc: "Pages per site before others come first", group: "search" },
  rrf_k: { type: "int", min: 1, max: 1000, doc: "RRF k", group: "search" },
  multi_passage_bonus: { type: "float", min: 0, max: 1, doc: "Bonus for several matching passages", group: "search" },
  default_limit: { type: "int", min: 1, max: 100, doc: "Results when none is asked for", group: "search" },
  answer_token_budget: {
    type: "int", min: 50, max: 32768, group: "answers",
    doc: "Text of your pages given to the answering model (tokens; more: better answers, slower start)",
  },
  answer_max_tokens: { type: "int", min: 16, max: 2048, doc: "Longest answer (tokens)", group: "answers" },
  answer_facets: { type: "bool", doc: "Split a complex question into parts first (best with a larger model)", group: "answers" },
  facet_count: { type: "int", min: 1, max: 8, doc: "Parts at most, the question included", group: "answers" },
});

const GROUP_ORDER = ["search", "answers"];
const TYPES = new Set(["int", "float", "bool", "choice"]);

/** @param {string} g */
function groupTitle(g) {
  return g ? g.charAt(0).toUpperCase() + g.slice(1).replace(/_/g, " ") : "Other";
}

/** @param {FieldSchema} f */
function stepOf(f) {
  if (f.type === "int") return 1;
  if (f.type !== "float") return undefined;
  const span = Number(f.max) - Number(f.min);
  return Number.isFinite(span) && span > 0 && span <= 10 ? 0.01 : "any";
}

/** A schema entry for a value with no schema (typeof decides; no bounds). @param {unknown} v @returns {FieldSchema|null} */
function guess(v) {
  if (typeof v === "boolean") return { type: "bool" };
  if (typeof v === "number") return { type: Number.isInteger(v) ? "int" : "float" };
  return null;
}

/**
 * Groups of fields for the host settings in `reply` (get_settings' answer).
 * @param {{settings?: Record<string, unknown>, defaults?: Record<string, unknown>,
 *          schema?: Record<string, FieldSchema>}} reply
 * @returns {Group[]}
 */
export function hostSettingGroups(reply) {
  const values = reply.settings ?? {};
  const defaults = reply.defaults ?? {};
  const schema = reply.schema && typeof reply.schema === "object" ? reply.schema : null;
  /** @type {Map<string, Field[]>} */
  const groups = new Map();
  const names = schema ? Object.keys(schema) : Object.keys(values);
  for (const name of names) {
    if (!(name in values)) continue; // described but not reported: nothing to edit
    const f = schema ? schema[name] : (LEGACY[name] ?? guess(values[name]));
    if (!f || !TYPES.has(f.type)) continue; // a kind this page cannot edit
    if (f.type === "choice" && !Array.isArray(f.choices)) continue;
    const group = String(f.group ?? (schema ? "" : "more"));
    /** @type {Field} */
    const field = {
      name,
      type: f.type,
      label: String(f.doc || name),
      value: values[name],
      dflt: defaults[name],
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
