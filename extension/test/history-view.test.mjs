import assert from "node:assert/strict";
import { test } from "node:test";
import { backfillLine, importLine, reasonLabel } from "../lib/history-view.js";

test("an import in words: what is searchable now, and what was left out and why", () => {
  const line = importLine({
    state: "done", days: 30, found: 500, sent: 470, imported: 440, updated: 6,
    refusedHere: { finance: 12, mail: 8, paused: 1 }, refusedByHelper: { "not a web address": 2, finance: 1 },
  });
  assert.equal(line?.text, "446 pages you visited in the last 30 days are now searchable by title and address (marked “not read”).");
  assert.equal(line?.refused, "Not imported: 24 (banks and payments 13, mail 8, not web pages 2, sites you paused 1).");
  assert.equal(importLine(null), null);
  assert.match(importLine({ state: "failed", error: "store_locked" })?.text ?? "", /stopped: store_locked/);
  assert.equal(reasonLabel("dating-apps"), "dating apps"); // a category this list does not know yet
});

test("the backfill in one line: progress, time left, counts; nothing before consent", () => {
  const b = { consented: true, total: 200, state: "running", percent: 41.5, etaS: 7200, loaded: 80, skipped: 3, waiting: null };
  assert.equal(backfillLine(b)?.text, "Loading the text of your history: 41 % — about 2 h left (80 read, 3 skipped)");
  assert.equal(backfillLine({ ...b, state: "paused" })?.text, "Loading the text of your history: paused at 41 % (80 read, 3 skipped)");
  assert.equal(backfillLine({ ...b, state: "done" })?.text, "The text of your history is loaded: 80 read, 3 skipped.");
  assert.equal(backfillLine({ ...b, consented: false }), null);
});
