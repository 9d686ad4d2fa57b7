import assert from "node:assert/strict";
import { test } from "node:test";
import {
  citationTokens, displayUrl, domainFilter, formatBytes, highlightSegments,
  modelsInUse, readFor, relativeTime, sinceFor, textFragmentUrl, visitLine,
} from "../lib/format.js";

const NOW = Date.UTC(2024, 2, 21, 12, 0, 0);
const ago = (/** @type {number} */ s) => NOW / 1000 - s;

test("relative times", () => {
  assert.equal(relativeTime(ago(5), NOW), "just now");
  assert.equal(relativeTime(ago(60), NOW), "1 minute ago");
  assert.equal(relativeTime(ago(3 * 3600), NOW), "3 hours ago");
  assert.equal(relativeTime(ago(86400 * 1.5), NOW), "yesterday");
  assert.equal(relativeTime(ago(86400 * 7), NOW), "7 days ago");
  assert.equal(relativeTime(ago(86400 * 21), NOW), "3 weeks ago");
  assert.equal(relativeTime(ago(86400 * 400), NOW), "a year ago");
});

test("visit line: 'visited 7 days ago, read for 2 min'", () => {
  assert.equal(visitLine({ visited_at: ago(7 * 86400), dwell_s: 125, visit_count: 1 }, NOW), "visited 7 days ago, read for 2 min");
  assert.equal(visitLine({ visited_at: ago(60), dwell_s: 0, visit_count: 3 }, NOW), "visited 1 minute ago, 3 visits");
  assert.equal(readFor(40), "read for 40 s");
  assert.equal(readFor(3900), "read for 1 h 5 min");
});

test("highlight segments: code-point offsets, bad ranges clamped and merged", () => {
  assert.deepEqual(highlightSegments("graph pruning rule", [[6, 13]]), [
    { text: "graph ", mark: false }, { text: "pruning", mark: true }, { text: " rule", mark: false },
  ]);
  // an emoji is one code point (two UTF-16 units): offsets count code points like Python
  assert.deepEqual(highlightSegments("🙂 hnsw", [[2, 6]]), [{ text: "🙂 ", mark: false }, { text: "hnsw", mark: true }]);
  assert.deepEqual(highlightSegments("abcdef", [[4, 99], [-5, 2], [1, 3], "x", [5, 5], [3, 2]]), [
    { text: "abc", mark: true }, { text: "d", mark: false }, { text: "ef", mark: true },
  ]);
  assert.deepEqual(highlightSegments("<b>x</b>", null), [{ text: "<b>x</b>", mark: false }]);
});

test("citation tokens", () => {
  assert.deepEqual(citationTokens("Recall rose [Source 1]. Build time grew [Source 2, Source 3]."), [
    { text: "Recall rose " }, { cite: 1 }, { text: ". Build time grew " }, { cite: 2 }, { cite: 3 }, { text: "." },
  ]);
  assert.deepEqual(citationTokens("no sources [here]"), [{ text: "no sources [here]" }]);
});

test("text fragment links: first and last lines, syntax characters escaped", () => {
  assert.equal(
    textFragmentUrl("https://a.example/p#old", "RNG-pruning keeps, roughly, far links"),
    "https://a.example/p#:~:text=RNG%2Dpruning%20keeps%2C%20roughly%2C%20far%20links",
  );
  const url = textFragmentUrl(
    "https://a.example/p",
    "Measured trade-off\nOn the SIFT1M benchmark with M equal to 16 and efConstruction equal to 200, recall rose.",
  );
  assert.equal(url, "https://a.example/p#:~:text=Measured%20trade%2Doff,efConstruction%20equal%20to%20200%2C%20recall%20rose.");
  assert.equal(textFragmentUrl("https://a.example/p", ""), "https://a.example/p");
});

test("time ranges and domain filters", () => {
  assert.equal(sinceFor("any", NOW), null);
  assert.equal(sinceFor("7d", NOW), NOW / 1000 - 7 * 86400);
  assert.ok(/** @type {number} */ (sinceFor("today", NOW)) <= NOW / 1000);
  assert.equal(domainFilter(" https://www.Example.com/path "), "example.com");
  assert.equal(domainFilter("127.0.0.1:8000"), "127.0.0.1:8000");
  assert.equal(domainFilter("not a domain!"), null);
  assert.equal(domainFilter(""), null);
});

test("display helpers", () => {
  assert.equal(displayUrl("https://www.example.com/a/b?c=1"), "example.com/a/b");
  assert.equal(formatBytes(1536), "1.5 KB");
  assert.equal(formatBytes(12 * 1024 * 1024), "12 MB");
});

test("models in use from hello rows and stats", () => {
  const rows = [
    { name: "embeddinggemma-300m", kind: "embedding", installed: false, status: "missing" },
    { name: "all-minilm-l6-v2-int8", kind: "embedding", installed: true, status: "ok" },
    { name: "smollm2-135m-instruct-q8_0", kind: "llm", installed: true, status: "ok" },
  ];
  assert.deepEqual(modelsInUse(rows, { embedding_model: "all-minilm-l6-v2-int8", embedder_ready: true }), [
    { role: "Embeddings", name: "all-minilm-l6-v2-int8", ready: true, problem: "" },
    { role: "Answers", name: "smollm2-135m-instruct-q8_0", ready: true, problem: "" },
  ]);
  // A pulled, larger model answers: the host says which (stats.answer_model).
  const pulled = [...rows, { name: "qwen2.5-1.5b-instruct-q4_k_m", kind: "llm", installed: true, status: "ok" }];
  assert.equal(modelsInUse(pulled, { answer_model: "qwen2.5-1.5b-instruct-q4_k_m" })[1].name,
    "qwen2.5-1.5b-instruct-q4_k_m");
  const broken = modelsInUse(rows.slice(0, 1), { embedding_model: "embeddinggemma-300m", embedder_ready: false, embedder_problem: "files missing" });
  assert.equal(broken[0].ready, false);
  assert.equal(broken[0].problem, "files missing");
});
