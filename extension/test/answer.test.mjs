import assert from "node:assert/strict";
import { test } from "node:test";
import {
  COULD_NOT_FIND, TIP_CHARS, answerParts, clip, closestPages, closestPassage, isCouldNotFind, sourceFor, sourcePassage,
} from "../lib/answer.js";

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
