/**
 * The options page's "AI tools (MCP)" section: which AI tools may read the history through
 * `rewind mcp`, what part of it each may see, and what each read.
 *
 * Job: draw one card a client (the tools Rewind knows, and any set up or that called today)
 * from the host's `mcp_access` reply: on/off, sites included and excluded, the time window,
 * whether answers may use the language model, "Claude Desktop read 12 pages today" with a
 * link to the log of its calls (`mcp_log`), and the configuration to paste into the tool;
 * save a card with `mcp_set_access`. `mount(section)` wires it to the extension's worker.
 * Never: render a URL, query or host text as HTML (lib/dom.js's `h` only), or turn a tool
 * on without the person ticking its box and saving.
 */

import { call } from "../lib/client.js";
import { h } from "../lib/dom.js";
import { relativeTime } from "../lib/format.js";

/** Time windows offered (days; 0: all time). */
export const WINDOWS = [
  { days: 1, label: "the last day" },
  { days: 7, label: "the last 7 days" },
  { days: 30, label: "the last 30 days" },
  { days: 90, label: "the last 90 days" },
  { days: 365, label: "the last year" },
  { days: 0, label: "all time" },
];

/**
 * @typedef {{client: string, label: string, enabled: boolean, sites: string[], not_sites: string[],
 *   window_days: number, llm: boolean, scope: string, known: boolean, read_today: string,
 *   today: ({calls: number, pages: number, refused: number} | null),
 *   config: {format: string, text: string, where: string}}} Client
 * @typedef {{clients: Client[], known: {client: string, label: string, where: string,
 *   config: Client["config"]}[], log_file: string, log_command: string}} AccessReply
 * @typedef {{at: number, client: string, tool: string, query?: string, pages: number,
 *   urls?: string[], refused?: string}} Call
 * @typedef {{save: (client: string, fields: Record<string, unknown>) => void,
 *   showLog: (client: string, label: string) => void}} Actions
 */

/** "a.com, b.org\nc.net" -> ["a.com", "b.org", "c.net"]. @param {string} text */
export function parseSites(text) {
  return String(text).split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
}

/** The windows to choose from, with a custom one kept when it is not among them. @param {number} current */
export function windowChoices(current) {
  if (WINDOWS.some((w) => w.days === current)) return WINDOWS;
  return [...WINDOWS, { days: current, label: `the last ${current} days` }];
}

/**
 * Every client to show: those set up or seen, then the known tools not set up yet.
 * @param {AccessReply} reply @returns {Client[]}
 */
export function clientsToShow(reply) {
  const shown = [...(reply.clients ?? [])];
  const have = new Set(shown.map((c) => c.client));
  for (const k of reply.known ?? []) {
    if (have.has(k.client)) continue;
    shown.push({
      client: k.client, label: k.label, enabled: false, sites: [], not_sites: [], window_days: 30,
      llm: false, scope: "", known: false, today: null, read_today: `${k.label} has read nothing today.`,
      config: k.config,
    });
  }
  return shown;
}

/** One client's card. @param {Client} c @param {Actions} actions */
export function clientCard(c, actions) {
  const id = (/** @type {string} */ name) => `mcp-${c.client}-${name}`;
  const enabled = h("input", { type: "checkbox", id: id("enabled"), checked: c.enabled });
  const sites = h("input", { type: "text", id: id("sites"), value: c.sites.join(", "), placeholder: "every site", spellcheck: "false" });
  const notSites = h("input", { type: "text", id: id("not-sites"), value: c.not_sites.join(", "), placeholder: "bank.example, mail.example", spellcheck: "false" });
  const span = h("select", { id: id("window") },
    ...windowChoices(c.window_days).map((w) => h("option", { value: String(w.days), selected: w.days === c.window_days, text: w.label })));
  const llm = h("input", { type: "checkbox", id: id("llm"), checked: c.llm });
  enabled.checked = c.enabled; // the state, not only the default (read back on save)
  llm.checked = c.llm;
  const save = () => actions.save(c.client, {
    enabled: Boolean(enabled.checked),
    sites: parseSites(sites.value),
    not_sites: parseSites(notSites.value),
    window_days: Number(span.value),
    llm: Boolean(llm.checked),
  });
  const logLink = h("a", {
    href: "#mcp-log", id: id("log-link"), text: "See what it read",
    on: { click: (/** @type {Event} */ ev) => { ev.preventDefault(); actions.showLog(c.client, c.label); } },
  });
  return h("div", { class: "mcp-client", id: id("card"), dataset: { client: c.client } },
    h("h3", null, c.label, " ", h("span", { class: c.enabled ? "mcp-on" : "mcp-off muted", text: c.enabled ? "on" : "off" })),
    h("p", { class: "small", id: id("today") }, c.read_today, " ", logLink),
    h("div", { class: "row" }, h("label", { class: "check" }, enabled, ` Allow ${c.label} to read my history`)),
    h("details", { open: c.enabled, id: id("scope") },
      h("summary", { text: c.enabled && c.scope ? `It sees: ${c.scope}.` : "What it may see" }),
      h("div", { class: "row" }, h("label", { for: id("sites"), text: "Only these sites" }), sites),
      h("div", { class: "row" }, h("label", { for: id("not-sites"), text: "Never these sites" }), notSites),
      h("div", { class: "row" }, h("label", { for: id("window"), text: "Pages read in" }), span),
      h("div", { class: "row" }, h("label", { class: "check" }, llm, " Answers may use Rewind's language model (slower; otherwise answers are your pages' own sentences)"))),
    h("p", { class: "save-row" },
      h("button", { type: "button", id: id("save"), text: "Save", on: { click: save } }),
      h("span", { class: "msg", id: id("msg"), role: "status" })),
    h("details", null,
      h("summary", { text: `How to connect ${c.label}` }),
      h("p", { class: "help", text: `Put this in ${c.config.where}:` }),
      h("pre", { class: "mcp-config", id: id("config"), text: c.config.text }),
      h("button", {
        type: "button", class: "small secondary", text: "Copy",
        on: { click: () => navigator.clipboard?.writeText(c.config.text) },
      })));
}

/** The section's content for an `mcp_access` reply. @param {AccessReply} reply @param {Actions} actions */
export function accessView(reply, actions) {
  return h("div", { class: "mcp-clients" },
    ...clientsToShow(reply).map((c) => clientCard(c, actions)),
    h("p", { class: "help" }, "Every call is written to the audit log (",
      h("code", { text: reply.log_file }), "); in a terminal: ", h("code", { text: reply.log_command }), "."));
}

/** When a call happened, for the log. @param {number} at @param {number} [nowMs] */
export function callTime(at, nowMs = Date.now()) {
  const d = new Date(at * 1000);
  return `${d.toLocaleString()} (${relativeTime(at, nowMs)})`;
}

/** What one call did, in words. @param {Call} c */
export function callLine(c) {
  const asked = c.query ? ` “${c.query}”` : "";
  if (c.refused) return `${c.tool}${asked}: refused (${c.refused})`;
  return `${c.tool}${asked}: ${c.pages} page${c.pages === 1 ? "" : "s"}`;
}

/** The log of a client's calls, latest first. @param {string} label @param {Call[]} calls @param {string} logFile */
export function logView(label, calls, logFile) {
  return h("div", null,
    h("h3", { text: `What ${label} read` }),
    calls.length
      ? h("ol", { class: "mcp-calls" }, ...calls.map((c) => h("li", null,
          h("span", { class: "small muted", text: callTime(c.at) }), " ", callLine(c),
          ...(c.urls?.length ? [h("ul", { class: "small" }, ...c.urls.map((u) => h("li", null, h("a", { href: u, text: u, target: "_blank", rel: "noreferrer" }))))] : []))))
      : h("p", { class: "muted", text: "No call in the log." }),
    h("p", { class: "help" }, "From ", h("code", { text: logFile }), "."));
}

/** Wire the section to the worker. @param {HTMLElement} section */
export async function mount(section) {
  const body = /** @type {HTMLElement} */ (section.querySelector("#mcp-body"));
  const log = /** @type {HTMLElement} */ (section.querySelector("#mcp-log"));
  /** @param {unknown} err */
  const text = (err) => {
    const e = /** @type {any} */ (err) ?? {};
    return `${e.message ?? "Something went wrong."}${e.hint ? ` ${e.hint}` : ""}`;
  };
  /** @type {Actions} */
  const actions = {
    async save(client, fields) {
      const msg = section.querySelector(`#mcp-${client}-msg`);
      try {
        render(await call("mcp_set_access", { client, ...fields }));
        const again = section.querySelector(`#mcp-${client}-msg`);
        if (again) again.textContent = "Saved.";
      } catch (err) {
        if (msg) { msg.textContent = text(err); msg.classList.add("bad"); }
      }
    },
    async showLog(client, label) {
      log.hidden = false;
      try {
        const reply = await call("mcp_log", { client, limit: 100 });
        log.replaceChildren(logView(label, reply.calls ?? [], reply.log_file ?? ""));
      } catch (err) {
        log.replaceChildren(h("p", { class: "msg bad", text: text(err) }));
      }
      log.focus();
    },
  };
  /** @param {AccessReply} reply */
  function render(reply) {
    body.replaceChildren(accessView(reply, actions));
  }
  try {
    render(await call("mcp_access"));
  } catch (err) {
    body.replaceChildren(h("p", { class: "muted", text: `Connect Rewind's helper to choose which AI tools may read your history. (${text(err)})` }));
  }
}
