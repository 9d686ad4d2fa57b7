import assert from "node:assert/strict";
import { test } from "node:test";
import { contentHash } from "../lib/hash.js";
import { DEFAULTS, applyPatch, normalizeSettings } from "../lib/settings.js";

test("missing or bad settings get their defaults; numbers are clamped", () => {
  assert.deepEqual(normalizeSettings(undefined), { ...DEFAULTS });
  const s = normalizeSettings({ dwellSeconds: "0", resultCount: 500, searchMode: "magic", blocklist: ["a", " a ", 3, ""], paused: "yes" });
  assert.equal(s.dwellSeconds, 1);
  assert.equal(s.resultCount, 50);
  assert.equal(s.searchMode, "hybrid");
  assert.deepEqual(s.blocklist, ["a"]);
  assert.equal(s.paused, false, "only a real true pauses");
});

test("applyPatch changes known keys only", () => {
  const s = applyPatch(normalizeSettings({}), /** @type {any} */ ({ dwellSeconds: 12, evil: 1, pausedSites: ["Example.COM"] }));
  assert.equal(s.dwellSeconds, 12);
  assert.deepEqual(s.pausedSites, ["example.com"]);
  assert.ok(!("evil" in s));
});

test("content hash: stable, and changes with text or position", async () => {
  const a = [{ text: "Title", position: 0 }, { text: "Body text here", position: 1 }];
  const h1 = await contentHash(a);
  assert.match(h1, /^[0-9a-f]{64}$/);
  assert.equal(await contentHash(structuredClone(a)), h1);
  assert.notEqual(await contentHash([a[0], { text: "Body text here!", position: 1 }]), h1);
  assert.notEqual(await contentHash([a[0], { text: "Body text here", position: 2 }]), h1);
});
