/**
 * The history import and the loading of its pages' text, where people see them: the
 * welcome page, the options page and (one line) the popup.
 *
 * Job: words for an import's summary ("412 pages you visited are now searchable by title
 * and address — 23 not imported: banks and payments 12, mail 8 …"), for the backfill's
 * progress ("Loading the text of your history: 41 % — about 2 h left"), and the controls:
 * span choice and Import, the consent button that shows exactly what will happen, pause,
 * resume and stop; `mountHistory` keeps them drawn in a page (fresh every second while
 * something runs). Every action goes through `call` (the worker does the work).
 * Never: start loading pages without the person's click on the button that shows the
 * consent words, or render a page's address or title as HTML.
 */

import { call } from "./client.js";
import { h } from "./dom.js";
import { formatCount } from "./format.js";
import { timeLeft } from "./reembed.js";

/** What the reasons a visit was not imported are called, for people. */
const REASONS = Object.freeze({
  finance: "banks and payments",
  mail: "mail",
  health: "health",
  government: "government and taxes",
  account: "accounts and sign-ins",
  adult: "adult sites",
  search: "search results",
  paused: "sites you paused",
  excluded: "your exclusions",
  forgotten: "pages you forgot",
  retention: "older than you keep",
  "not-web": "not web pages",
  "not a web address": "not web pages",
  "bad-url": "not web pages",
  credentials: "addresses with a password",
});

/** @param {string} id */
export function reasonLabel(id) {
  return /** @type {Record<string, string>} */ (REASONS)[id] ?? id.replace(/[-_]/g, " ");
}

/**
 * The import in words; null before the first one.
 * @param {any} imp the worker's ImportSummary
 * @returns {{text: string, refused: string, bad: boolean}|null}
 */
export function importLine(imp) {
  if (!imp || typeof imp !== "object") return null;
  if (imp.state === "running") {
    return { text: `Importing ${imp.days} days of history: ${formatCount(imp.sent)} of ${formatCount(imp.found)} addresses sent…`, refused: "", bad: false };
  }
  if (imp.state === "failed") return { text: `The import stopped: ${imp.error ?? "unknown problem"}`, refused: "", bad: true };
  /** @type {Record<string, number>} */
  const refused = {};
  for (const part of [imp.refusedHere, imp.refusedByHelper]) {
    for (const [why, n] of Object.entries(part ?? {})) {
      const label = reasonLabel(why);
      refused[label] = (refused[label] ?? 0) + Number(n);
    }
  }
  const total = Object.values(refused).reduce((a, b) => a + b, 0);
  const parts = Object.entries(refused).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${formatCount(n)}`);
  const kept = Number(imp.imported ?? 0) + Number(imp.updated ?? 0);
  return {
    text: `${formatCount(kept)} pages you visited in the last ${imp.days} days are now searchable by title and address (marked “not read”).`,
    refused: total ? `Not imported: ${formatCount(total)} (${parts.join(", ")}).` : "",
    bad: false,
  };
}

/**
 * The backfill in one line; null when there is nothing to say.
 * @param {any} b the worker's backfill status
 */
export function backfillLine(b) {
  if (!b || typeof b !== "object" || !b.consented || !b.total) return null;
  const pct = `${Math.floor(Number(b.percent) || 0)} %`;
  const left = timeLeft(b.etaS);
  const counts = `${formatCount(b.loaded)} read, ${formatCount(b.skipped)} skipped`;
  switch (b.state) {
    case "running":
      return { state: "running", text: `Loading the text of your history: ${pct}${left ? ` — ${left}` : ""} (${counts})${b.waiting ? `; ${b.waiting}` : ""}` };
    case "paused":
      return { state: "paused", text: `Loading the text of your history: paused at ${pct} (${counts})` };
    default:
      return { state: "done", text: `The text of your history is loaded: ${counts}.` };
  }
}

/**
 * The import controls and their outcome, with the backfill under them.
 * @param {{import: any, backfill: any, spans: number[]}} st history_status's answer
 * @param {(action: string, fields?: object) => void} act the page runs the action, then redraws
 * @param {{busy?: boolean}} [opts]
 */
export function historyView(st, act, opts = {}) {
  const spans = st.spans?.length ? st.spans : [7, 30, 90];
  const chosen = Number(st.import?.days) || 30;
  const radios = spans.map((d) =>
    h("label", { class: "check" },
      h("input", { type: "radio", name: "history-span", value: String(d), checked: d === chosen }),
      h("span", { text: ` last ${d} days` })));
  const running = st.import?.state === "running" || opts.busy;
  const imp = importLine(st.import);
  const form = h("div", { class: "history-import" },
    h("fieldset", { class: "row spans" }, h("legend", { text: "Import what you visited in the" }), ...radios),
    h("p", { class: "save-row" },
      h("button", {
        id: "history-import", type: "button", disabled: running,
        text: st.import ? "Import again" : "Import my history",
        on: {
          click: (/** @type {Event} */ ev) => {
            const box = /** @type {HTMLElement} */ (ev.target).closest(".history-import");
            const picked = box?.querySelector('input[name="history-span"]:checked');
            act("history_import", { days: Number(/** @type {HTMLInputElement|null} */ (picked)?.value ?? chosen) });
          },
        },
      })),
    h("p", { class: "help", text: "Only addresses, titles and visit times are read; banks, mail, health pages and your own exclusions are left out, as when you browse." }),
    imp ? h("p", { id: "history-result", role: "status", class: imp.bad ? "bad" : "", text: imp.text }) : null,
    imp?.refused ? h("p", { id: "history-refused", class: "small muted", text: imp.refused }) : null,
  );
  return h("div", null, form, backfillView(st.backfill, act));
}

/**
 * Consent, progress and controls of the backfill; nothing before an import left pages.
 * @param {any} b @param {(action: string, fields?: object) => void} act
 */
export function backfillView(b, act) {
  if (!b || (!b.total && !b.consented)) return h("div", { class: "backfill" });
  if (!b.consented) {
    return h("div", { class: "backfill" },
      h("h3", { text: "Read their text too?" }),
      h("p", { id: "backfill-words", text: String(b.words ?? "") }),
      h("p", { class: "help", text: `${formatCount(b.total)} pages, one request per site per second at most, paused while a page you open is loading. Each site sees a visit from this computer, as if you opened the page signed out. Pages that need you to sign in are skipped, and anything that looks private is not kept.` }),
      h("p", { class: "save-row" },
        h("button", { id: "backfill-consent", type: "button", text: "Load their text", on: { click: () => act("backfill_consent") } })));
  }
  const line = backfillLine(b);
  const buttons = [];
  if (b.state === "running") buttons.push(h("button", { id: "backfill-pause", type: "button", class: "secondary small", text: "Pause", on: { click: () => act("backfill_pause", { paused: true }) } }));
  if (b.state === "paused") buttons.push(h("button", { id: "backfill-resume", type: "button", class: "small", text: "Resume", on: { click: () => act("backfill_pause", { paused: false }) } }));
  if (b.state === "running" || b.state === "paused") buttons.push(h("button", { id: "backfill-stop", type: "button", class: "secondary small", text: "Stop", on: { click: () => act("backfill_cancel") } }));
  const skipped = (b.recentSkipped ?? []).slice(-8).reverse();
  return h("div", { class: "backfill", dataset: { state: String(b.state) } },
    h("p", { id: "backfill-line", role: "status", text: line?.text ?? "" }),
    buttons.length ? h("p", { class: "row-actions" }, ...buttons) : null,
    skipped.length
      ? h("details", null, h("summary", { text: `Skipped pages (${formatCount(b.skipped)})` }),
          h("ul", { id: "backfill-skipped", class: "small" },
            ...skipped.map((/** @type {any} */ s) => h("li", null, h("span", { class: "url", text: String(s.url) }), h("span", { text: ` — ${String(s.reason)}` })))))
      : null);
}

/**
 * Draw the history's controls into `box`, and again after each action and every second
 * while an import or the backfill runs. `onStatus` sees each history_status answer (the
 * welcome page takes the side panel's shortcut from it).
 * @param {HTMLElement} box @param {HTMLElement} msg where errors are said
 * @param {(st: any) => void} [onStatus]
 */
export function mountHistory(box, msg, onStatus) {
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  let busy = false;

  async function render() {
    clearTimeout(timer);
    try {
      const st = await call("history_status");
      onStatus?.(st);
      box.replaceChildren(historyView(st, act, { busy }));
      if (busy || st.import?.state === "running" || st.backfill?.state === "running") timer = setTimeout(render, 1000);
    } catch (err) {
      msg.textContent = String(/** @type {any} */ (err)?.message ?? err);
    }
  }

  /** @param {string} action @param {object} [fields] */
  async function act(action, fields = {}) {
    msg.textContent = "";
    busy = action === "history_import";
    const done = call(action, fields).catch((/** @type {any} */ err) => {
      msg.textContent = String(err?.message ?? err);
    });
    await render();
    await done;
    busy = false;
    await render();
  }

  return render();
}
