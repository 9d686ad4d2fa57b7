/**
 * The embedding job where people look: its line ("Re-embedding with all-minilm-l6-v2-int8
 * at 256 dimensions: 41 % — about 2 h left"), its pause / resume / cancel buttons, and the
 * options page's choice of embedding model (installed models, their dimensions).
 *
 * Job: turn the host's `reembed` status and `reindex` reply into words and elements;
 * every action goes through `call("reindex", …)` (the worker relays it).
 * Never: render host text as HTML (lib/dom.js builds text nodes), or start a job without
 * the person's click.
 */

import { h } from "./dom.js";

/** "about 2 h left" / "about 4 min left" / "" @param {number|null|undefined} s */
export function timeLeft(s) {
  if (typeof s !== "number" || !Number.isFinite(s) || s < 0) return "";
  if (s >= 5400) return `about ${Math.round(s / 3600)} h left`;
  if (s >= 90) return `about ${Math.round(s / 60)} min left`;
  return "less than 2 min left";
}

/** "name at 256 dimensions" for "name@256". @param {string} id @param {number} [full] */
export function modelName(id, full) {
  const [name, dim] = String(id ?? "").split("@");
  return dim && Number(dim) !== full ? `${name} at ${dim} dimensions` : name;
}

/**
 * The job in one line; null when there is none.
 * @param {any} job stats.reembed
 * @returns {{text: string, state: string}|null}
 */
export function reembedLine(job) {
  if (!job || typeof job !== "object") return null;
  const pct = typeof job.percent === "number" ? `${Math.floor(job.percent)} %` : "";
  const who = modelName(job.model);
  const left = timeLeft(job.eta_s);
  switch (job.state) {
    case "running":
      return { state: "running", text: `Re-embedding with ${who}: ${pct}${left ? ` — ${left}` : ""}` };
    case "filling":
      return { state: "running", text: `Embedding pages stored while the model was missing: ${pct}` };
    case "paused":
      return { state: "paused", text: `Re-embedding with ${who} paused at ${pct}` };
    case "waiting":
      return { state: "waiting", text: `Re-embedding with ${who}: ${pct}, about to go on` };
    case "failed":
      return { state: "failed", text: `Re-embedding stopped: ${job.problem ?? "unknown problem"}` };
    default:
      return { state: String(job.state), text: `Re-embedding with ${who}: ${pct}` };
  }
}

/**
 * The job's line with its buttons, or nothing. `act(action)` runs pause/resume/cancel.
 * @param {any} job @param {(action: string) => void} act
 * @returns {HTMLElement|null}
 */
export function reembedView(job, act) {
  const line = reembedLine(job);
  if (!line) return null;
  const buttons = [];
  if (line.state === "running" && job.state === "running") {
    buttons.push(h("button", { type: "button", class: "secondary", id: "reembed-pause", text: "Pause", on: { click: () => act("pause") } }));
  }
  if (line.state === "paused" || line.state === "failed") {
    buttons.push(h("button", { type: "button", class: "secondary", id: "reembed-resume", text: "Resume", on: { click: () => act("resume") } }));
  }
  if (job.state !== "filling") {
    buttons.push(h("button", { type: "button", class: "danger", id: "reembed-cancel", text: "Cancel", on: { click: () => act("cancel") } }));
  }
  const pct = Math.max(0, Math.min(100, Number(job.percent) || 0));
  return h("div", { class: "reembed", dataset: { state: line.state } },
    h("p", { class: "reembed-line", role: "status", "aria-live": "polite", text: line.text }),
    h("progress", { max: "100", value: String(pct), "aria-label": "Re-embedding progress" }),
    buttons.length ? h("div", { class: "row-actions" }, ...buttons) : null);
}

/**
 * Choices for the options page: one per installed embedding model and dimension.
 * @param {any[]} models reindex reply's `models`
 * @returns {{value: string, label: string, model: string, dim: number}[]}
 */
export function modelChoices(models) {
  const out = [];
  for (const m of Array.isArray(models) ? models : []) {
    const dims = Array.isArray(m?.dims) ? m.dims : [];
    for (const dim of dims) {
      const full = dim === Math.max(...dims);
      out.push({
        value: `${m.name}@${dim}`, model: String(m.name), dim: Number(dim),
        label: `${m.name}, ${dim} dimensions${full ? "" : " (smaller, a little less precise)"}`,
      });
    }
  }
  return out;
}

/**
 * The options page's model choice: the model in use, a list of the others, a Switch
 * button (`start(model, dim)` starts the job). Nothing to choose: a sentence says so.
 * @param {any} reply the reindex reply ({embedding_model, models, reembed})
 * @param {(model: string, dim: number) => void} start
 * @returns {HTMLElement}
 */
export function modelChooser(reply, start) {
  const current = String(reply?.embedding_model ?? "");
  const choices = modelChoices(reply?.models).filter((c) => c.value !== current);
  const now = h("p", { id: "model-now", text: `Search uses ${modelName(current)}.` });
  if (!choices.length) {
    return h("div", null, now,
      h("p", { class: "help", text: "No other embedding model is installed (`rewind models pull NAME` adds one)." }));
  }
  let chosen = choices[0].value;
  const select = h("select", {
    id: "model-choice", "aria-label": "Embedding model",
    on: { change: () => (chosen = /** @type {HTMLSelectElement} */ (select).value) },
  }, ...choices.map((c) => h("option", { value: c.value, text: c.label })));
  const busy = Boolean(reply?.reembed && reply.reembed.state !== "filling");
  const button = h("button", {
    type: "button", id: "model-switch", text: "Switch and re-embed", disabled: busy,
    title: busy ? "A re-embedding job is under way: cancel it first." : undefined,
    on: {
      click: () => {
        const c = choices.find((x) => x.value === chosen);
        if (c) start(c.model, c.dim);
      },
    },
  });
  return h("div", null, now,
    h("div", { class: "row" }, select, button),
    h("p", { class: "help", text: "Everything you have read is embedded again in the background; search keeps working with the current model until the new one covers it all." }));
}
