import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseHTML } from "linkedom";

import { DEFAULT_PANE, PANES, resolve, show } from "../options/nav.js";
import { openOptions, optionsSection } from "../lib/options-link.js";

const HTML = readFileSync(new URL("../options.html", import.meta.url), "utf8");
const page = () => /** @type {Document} */ (parseHTML(HTML).document);

/** @param {Document} doc */
const shown = (doc) => [...doc.querySelectorAll("section.pane")].filter((p) => !p.hasAttribute("hidden")).map((p) => p.dataset.pane);
/** @param {Document} doc */
const current = (doc) => [...doc.querySelectorAll("nav a[aria-current='page']")].map((a) => a.dataset.pane);

test("options.html has the five panes, a link to each, and every section card in one of them", () => {
  const doc = page();
  assert.deepEqual([...doc.querySelectorAll("section.pane")].map((p) => p.dataset.pane), PANES);
  assert.deepEqual([...doc.querySelectorAll("nav a")].map((a) => a.getAttribute("href")), PANES.map((p) => `#${p}`));
  assert.deepEqual([...doc.querySelectorAll("nav a")].map((a) => a.textContent),
    ["What Rewind records", "Search and answers", "Models", "Your data", "AI tools"]);
  const cards = [...doc.querySelectorAll("[data-section]")];
  assert.equal(cards.length, 12);
  for (const card of cards) assert.ok(card.closest("section.pane"), card.dataset.section);
  // Each pane is named by its heading; the page opens on the first pane with nothing else shown.
  for (const pane of doc.querySelectorAll("section.pane")) {
    assert.equal(doc.getElementById(pane.getAttribute("aria-labelledby")).tagName, "H2");
  }
  assert.deepEqual(shown(doc), [DEFAULT_PANE]);
  assert.deepEqual(current(doc), [DEFAULT_PANE]);
});

test("an address names a pane, a card or any element of a pane; anything else is the first pane", () => {
  const doc = page();
  assert.deepEqual(resolve(doc, "#models"), { pane: "models", target: null });
  assert.deepEqual(resolve(doc, "#ai-tools"), { pane: "ai-tools", target: null });
  assert.deepEqual(resolve(doc, ""), { pane: "records", target: null });
  assert.deepEqual(resolve(doc, "#nothing-here"), { pane: "records", target: null });
  const where = (/** @type {string} */ hash, search = "") => {
    const w = resolve(doc, hash, search);
    return [w.pane, w.target?.id || w.target?.dataset.section];
  };
  assert.deepEqual(where("#blocklist"), ["records", "blocklist"]);
  assert.deepEqual(where("#held-section"), ["records", "held-section"]);
  assert.deepEqual(where("#backup"), ["data", "backup"]); // a card by its data-section
  assert.deepEqual(where("#forget"), ["data", "forget"]);
  assert.deepEqual(where("#mcp-log"), ["ai-tools", "mcp-log"]);
  assert.deepEqual(where("#result-count"), ["search", "result-count"]);
  assert.deepEqual(where("#model-choose"), ["models", "model-choose"]);
  assert.deepEqual(where("#forget%2Dsite"), ["data", "forget-site"]); // escaped as a browser may
  assert.deepEqual(where("", "?site=example.com"), ["data", "forget"]); // the popup's "forget this site"
  assert.deepEqual(where("#banners"), ["records", undefined]); // outside every pane
});

test("showing a pane hides the others, marks its link alone and names it in the title", () => {
  const doc = page();
  for (const name of PANES) {
    show(doc, { pane: name, target: null });
    assert.deepEqual(shown(doc), [name]);
    assert.deepEqual(current(doc), [name]);
  }
  assert.equal(doc.title, "Rewind options: AI tools (MCP)");
  show(doc, resolve(doc, "#data"));
  assert.equal(doc.title, "Rewind options: Your data");
  // The controls stay in the page while their pane is hidden.
  assert.ok(doc.getElementById("blocklist"));
  assert.ok(doc.querySelector("#pane-records[hidden] #held-section"));
});

test("the popup's link opens the options tab already open at its section, or a new one", async () => {
  assert.equal(optionsSection("options.html#records"), "records");
  assert.equal(optionsSection("chrome-extension://x/options.html#ai-tools"), "ai-tools");
  assert.equal(optionsSection("options.html"), "");
  assert.equal(optionsSection("https://example.com/options.html#x\"y"), "");
  assert.equal(optionsSection(null), "");

  const calls = [];
  /** @param {any[]} contexts */
  const api = (contexts) => ({
    runtime: {
      getURL: (/** @type {string} */ p) => `chrome-extension://x/${p}`,
      getContexts: async () => contexts,
    },
    tabs: {
      create: async (/** @type {any} */ o) => calls.push(["create", o]),
      update: async (/** @type {number} */ id, /** @type {any} */ o) => calls.push(["update", id, o]),
    },
    windows: { update: async (/** @type {number} */ id, /** @type {any} */ o) => calls.push(["window", id, o]) },
  });
  await openOptions("records", api([{ tabId: 3, windowId: 1, documentUrl: "chrome-extension://x/popup.html" }]));
  assert.deepEqual(calls.splice(0), [["create", { url: "chrome-extension://x/options.html#records" }]]);
  await openOptions("models", api([{ tabId: 7, windowId: 2, documentUrl: "chrome-extension://x/options.html#data" }]));
  assert.deepEqual(calls.splice(0), [
    ["update", 7, { url: "chrome-extension://x/options.html#models", active: true }],
    ["window", 2, { focused: true }],
  ]);
  await openOptions("", api([]));
  assert.deepEqual(calls.splice(0), [["create", { url: "chrome-extension://x/options.html" }]]);
});
