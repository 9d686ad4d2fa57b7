import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { looksLikeQuestion, rememberedWords } from "../lib/query-form.js";

// The host reads the same cases (tests/search/test_query_form.py).
const shared = JSON.parse(readFileSync(new URL("../../tests/data/query_forms.json", import.meta.url), "utf8"));

test("the form of a query: the cases the host reads too", () => {
  assert.ok(shared.cases.length > 10);
  for (const c of shared.cases) {
    assert.equal(looksLikeQuestion(c.text), c.question, `question: ${JSON.stringify(c.text)}`);
    assert.equal(rememberedWords(c.text, shared.max_terms), c.remembered, `remembered: ${JSON.stringify(c.text)}`);
  }
});

test("auto-answer waits for a question", () => {
  assert.ok(looksLikeQuestion("what did that article say?"));
  assert.ok(!looksLikeQuestion("hnsw pruning"));
});
