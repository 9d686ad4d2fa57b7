// A passage's quality: the cases the host's capture/quality.py reads too
// (tests/data/passage_quality.json), so the extension and the host score passages alike.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import "./helpers.mjs";

const { passageQuality } = /** @type {any} */ (globalThis).RewindQuality;
const DATA = JSON.parse(readFileSync(new URL("../../tests/data/passage_quality.json", import.meta.url), "utf8"));

test("a passage's quality: the cases the host reads too", () => {
  assert.ok(DATA.cases.length > 40);
  for (const c of DATA.cases) {
    const f = { words: c.words, heading: c.heading, chars: c.chars, listChars: c.list_chars, linkChars: c.link_chars, navChars: c.nav_chars };
    assert.equal(passageQuality(c.text, f), c.quality, c.name);
  }
});
