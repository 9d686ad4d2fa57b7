// Words for every script: the cases the host's units.py shares (tests/data/chunk_units.json),
// and chunk() on Japanese, Chinese, Thai and German pages.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { RewindChunker, parse } from "./helpers.mjs";

const { chunk, countWords, cut, LIMITS } = RewindChunker;
const DATA = JSON.parse(readFileSync(new URL("../../tests/data/chunk_units.json", import.meta.url), "utf8"));
const bare = (/** @type {string} */ s) => s.replace(/\s/g, "");

for (const c of DATA.cases) {
  test(`shared case: ${c.name}`, () => {
    assert.equal(countWords(c.text), c.words);
    const pieces = cut(c.text, c.max_words);
    assert.deepEqual(pieces, c.pieces);
    for (const p of pieces) assert.ok(countWords(p) <= c.max_words, p);
  });
}

test("the same paragraph measures about the same in German, Japanese, Chinese and Thai", () => {
  const counts = Object.values(DATA.paragraphs).map((p) => countWords(String(p)));
  assert.ok(Math.max(...counts) <= 1.25 * Math.min(...counts), String(counts));
});

for (const lang of ["de", "ja", "zh", "th"]) {
  test(`a long ${lang} page becomes passages within the limits, nothing lost`, () => {
    const para = DATA.paragraphs[lang];
    const body = `<article><p>${Array(6).fill(para).join(" ")}</p><p>${para}</p></article><section><p>${para}</p></section>`;
    const r = chunk(parse(`<!doctype html><html><body>${body}</body></html>`).body, { title: `page ${lang}` });
    const passages = r.passages.slice(1);
    assert.ok(passages.length >= 3, `${passages.length} passages`);
    for (const p of passages) {
      const n = countWords(p.text);
      assert.ok(n >= LIMITS.minWords && n <= LIMITS.maxWords, `${n} words: ${p.text.slice(0, 30)}`);
      assert.ok(p.text.length <= LIMITS.maxPassageChars);
    }
    assert.equal(bare(passages.map((p) => p.text).join("")), bare(Array(8).fill(para).join("")));
  });
}

test("a Japanese page of one 3,000-character paragraph is cut by words, not at maxPassageChars", () => {
  const para = DATA.paragraphs.ja.repeat(25);
  const r = chunk(parse(`<html><body><p>${para}</p></body></html>`).body);
  assert.ok(r.passages.length >= 5, `${r.passages.length} passages`);
  for (const p of r.passages) assert.ok(countWords(p.text) <= LIMITS.maxWords);
});
