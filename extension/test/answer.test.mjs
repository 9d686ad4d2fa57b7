import assert from "node:assert/strict";
import { test } from "node:test";
import {
  COULD_NOT_FIND, TIP_CHARS, answerParts, clip, closestPages, closestPassage, isCouldNotFind, markIn, sourceFor,
  sourcePassage, tipParts,
} from "../lib/answer.js";
import { textFragmentUrl } from "../lib/format.js";

const VENV = "https://docs.example/tutorial/venv.html";
const SORT = "https://docs.example/howto/sorting.html";
const VENV_PASSAGE =
  "Python applications will often use packages and modules that don't come as part of the standard library.";
const SORT_PASSAGE = "Both list.sort() and sorted() have a key parameter to specify a function to be called.";

/** A final ask frame as PROTOCOL.md describes it (sources with passages[], citations with quote). */
function reply() {
  return {
    answer:
      "Applications need packages that are not in the standard library [Source 1]. " +
      "A virtual environment is a self-contained directory tree [Source 1]. " +
      "Sorting takes a key function [Source 2] [Source 1].",
    supported: true,
    thread_id: "t-7",
    sources: [
      { n: 1, kind: "history", url: VENV, title: "Virtual Environments", passage: "old passage field",
        passages: [{ text: VENV_PASSAGE, position: 2 }, { text: "second passage", position: 5 }] },
      { n: 2, kind: "history", url: SORT, title: "Sorting HOW TO", passage: SORT_PASSAGE },
    ],
    citations: [
      { sentence: "Applications need packages that are not in the standard library.", cited: [1], sources: [1],
        status: "ok", support: 0.8, best: 1, quote: "packages and modules that don't come as part of the standard library" },
      { sentence: "Something the checker left out.", cited: [2], sources: [], status: "unsupported", support: 0.1, best: null },
      { sentence: "A virtual environment is a self-contained directory tree.", cited: [2], sources: [1],
        status: "corrected", support: 0.7, best: 1, quote: "a self-contained directory tree that contains a Python installation" },
      { sentence: "Sorting takes a key function.", cited: [2, 1], sources: [2, 1], status: "ok", support: 0.6, best: 2,
        quote: "a key parameter to specify a function" },
    ],
  };
}

const cites = (/** @type {any[]} */ parts) => parts.filter((p) => "cite" in p);

test("each badge shows the quote of the citation behind its sentence", () => {
  const r = reply();
  const parts = cites(answerParts(r.answer, r.citations, r.sources));
  assert.deepEqual(parts.map((p) => p.cite), [1, 1, 2, 1]);
  assert.equal(parts[0].quote, "packages and modules that don't come as part of the standard library");
  assert.equal(parts[1].quote, "a self-contained directory tree that contains a Python installation");
  // Two sources on one sentence: the quote is its first source's (2); source 1's badge
  // falls back to source 1's own first passage.
  assert.equal(parts[2].quote, "a key parameter to specify a function");
  assert.equal(parts[3].quote, VENV_PASSAGE);
  assert.equal(parts[0].title, "Virtual Environments");
  // The link opens the cited page at the passage shown (a text fragment).
  assert.ok(parts[0].href.startsWith(`${VENV}#:~:text=`), parts[0].href);
  assert.ok(decodeURIComponent(parts[0].href).includes("packages and modules"));
  assert.ok(parts[2].href.startsWith(`${SORT}#:~:text=`));
  // The text around the badges is the answer's, untouched.
  const text = answerParts(r.answer, r.citations, r.sources).filter((p) => "text" in p).map((p) => p.text).join("|");
  assert.equal(text, "Applications need packages that are not in the standard library |. A virtual environment is a self-contained directory tree |. Sorting takes a key function | |.");
});

test("without quotes (an older host): the cited source's first passage, then its passage field", () => {
  const r = reply();
  for (const c of r.citations) delete c.quote;
  const parts = cites(answerParts(r.answer, r.citations, r.sources));
  assert.equal(parts[0].quote, VENV_PASSAGE); // passages[0].text
  assert.equal(parts[2].quote, SORT_PASSAGE); // no passages[]: passage
  const bare = cites(answerParts(r.answer, undefined, r.sources));
  assert.deepEqual(bare.map((p) => p.quote), [VENV_PASSAGE, VENV_PASSAGE, SORT_PASSAGE, VENV_PASSAGE]);
});

test("a citation whose sentence is not found in the answer is matched by its number, in order", () => {
  const citations = [{ sentence: "Reworded by the host.", sources: [2], best: 2, quote: "the key quote" }];
  const parts = cites(answerParts("Sorting uses keys [Source 2].", citations, reply().sources));
  assert.equal(parts[0].quote, "the key quote");
});

test("a badge citing a source that was not given has no tooltip and no link", () => {
  const r = reply();
  const [part] = cites(answerParts("Made up [Source 9].", r.citations, r.sources));
  assert.deepEqual([part.cite, part.source, part.quote, part.href, part.title], [9, null, "", "", "Source 9"]);
});

test("hostile page text stays a plain string in the tooltip", () => {
  const evil = '<img src=x onerror="alert(1)"> <script>alert(2)</script> real words here';
  const sources = [{ n: 1, url: "https://evil.example/p", title: "<b>Title</b>", passages: [{ text: evil, position: 0 }] }];
  const [part] = cites(answerParts("It does [Source 1].", [], sources));
  assert.equal(part.quote, evil);
  assert.equal(part.title, "<b>Title</b>");
  assert.ok(part.href.startsWith("https://evil.example/p#:~:text="));
});

test("long passages are clipped at a word for the tooltip", () => {
  const long = "word ".repeat(200);
  const out = clip(long);
  assert.ok(out.length <= TIP_CHARS, `${out.length}`);
  assert.ok(out.endsWith("word…"));
  assert.equal(clip("  short \n text "), "short text");
});

test("source lookup by n, else by position; passages preferred over passage", () => {
  const sources = [{ n: 3, url: "a" }, { url: "b" }];
  assert.equal(sourceFor(sources, 3).url, "a");
  assert.equal(sourceFor(sources, 2).url, "b");
  assert.equal(sourceFor(sources, 7), null);
  assert.equal(sourceFor(null, 1), null);
  assert.equal(sourcePassage({ passages: [{ text: " " }, { text: "second" }], passage: "p" }), "second");
  assert.equal(sourcePassage({ passages: "junk", passage: "p" }), "p");
  assert.equal(sourcePassage(null), "");
});

test("couldn't find: from supported:false, or from the words when a host leaves supported out", () => {
  assert.ok(isCouldNotFind({ supported: false, answer: COULD_NOT_FIND }));
  assert.ok(isCouldNotFind({ answer: `${COULD_NOT_FIND} The closest pages: “A” [Source 1].` }));
  assert.ok(!isCouldNotFind({ supported: true, answer: "It does [Source 1]." }));
  assert.ok(!isCouldNotFind({ answer: "It does [Source 1]." }));
  assert.ok(!isCouldNotFind(null));
  // `outcome` says it when the host gives it: a closest passage is not "couldn't find"
  assert.ok(!isCouldNotFind({ supported: false, outcome: "closest", answer: "The closest thing…" }));
  assert.ok(isCouldNotFind({ supported: false, outcome: "not_found", answer: COULD_NOT_FIND }));
});

test("a closest passage: its quote, page and a link to the passage; nothing without one", () => {
  const reply = { outcome: "closest", closest: { n: 2, url: SORT, title: "", quote: "… key functions …",
    passage: SORT_PASSAGE } };
  const c = closestPassage(reply);
  assert.equal(c?.n, 2);
  assert.equal(c?.title, SORT); // no title: the address stands in
  assert.equal(c?.quote, "… key functions …");
  assert.ok(c?.href.startsWith(`${SORT}#:~:text=`));
  assert.equal(closestPassage({ ...reply, outcome: "answer" }), null);
  assert.equal(closestPassage({ outcome: "closest", closest: { quote: " " } }), null);
  assert.equal(closestPassage({ outcome: "closest", closest: "<b>x</b>" }), null);
});

test("couldn't find: the closest pages are history sources as cards, once each, with their passage", () => {
  const sources = [
    { n: 1, kind: "tab", url: "https://tab.example/", title: "The tab", passage: "tab text" },
    { n: 2, kind: "history", url: VENV, title: "Virtual Environments", passages: [{ text: VENV_PASSAGE, position: 2 }],
      visited_at: 1763800000, visit_count: 2, dwell_s: 60 },
    { n: 3, kind: "history", url: VENV, title: "Virtual Environments", passage: "another passage of it" },
    { n: 4, url: SORT, title: "Sorting HOW TO", passage: SORT_PASSAGE },
  ];
  const pages = closestPages(sources);
  assert.deepEqual(pages.map((p) => p.url), [VENV, SORT]);
  assert.equal(pages[0].passage, VENV_PASSAGE);
  assert.equal(pages[0].snippet, VENV_PASSAGE);
  assert.equal(pages[0].visit_count, 2);
  assert.deepEqual(closestPages(undefined), []);
});

// A passage of the lighthouse page as the host packs it, and the sentence in it that backs
// the answer's sentence (the citation's `mark`, code points into `quote`).
const LIGHT = "https://site.example/lighthouse.html";
const LENS_PASSAGE =
  "Keepers polished the prisms every morning. Augustin Fresnel replaced one thick heavy lens with " +
  "concentric rings of glass prisms. The lens became lighter and the beam far brighter.";
const LENS_SENTENCE = "Augustin Fresnel replaced one thick heavy lens with concentric rings of glass prisms.";
const LENS_MARK = [LENS_PASSAGE.indexOf(LENS_SENTENCE), LENS_PASSAGE.indexOf(LENS_SENTENCE) + LENS_SENTENCE.length];
const LIGHT_SOURCES = [{ n: 1, kind: "history", url: LIGHT, title: "The Fresnel lens", passages: [{ text: LENS_PASSAGE }] }];

test("a reader quote (status quoted) is a cited sentence: text, then its badge", () => {
  const answer = `“${LENS_SENTENCE}” [Source 1] The lens became lighter [Source 1].`;
  const citations = [
    { sentence: `“${LENS_SENTENCE}”`, cited: [1], sources: [1], status: "quoted", quote: LENS_PASSAGE, mark: LENS_MARK },
    { sentence: "The lens became lighter.", cited: [1], sources: [1], status: "ok", quote: "The lens became lighter" },
  ];
  const parts = answerParts(answer, citations, LIGHT_SOURCES);
  assert.deepEqual(parts.map((p) => ("text" in p ? p.text : p.cite)),
    [`“${LENS_SENTENCE}” `, 1, " The lens became lighter ", 1, "."]);
  const [quoted, ok] = cites(parts);
  assert.equal(quoted.title, "The Fresnel lens");
  assert.equal(quoted.quote, LENS_PASSAGE, "its own citation's passage, not the next one's");
  assert.equal(quoted.marked, LENS_SENTENCE);
  assert.equal(ok.quote, "The lens became lighter");
  assert.equal(ok.marked, "", "no mark: the passage as before");
});

test("a mark: the tooltip's passage with the backing sentence marked, the link at that sentence", () => {
  const answer = "Fresnel used rings of glass prisms instead of one heavy lens [Source 1].";
  const citations = [{ sentence: "Fresnel used rings of glass prisms instead of one heavy lens.", cited: [1],
    sources: [1], status: "ok", quote: LENS_PASSAGE, mark: LENS_MARK }];
  const [part] = cites(answerParts(answer, citations, LIGHT_SOURCES));
  assert.deepEqual(part.tip, [
    { text: "Keepers polished the prisms every morning. ", mark: false },
    { text: LENS_SENTENCE, mark: true },
    { text: " The lens became lighter and the beam far brighter.", mark: false },
  ]);
  assert.equal(part.quote, LENS_PASSAGE);
  assert.equal(part.marked, LENS_SENTENCE);
  // The link goes to the marked sentence (not the passage's first words), on the same page.
  assert.equal(part.href, textFragmentUrl(LIGHT, LENS_SENTENCE));
  assert.ok(part.href.startsWith(`${LIGHT}#:~:text=Augustin%20Fresnel%20replaced`), part.href);
  assert.ok(decodeURIComponent(part.href).endsWith("rings of glass prisms."), part.href);
  assert.notEqual(part.href, textFragmentUrl(LIGHT, LENS_PASSAGE));
  // Without a mark (an older host): the whole passage, unmarked, and the link at it.
  const [old] = cites(answerParts(answer, [{ ...citations[0], mark: undefined }], LIGHT_SOURCES));
  assert.deepEqual(old.tip, [{ text: LENS_PASSAGE, mark: false }]);
  assert.equal(old.href, textFragmentUrl(LIGHT, LENS_PASSAGE));
  // The mark is an offset into the quote only, the quote of the sentence's first source:
  // the badge of its second source shows that source's own passage, unmarked.
  const sources = [{ n: 1, url: SORT, title: "Sorting", passage: SORT_PASSAGE }, { ...LIGHT_SOURCES[0], n: 2 }];
  const [first, second] = cites(answerParts("Two sources [Source 2] [Source 1].",
    [{ ...citations[0], sentence: "Two sources.", sources: [2, 1] }], sources));
  assert.deepEqual([first.cite, first.marked], [2, LENS_SENTENCE]);
  assert.deepEqual([second.cite, second.marked, second.quote], [1, "", SORT_PASSAGE]);
  assert.equal(second.href, textFragmentUrl(SORT, SORT_PASSAGE));
});

test("marks are code points, clamped, trimmed of spaces; junk is no mark", () => {
  const quote = "Emoji 😀 first.  Then the backing one.  ";
  const s = Array.from(quote).indexOf("T");
  assert.deepEqual(markIn([s - 2, s + 20], quote), [s, s + 20], "the spaces before it are not marked");
  assert.equal(Array.from(quote).slice(...markIn([s, 999], quote)).join(""), "Then the backing one.");
  for (const junk of [null, undefined, "0,5", [3], [5, 5], [9, 2], ["a", 4], [NaN, 4], [1, 2, 3], [-9, -1]]) {
    assert.equal(markIn(junk, quote), null, JSON.stringify(junk));
  }
  assert.deepEqual(markIn([-5, 5], quote), [0, 5], "clamped to the quote");
  assert.deepEqual(tipParts(quote, markIn([s, 999], quote)).map((p) => p.text),
    ["Emoji 😀 first. ", "Then the backing one."]);
});

test("a long passage is clipped around its mark, so the marked sentence stays in the tooltip", () => {
  const before = "Early words about other things. ".repeat(30);
  const after = " Later words about more things.".repeat(30);
  const passage = `${before}${LENS_SENTENCE}${after}`;
  const start = Array.from(before).length;
  const parts = tipParts(passage, markIn([start, start + LENS_SENTENCE.length], passage));
  assert.equal(parts.length, 3);
  assert.deepEqual(parts[1], { text: LENS_SENTENCE, mark: true });
  assert.ok(parts[0].text.startsWith("…") && !parts[0].mark, parts[0].text);
  assert.ok(parts[2].text.endsWith("…") && !parts[2].mark, parts[2].text);
  const total = parts.map((p) => p.text).join("").length;
  assert.ok(total <= TIP_CHARS && total > TIP_CHARS - 20, `${total}`);
  // A mark at the very end gets all the room before it; one longer than the tooltip is clipped.
  const end = Array.from(passage).length;
  const tail = tipParts(passage, markIn([end - 30, end], passage));
  assert.equal(tail.length, 2);
  assert.ok(tail[1].mark && !tail[0].mark);
  const tailChars = tail.map((p) => p.text).join("").length;
  assert.ok(tailChars <= TIP_CHARS && tailChars > TIP_CHARS - 20, `${tailChars}`);
  const huge = tipParts(passage, [0, Array.from(passage).length]);
  assert.equal(huge.length, 1);
  assert.ok(huge[0].mark && huge[0].text.length <= TIP_CHARS);
});
