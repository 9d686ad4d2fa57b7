import assert from "node:assert/strict";
import { test } from "node:test";
import { parseHTML } from "linkedom";

// options/mcp.js builds elements with lib/dom.js: give it a document (linkedom).
const { document: doc } = parseHTML("<!doctype html><html><body></body></html>");
Object.assign(globalThis, { document: doc, location: { href: "chrome-extension://x/options.html" } });
const { accessView, callLine, clientsToShow, logView, parseSites, windowChoices } = await import("../options/mcp.js");

const config = { format: "json", text: '{"mcpServers": {"rewind": {}}}', where: "claude_desktop_config.json" };
/** @type {any} */
const reply = {
  clients: [{
    client: "claude-desktop", label: "Claude Desktop", enabled: true, sites: [], not_sites: ["bank.example"],
    window_days: 30, llm: false, scope: "every site except bank.example; pages read in the last 30 days", known: true,
    today: { calls: 4, refused: 0, pages: 12 }, read_today: "Claude Desktop read 12 pages today.", config,
  }],
  known: [
    { client: "claude-desktop", label: "Claude Desktop", where: "w", config },
    { client: "vscode", label: "VS Code", where: ".vscode/mcp.json", config: { ...config, where: ".vscode/mcp.json" } },
  ],
  log_file: "/home/maya/.local/share/rewind/profiles/default/audit.log",
  log_command: "rewind log --event mcp",
};

test("every known tool gets a card, set up or not; a set-up one keeps its settings", () => {
  const shown = clientsToShow(reply);
  assert.deepEqual(shown.map((c) => [c.client, c.enabled]), [["claude-desktop", true], ["vscode", false]]);
  assert.equal(shown[1].read_today, "VS Code has read nothing today.");
});

test("the card says what it read today, links to the log and saves what the person set", () => {
  const saved = [];
  const logs = [];
  const view = accessView(reply, { save: (c, f) => saved.push([c, f]), showLog: (c, l) => logs.push([c, l]) });
  const today = view.querySelector("#mcp-claude-desktop-today");
  assert.match(today.textContent, /^Claude Desktop read 12 pages today\. See what it read$/);
  const link = view.querySelector("#mcp-claude-desktop-log-link");
  assert.equal(link.getAttribute("href"), "chrome-extension://x/options.html#mcp-log");
  link.dispatchEvent(new doc.defaultView.Event("click"));
  assert.deepEqual(logs, [["claude-desktop", "Claude Desktop"]]);
  assert.equal(view.querySelector("#mcp-claude-desktop-enabled").hasAttribute("checked"), true);
  assert.equal(view.querySelector("#mcp-vscode-enabled").hasAttribute("checked"), false);
  view.querySelector("#mcp-claude-desktop-sites").value = "docs.python.org, docs.rs";
  for (const o of view.querySelectorAll("#mcp-claude-desktop-window option")) { // (linkedom: no select.value =)
    o.toggleAttribute("selected", o.getAttribute("value") === "7");
  }
  view.querySelector("#mcp-claude-desktop-save").dispatchEvent(new doc.defaultView.Event("click"));
  assert.deepEqual(saved, [["claude-desktop", {
    enabled: true, sites: ["docs.python.org", "docs.rs"], not_sites: ["bank.example"], window_days: 7, llm: false,
  }]]);
  assert.match(view.textContent, /rewind log --event mcp/);
  assert.equal(view.querySelector("#mcp-vscode-config").textContent, config.text);
});

test("host text stays text", () => {
  const evil = { ...reply, clients: [{ ...reply.clients[0], label: "<img src=x onerror=alert(1)>", read_today: "<b>x</b>" }] };
  const view = accessView(evil, { save() {}, showLog() {} });
  assert.equal(view.querySelector("img"), null);
  assert.equal(view.querySelector("b"), null);
  const log = logView("<i>x</i>", [{ at: 1763900000, client: "c", tool: "read_page", query: "<script>1</script>",
    pages: 1, urls: ["javascript:alert(1)", "https://a.example/1"] }], "/x/audit.log");
  assert.equal(log.querySelector("script"), null);
  assert.equal(log.querySelector("i"), null);
  const hrefs = [...log.querySelectorAll("a")].map((a) => a.getAttribute("href"));
  assert.deepEqual(hrefs, ["#", "https://a.example/1"]);
});

test("a call in words, and the helpers", () => {
  assert.equal(callLine({ at: 0, client: "c", tool: "search_history", query: "hnsw", pages: 3 }), "search_history “hnsw”: 3 pages");
  assert.equal(callLine({ at: 0, client: "c", tool: "read_page", pages: 1 }), "read_page: 1 page");
  assert.equal(callLine({ at: 0, client: "c", tool: "ask_history", query: "q", pages: 0, refused: "not enabled" }),
    "ask_history “q”: refused (not enabled)");
  assert.deepEqual(parseSites(" a.com, b.org\nc.net ,, "), ["a.com", "b.org", "c.net"]);
  assert.deepEqual(windowChoices(30).map((w) => w.days), [1, 7, 30, 90, 365, 0]);
  assert.deepEqual(windowChoices(14).at(-1), { days: 14, label: "the last 14 days" });
  assert.match(logView("VS Code", [], "/f").textContent, /No call in the log/);
});
