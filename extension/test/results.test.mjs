import assert from "node:assert/strict";
import { test } from "node:test";
import { foldResults, foldedLabel, searchSummary } from "../lib/results.js";

const hit = (/** @type {string} */ url, /** @type {boolean|undefined} */ relevant) =>
  relevant === undefined ? { url, title: url } : { url, title: url, relevant };

test("relevant results are shown in the host's order, the others folded", () => {
  const results = [hit("a", true), hit("b", false), hit("c", true), hit("d", false)];
  const fold = foldResults(results);
  assert.deepEqual(fold.shown.map((r) => r.url), ["a", "c"]);
  assert.deepEqual(fold.folded.map((r) => r.url), ["b", "d"]);
});

test("a query that matches one page: that page shown, the rest folded", () => {
  const fold = foldResults([hit("venv", true), hit("gui", false), hit("faq", false), hit("tut", false)]);
  assert.deepEqual(fold.shown.map((r) => r.url), ["venv"]);
  assert.equal(fold.folded.length, 3);
  assert.equal(searchSummary(fold, { query: "venv", tookMs: 12.4 }), "1 result in 12 ms");
  assert.equal(foldedLabel(fold.folded.length), "Less relevant (3)");
});

test("a host without the relevant flag: every result shown, nothing folded on a guess", () => {
  const fold = foldResults([hit("a"), hit("b"), { url: "c", relevant: null }]);
  assert.deepEqual(fold.shown.map((r) => r.url), ["a", "b", "c"]);
  assert.deepEqual(fold.folded, []);
  assert.equal(searchSummary(fold, { query: "x", tookMs: 3 }), "3 results in 3 ms");
});

test("bad replies fold to nothing instead of throwing", () => {
  assert.deepEqual(foldResults(undefined), { shown: [], folded: [] });
  assert.deepEqual(foldResults([null, 3, "x"]), { shown: [], folded: [] });
});

test("nothing relevant: the line says so and points at the folded pages", () => {
  const fold = foldResults([hit("a", false)]);
  assert.match(searchSummary(fold, { query: "quux" }), /^Nothing you've read clearly matches “quux”\. The closest pages are folded below\.$/);
  const none = foldResults([]);
  assert.equal(
    searchSummary(none, { query: "quux", keywordMode: false }),
    "Nothing you've read matches “quux”. Try other words, or Keyword mode for exact words.",
  );
  assert.equal(searchSummary(none, { query: "quux", keywordMode: true }), "Nothing you've read matches “quux”. Try other words.");
  assert.equal(searchSummary(foldResults([hit("a", true)]), { query: "a", tookMs: "?" }), "1 result");
});
