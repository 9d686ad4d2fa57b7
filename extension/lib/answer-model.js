/**
 * The answering model in words: which one answers now, and the offer of the one that
 * suits this computer ("Better answers: Qwen2.5 1.5B, 1.1 GB, first words in ~7 s here").
 *
 * Job: turn the host's `answer_models` reply and `pull_model` progress frames into the
 * lines and the button the options page shows.
 * Never: touch the DOM or `chrome.*` (node tests import this); offer a model the host
 * did not recommend.
 */

/** @param {unknown} s */
const str = (s) => (typeof s === "string" ? s : "");

/** "1.1 GB", "312 MB" (decimal, as model sizes are published). @param {number} bytes */
export function modelSize(bytes) {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  return `${Math.round(bytes / 1e6).toLocaleString("en-US")} MB`;
}

/**
 * @typedef {{kind: "current"|"get"|"use"|"none", now: string, offer: string, button: string,
 *            model: string, label: string, gains: string[], costs: string[]}} Offer
 */

/**
 * What the "Better answers" section says, from an answer_models reply.
 * @param {any} reply @returns {Offer}
 */
export function answerOffer(reply) {
  const r = reply && typeof reply === "object" ? reply : {};
  const rec = r.recommended && typeof r.recommended === "object" ? r.recommended : null;
  const nowLabel = str(r.answer_label) || str(r.answer_model);
  const now = nowLabel
    ? `Answers now come from ${nowLabel}.`
    : "No answering model is in use: answers are sentences picked from your pages.";
  const base = { now, model: "", label: "", gains: [], costs: [] };
  if (!rec || !str(rec.name)) return { ...base, kind: "none", offer: "", button: "" };
  const label = str(rec.label) || str(rec.name);
  const gains = Array.isArray(r.gains) ? r.gains.map(str).filter(Boolean) : [];
  const costs = Array.isArray(r.costs) ? r.costs.map(str).filter(Boolean) : [];
  const offerBase = { ...base, model: str(rec.name), label, gains, costs };
  if (rec.name === r.answer_model) {
    return { ...offerBase, kind: "current", offer: `${label} answers: the model that suits this computer best.`, button: "" };
  }
  const current = Array.isArray(r.installed) ? r.installed.find((m) => m && m.name === r.answer_model) : null;
  const lead = current && Number(current.parameters_b) >= Number(rec.parameters_b) ? "Suits this computer better" : "Better answers";
  const wait = typeof rec.first_words_s === "number" ? `first words in ~${Math.round(rec.first_words_s)} s here` : "";
  if (rec.installed) {
    return { ...offerBase, kind: "use", offer: `${lead}: ${label}, installed${wait ? `, ${wait}` : ""}`, button: "Use it" };
  }
  const size = modelSize(Number(rec.file_bytes));
  const facts = [size, wait].filter(Boolean).join(", ");
  return { ...offerBase, kind: "get", offer: `${lead}: ${label}${facts ? `, ${facts}` : ""}`, button: "Get it" };
}

/**
 * A pull_model progress frame in words, and the share done (0..1, or null if unknown).
 * @param {any} p frame.progress @param {string} label
 * @returns {{text: string, share: number|null}}
 */
export function pullProgress(p, label) {
  const done = Number(p?.all_done ?? p?.done);
  const total = Number(p?.all_total ?? p?.total);
  if (!Number.isFinite(done)) return { text: `Downloading ${label}…`, share: null };
  if (!Number.isFinite(total) || total <= 0) return { text: `Downloading ${label}: ${modelSize(done)}`, share: null };
  const share = Math.min(1, done / total);
  return { text: `Downloading ${label}: ${modelSize(done)} of ${modelSize(total)} (${Math.floor(share * 100)} %)`, share };
}
