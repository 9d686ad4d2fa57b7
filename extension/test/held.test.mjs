import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "./helpers.mjs";

const doc = parse("<!doctype html><html><body></body></html>");
/** @type {any} */ (globalThis).document = doc;
const { heldHeadline, heldView, wipedIn } = await import("../lib/held.js");

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const PAGE = {
  id: "3f2a", url: "https://notes.example/j", site: "notes.example", category: "private",
  label: "Private page", why: "looks like a private page", expires_at: NOW / 1000 + 23.5 * 3600,
  title: "<img src=x onerror=alert(1)> Journal",
};

test("the headline counts the pages", () => {
  assert.equal(heldHeadline(1), "Rewind held 1 page that looked private — keep / don't keep");
  assert.equal(heldHeadline(2), "Rewind held 2 pages that looked private — keep / don't keep");
});

test("when a page not kept is wiped", () => {
  assert.equal(wipedIn(NOW / 1000 + 23.5 * 3600, NOW), "in 23 h");
  assert.equal(wipedIn(NOW / 1000 + 90, NOW), "in 2 min");
  assert.equal(wipedIn(NOW / 1000 - 5, NOW), "in 1 min");
});

test("each page with its title as text, why, and the two answers", () => {
  /** @type {[string, boolean][]} */
  const decided = [];
  const view = heldView([PAGE], (p, keep) => decided.push([p.id, keep]), NOW);
  assert.ok(view);
  assert.equal(view.querySelector(".held-title").textContent, PAGE.title);
  assert.equal(view.querySelector("img"), null, "a title is text, never markup");
  assert.match(view.querySelector(".held-why").textContent, /looks like a private page .* wiped in 23 h/);
  assert.equal(view.querySelector(".held-rule").textContent,
    "Don't keep also stops recording notes.example (Never record, in the options).");
  view.querySelector(".held-keep").dispatchEvent(new doc.defaultView.Event("click"));
  view.querySelector(".held-drop").dispatchEvent(new doc.defaultView.Event("click"));
  assert.deepEqual(decided, [["3f2a", true], ["3f2a", false]]);
  assert.equal(heldView([], () => {}), null);
});
