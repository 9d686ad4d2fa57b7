import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const HERE = join(dirname(fileURLToPath(import.meta.url)), "..");
const json = (/** @type {string} */ name) => JSON.parse(readFileSync(join(HERE, name), "utf8"));

test("package.json's version is the manifest's", () => {
  assert.equal(json("package.json").version, json("manifest.json").version);
});

test("the queue may use the storage it needs (unlimitedStorage, its own byte budget)", () => {
  assert.ok(json("manifest.json").permissions.includes("unlimitedStorage"));
});

test("every file the extractor injects exists; redaction comes before extraction", async () => {
  // extractor.js imports chrome-free modules only at load; read its list as text.
  const src = readFileSync(join(HERE, "background", "extractor.js"), "utf8");
  const files = [...src.matchAll(/"((?:vendor|content)\/[^"]+\.js)"/g)].map((m) => m[1]);
  assert.ok(files.length >= 5);
  for (const f of files.filter((f) => f.startsWith("content/"))) assert.ok(existsSync(join(HERE, f)), f);
  assert.ok(files.indexOf("content/redact.js") < files.indexOf("content/extract.js"));
});

test("the offscreen reader loads the same extraction files as a tab, in the same order", () => {
  const src = readFileSync(join(HERE, "background", "extractor.js"), "utf8");
  const injected = [...src.matchAll(/"((?:vendor|content)\/[^"]+\.js)"/g)].map((m) => m[1]);
  const html = readFileSync(join(HERE, "offscreen.html"), "utf8");
  const loaded = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(loaded, injected);
});

test("the pages the worker opens and the build copies exist", () => {
  const build = readFileSync(join(HERE, "build.mjs"), "utf8");
  for (const page of ["welcome.html", "welcome.js", "offscreen.html", "offscreen.js"]) {
    assert.ok(existsSync(join(HERE, page)), page);
    assert.ok(build.includes(`"${page}"`), `build.mjs copies ${page}`);
  }
  const m = json("manifest.json");
  assert.equal(m.omnibox.keyword, "rw");
  for (const p of ["history", "offscreen"]) assert.ok(m.permissions.includes(p), p);
});
