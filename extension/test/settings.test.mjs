import assert from "node:assert/strict";
import { test } from "node:test";
import { contentHash } from "../lib/hash.js";
import { CAPTURE_KEYS, DEFAULTS, applyPatch, chunkerLimits, normalizeSettings } from "../lib/settings.js";

test("missing or bad settings get their defaults; numbers are clamped", () => {
  assert.deepEqual(normalizeSettings(undefined), { ...DEFAULTS });
  const s = normalizeSettings({ dwellSeconds: "0", resultCount: 500, searchMode: "magic", blocklist: ["a", " a ", 3, ""], paused: "yes" });
  assert.equal(s.dwellSeconds, 1);
  assert.ok(!("resultCount" in s), "how many results to show is the helper's setting (default_limit)");
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

test("the host's capture limits become the chunker's, bad or missing ones keep its defaults", async () => {
  await import("../content/units.js");
  await import("../content/quality.js");
  await import("../content/chunker.js");
  const chunker = /** @type {any} */ (globalThis).RewindChunker;
  for (const ours of Object.values(CAPTURE_KEYS)) assert.ok(ours in chunker.LIMITS, `${ours} is a chunker limit`);
  const hello = { max_passage_words: 150, min_passage_words: 4, max_passages_per_page: 30, max_passage_chars: 2400, max_title_chars: 1000 };
  assert.deepEqual(chunkerLimits(hello), { maxWords: 150, minWords: 4, maxPassages: 30, maxPassageChars: 2400, maxTitleChars: 1000 });
  assert.deepEqual(chunkerLimits({ max_passage_words: -1, max_passage_chars: "9", extra: 3 }), {});
  assert.deepEqual(chunkerLimits(null), {}, "before the first hello: the chunker's own defaults");
});

test("redaction is on unless switched off; always-record sites are kept in lower case", () => {
  assert.equal(normalizeSettings({}).redact, true);
  assert.equal(normalizeSettings({ redact: false }).redact, false);
  assert.equal(normalizeSettings({ redact: "no" }).redact, true);
  assert.deepEqual(normalizeSettings({ alwaysRecord: ["Mail.Example.COM"] }).alwaysRecord, ["mail.example.com"]);
});
