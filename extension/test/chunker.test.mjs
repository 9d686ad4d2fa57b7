import assert from "node:assert/strict";
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { RewindChunker, fixture, parse, words } from "./helpers.mjs";

const { chunk, LIMITS } = RewindChunker;

/** @param {string} body @param {object} [opts] */
function chunkBody(body, opts = {}) {
  return chunk(parse(`<!doctype html><html><body>${body}</body></html>`).body, opts);
}

/** @param {any[]} passages */
function assertWellFormed(passages) {
  assert.ok(passages.length <= LIMITS.maxPassages, `${passages.length} passages`);
  let last = -1;
  for (const p of passages) {
    assert.ok(p.position > last, "positions increase in document order");
    last = p.position;
    assert.ok(p.quality >= 0 && p.quality <= 1);
    if (p.position > 0) {
      assert.ok(words(p.text) >= LIMITS.minWords, `short passage: ${p.text}`);
      assert.ok(words(p.text) <= LIMITS.maxWords, `long passage: ${words(p.text)} words`);
    }
  }
}

test("article: title first, passages bounded, text from the article", () => {
  const doc = parse(fixture("article.html"));
  const r = chunk(doc.body, { title: doc.title });
  assertWellFormed(r.passages);
  assert.deepEqual(r.passages[0], { text: "Pruning neighbours in HNSW graphs | Vector Notes", position: 0, quality: 1 });
  const all = r.passages.map((p) => p.text).join("\n");
  assert.match(all, /RNG-pruning raised recall at ten from 0\.91 to 0\.97/);
  assert.match(all, /keepPrunedConnections fills any remaining slots/);
  assert.doesNotMatch(all, /dataLayer|gtag/, "script text is never read");
  assert.equal(r.truncated, false);
});

test("article: a heading starts a passage and the text under it joins it", () => {
  const doc = parse(fixture("article.html"));
  const { passages } = chunk(doc.body, { title: doc.title });
  const p = passages.find((x) => x.text.startsWith("Measured trade-off between recall and build time"));
  assert.ok(p, "a passage starts with the heading");
  assert.match(p.text, /^Measured trade-off between recall and build time\nOn the SIFT1M benchmark/);
});

test("article: navigation and boilerplate score below the article's prose", () => {
  const doc = parse(fixture("article.html"));
  const { passages } = chunk(doc.body, { title: doc.title });
  const prose = passages.find((p) => p.text.includes("Hierarchical Navigable Small World graphs"));
  const footer = passages.find((p) => p.text.includes("All rights reserved"));
  assert.ok(prose && footer);
  assert.ok(prose.quality >= 0.7, `prose quality ${prose.quality}`);
  assert.ok(footer.quality < 0.4, `footer quality ${footer.quality}`);
  assert.ok(!passages.some((p) => /^Home Archive Indexes/.test(p.text)), "a pure link menu is dropped");
});

test("nav-heavy page: teasers and menus never outrank the lead story", () => {
  const doc = parse(fixture("nav-heavy.html"));
  const { passages } = chunk(doc.body, { title: doc.title });
  assertWellFormed(passages);
  const lead = passages.find((p) => p.text.includes("protected cycle lanes"));
  assert.ok(lead);
  for (const p of passages) {
    if (p !== lead && p.position > 0) assert.ok(p.quality < lead.quality, `${p.text} (${p.quality})`);
  }
});

test("hostile page: script, hidden and inert content are never read; markup stays text", () => {
  const doc = parse(fixture("hostile.html"));
  const { passages } = chunk(doc.body, { title: doc.title });
  const all = passages.map((p) => p.text).join("\n");
  for (const secret of [
    "SECRET_TOKEN_IN_SCRIPT", "injected by script", "NOSCRIPT_TEXT", "TEMPLATE_TEXT", "HIDDEN_ATTR",
    "ARIA_HIDDEN", "DISPLAY_NONE", "VISIBILITY_HIDDEN", "SVG_TEXT", "IFRAME_TEXT", "TEXTAREA_TEXT",
  ]) {
    assert.ok(!all.includes(secret), `${secret} must not be indexed`);
  }
  assert.equal(passages[0].position, 0);
  assert.match(passages[0].text, /<script>alert\("title"\)<\/script>/, "the title's markup is kept as text");
  assert.match(all, /<img src=x onerror=alert\(2\)> A heading that looks like markup/);
  assert.match(all, /mentions <script>alert\(3\)<\/script> as text/);
});

test("inline elements join without spaces; blocks and <br> never glue words", () => {
  const { passages } = chunkBody(
    "<p>Hello <b>wor</b>ld, this is <a href='#'>one</a> sentence here.</p><p>Second paragraph has five words.</p><p>Line one of the poem<br>line two of the poem</p>",
  );
  assert.equal(passages.length, 1);
  assert.equal(
    passages[0].text,
    "Hello world, this is one sentence here.\nSecond paragraph has five words.\nLine one of the poem\nline two of the poem",
  );
});

test("section breaks are never crossed; neighbouring paragraphs merge up to 200 words", () => {
  const para = (n, w) => `<p>${Array.from({ length: w }, (_, i) => `w${n}x${i}`).join(" ")}.</p>`;
  const { passages } = chunkBody(
    `<div>${para(1, 30)}${para(2, 30)}</div><div>${para(3, 30)}</div><section>${para(4, 120)}${para(5, 120)}</section>`,
  );
  const texts = passages.map((p) => p.text);
  assert.equal(texts.length, 4);
  assert.match(texts[0], /^w1x0 .* w2x29\.$/s, "two paragraphs in one div merge");
  assert.match(texts[1], /^w3x0 /, "the next div starts a new passage");
  assert.match(texts[2], /^w4x0 .*w4x119\.$/s, "120 + 120 words do not fit in one passage");
  assert.match(texts[3], /^w5x0 /);
});

test("heading permalinks (Sphinx's ¶, # and §) are not text; links with words are", () => {
  const { passages } = chunkBody(
    `<h2>Why is Python installed on my machine?<a class="headerlink" href="#why" title="Permalink">¶</a></h2>` +
      `<p>If you find Python installed on your system but do not remember installing it, read on.</p>` +
      `<p>See <a href="#top">#</a> the notes in <a href="#s2">§ 2</a> for the other ways it arrives.</p>`,
  );
  const all = passages.map((p) => p.text).join("\n");
  assert.doesNotMatch(all, /¶/);
  assert.match(all, /^Why is Python installed on my machine\?\nIf you find Python/m);
  assert.match(all, /See the notes in § 2 for the other ways/);
});

test("a text node longer than 200 words is split, and short passages are dropped", () => {
  const long = Array.from({ length: 450 }, (_, i) => `word${i}`).join(" ");
  const r = chunkBody(`<div>${long}</div><div>too short here</div>`);
  assert.deepEqual(r.passages.map((p) => words(p.text)), [200, 200, 50]);
  assert.equal(r.dropped_short, 1);
});

test("more than 30 candidates: the best 29 are kept, in document order, beside the title", () => {
  const body = Array.from({ length: 80 }, (_, i) =>
    i % 2
      ? `<div><p>Paragraph ${i} has enough plain words to count as a proper passage of prose text here.</p></div>`
      : `<div><a href="/${i}">link ${i} one</a> <a href="/x">link two</a> <a href="/y">link three more</a> tail</div>`,
  ).join("");
  const { passages, candidates } = chunkBody(body, { title: "Many sections" });
  assert.ok(candidates > 30);
  assert.equal(passages.length, 30);
  assertWellFormed(passages);
  assert.ok(passages.slice(1).every((p) => p.text.startsWith("Paragraph")), "prose beats link lists");
});

test("a 10 MB wall of text: bounded work, at most 30 passages", () => {
  const wall = "lorem ipsum dolor sit amet consectetur ".repeat(270_000); // ~10.5 MB
  const doc = parse(`<!doctype html><html><body><div>${wall}</div><p>${wall}</p></body></html>`);
  const started = performance.now();
  const r = chunk(doc.body, { title: "Wall" });
  const ms = performance.now() - started;
  assert.ok(r.truncated);
  assert.ok(r.chars_read <= LIMITS.maxCharsRead);
  assertWellFormed(r.passages);
  console.log(`# 10 MB wall chunked in ${ms.toFixed(0)} ms (${r.chars_read} chars read)`);
});

test("many tiny nodes and deep nesting: capped, no stack overflow", () => {
  const many = "<span>a</span> ".repeat(40_000); // 80,000 nodes
  const r1 = chunkBody(`<div>${many}</div>`);
  assert.ok(r1.truncated);
  assert.ok(r1.nodes <= LIMITS.maxNodes + 1);
  const deep = "<div>".repeat(3000) + "deep text with enough words in it" + "</div>".repeat(3000);
  const r2 = chunkBody(deep);
  assert.ok(r2.truncated, "content deeper than maxDepth is ignored");
});

test("a custom isHidden hook (computed styles in the browser) is honoured", () => {
  const { passages } = chunkBody(
    "<div class='x'>visible text with five words</div><div class='gone'>hidden by a stylesheet rule here</div>",
    { isHidden: (el) => el.getAttribute("class") === "gone" },
  );
  assert.deepEqual(passages.map((p) => p.text), ["visible text with five words"]);
});

test("injecting the scripts twice is harmless (blocks, not top-level declarations)", async () => {
  const first = globalThis.RewindChunker;
  for (const name of ["units", "quality", "chunker"]) await import(`../content/${name}.js?again=${Date.now()}`);
  assert.notEqual(globalThis.RewindChunker, undefined);
  assert.equal(typeof globalThis.RewindChunker.chunk, "function");
  assert.equal(typeof globalThis.RewindQuality.passageQuality, "function");
  assert.equal(typeof globalThis.RewindUnits.countWords, "function");
  assert.ok(first);
});

test("words as the host counts them: Chinese and Japanese by characters (shared cases)", () => {
  const cases = JSON.parse(readFileSync(new URL("../../tests/data/word_count_cases.json", import.meta.url), "utf8"));
  for (const c of cases) assert.equal(RewindChunker.countWords(c.text), c.words, c.text);
});
