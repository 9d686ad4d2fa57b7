import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const HERE = join(dirname(fileURLToPath(import.meta.url)), "..");
/** @type {any} */ (globalThis).chrome = {
  runtime: { id: "ext-id", getURL: (/** @type {string} */ p) => `chrome-extension://ext-id/${p}` },
};
const { HANDLERS, createDispatcher, fromOwnPage } = await import("../background/dispatch.js");

test("every action the extension's pages send has one named handler", () => {
  const files = ["popup.js", "options.js", "sidepanel.js", ...readdirSync(join(HERE, "panel")).map((f) => `panel/${f}`),
    ...readdirSync(join(HERE, "options")).map((f) => `options/${f}`)];
  const pages = files.map((f) => readFileSync(join(HERE, f), "utf8")).join("\n");
  const called = new Set([...pages.matchAll(/(?:call|act)\(\s*"([a-z_]+)"/g)].map((m) => m[1]));
  for (const m of pages.matchAll(/call\(\w+ \? "([a-z_]+)" : "([a-z_]+)"\)/g)) called.add(m[1]).add(m[2]);
  assert.ok(called.size >= 15, `found ${called.size} actions`);
  for (const action of called) assert.equal(typeof HANDLERS[action], "function", action);
  for (const [name, fn] of Object.entries(HANDLERS)) assert.ok(fn.name, `${name} is a named function`);
});

test("only the extension's own pages are answered; unknown actions get a coded error", async () => {
  const d = createDispatcher(/** @type {any} */ ({}));
  const own = { id: "ext-id", url: "chrome-extension://ext-id/popup.html" };
  assert.ok(fromOwnPage(/** @type {any} */ (own)));
  assert.ok(!fromOwnPage(/** @type {any} */ ({ id: "ext-id", url: "https://evil.example/" })), "a content script");
  assert.ok(!fromOwnPage(/** @type {any} */ ({ id: "other", url: "chrome-extension://other/x.html" })));
  let answered = null;
  assert.equal(d.onMessage({ action: "status" }, /** @type {any} */ ({ id: "ext-id", url: "https://evil.example/" }), (r) => (answered = r)), false);
  assert.equal(answered, null);
  const reply = await new Promise((resolve) => d.onMessage({ action: "launch_missiles" }, /** @type {any} */ (own), resolve));
  assert.deepEqual([reply.ok, reply.error.code], [false, "unknown_action"]);
  const proto = await new Promise((resolve) => d.onMessage({ action: "toString" }, /** @type {any} */ (own), resolve));
  assert.equal(proto.error.code, "unknown_action", "no inherited properties as handlers");
});
