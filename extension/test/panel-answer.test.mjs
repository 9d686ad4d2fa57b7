import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "./helpers.mjs";

// panel/answer.js builds elements with lib/dom.js: give it a document (linkedom) and a page URL.
const doc = parse("<!doctype html><html><body></body></html>");
Object.assign(globalThis, { document: doc, location: { href: "chrome-extension://ext-id/sidepanel.html" } });
const { answerBody, closestBody, closestList } = await import("../panel/answer.js");
const { closestPassage } = await import("../lib/answer.js");
const { textFragmentUrl } = await import("../lib/format.js");

const EVIL = '<img src=x onerror="alert(1)">Quokkaflux counts <b>marsupials</b> by moonlight.';
const SOURCES = [{ n: 1, kind: "history", url: "https://evil.example/q", title: "<script>x</script>Quokka",
  passages: [{ text: EVIL, position: 1 }] }];

test("each badge is described by a tooltip holding its passage as text", () => {
  const { answer, tips } = answerBody("They count by moonlight [Source 1]. Made up [Source 4].", [], SOURCES, "t0");
  const [badge] = answer.querySelectorAll("a.cite");
  const tip = tips.querySelector(`#${badge.getAttribute("aria-describedby")}`);
  assert.ok(tip, "the badge names its tooltip");
  assert.equal(tip.getAttribute("role"), "tooltip");
  assert.ok(tip.hasAttribute("hidden"), "closed until hover or focus");
  assert.equal(tip.querySelector(".quote").textContent, EVIL);
  assert.equal(tip.querySelectorAll("img, b, script").length, 0, "page text made no elements");
  assert.equal(badge.getAttribute("aria-label"), "Source 1: <script>x</script>Quokka");
  assert.ok(badge.getAttribute("href").startsWith("https://evil.example/q#:~:text="));
  // A number the reply listed no source for: a plain badge, no link, no tooltip.
  assert.equal(answer.querySelectorAll("span.cite").length, 1);
  assert.equal(tips.children.length, 1);
  // The answer holds text and badges only.
  assert.equal(answer.textContent, "They count by moonlight 1. Made up 4.");
  assert.equal([...answer.children].filter((c) => !c.classList.contains("cite")).length, 0);
});

test("couldn't find: the closest pages are result cards, with hostile titles as text", () => {
  const section = closestList(SOURCES);
  const cards = section.querySelectorAll("li.result");
  assert.equal(cards.length, 1);
  assert.equal(cards[0].querySelector(".title").textContent, "<script>x</script>Quokka");
  assert.equal(section.querySelectorAll("script, img, b").length, 0);
  assert.equal(closestList([{ n: 1, kind: "tab", url: "https://tab.example/" }]), null);
});

test("a closest passage: the lead, the quote and the link, hostile page text as text", () => {
  const c = closestPassage({ outcome: "closest", closest: { n: 1, url: "https://evil.example/q",
    title: "<script>x</script>Quokka", quote: EVIL, passage: EVIL } });
  assert.ok(c);
  const el = closestBody(/** @type {any} */ (c));
  assert.equal(el.querySelectorAll("script, img, b").length, 0, "page text made no elements");
  assert.equal(el.querySelector(".quote").textContent, `“${EVIL}”`);
  assert.ok(el.textContent.startsWith("The closest thing you read — <script>x</script>Quokka:"));
  assert.match(el.textContent, /Not an answer: nothing you read backs one\./);
  const links = el.querySelectorAll("a");
  assert.equal(links.length, 2);
  for (const a of links) assert.ok(a.getAttribute("href").startsWith("https://evil.example/q#:~:text="));
  assert.equal(el.querySelector("a.cite").getAttribute("aria-label"), "Source 1: <script>x</script>Quokka");
});

test("a marked citation: the tooltip marks the backing sentence with <mark>, as text; the link goes to it", () => {
  const backing = '<b>Marsupials</b> are counted at dawn <img src=x onerror="alert(3)">.';
  const quote = `Rangers walk the path. ${backing} The book is waterproof.`;
  const start = Array.from(quote).indexOf("<");
  const mark = [start, start + Array.from(backing).length];
  const citations = [{ sentence: "Quokkas are counted at dawn.", cited: [1], sources: [1], status: "quoted", quote, mark }];
  const { answer, tips } = answerBody("“Quokkas are counted at dawn.” [Source 1]", citations, SOURCES, "t1");
  const badge = answer.querySelector("a.cite");
  assert.ok(badge, "a reader quote gets its badge");
  assert.equal(answer.textContent, "“Quokkas are counted at dawn.” 1");
  const tip = tips.querySelector(`#${badge.getAttribute("aria-describedby")}`);
  const marks = tip.querySelectorAll(".quote mark");
  assert.equal(marks.length, 1);
  assert.equal(marks[0].textContent, backing);
  assert.equal(tip.querySelector(".quote").textContent, quote.trim());
  assert.equal(tip.querySelectorAll("img, b, script").length, 0, "page text made no elements");
  assert.match(tip.textContent, /open the page at the marked words/);
  assert.equal(badge.getAttribute("href"), textFragmentUrl("https://evil.example/q", backing));
  // An older host (no mark): no <mark>, the link at the passage.
  const old = answerBody("“Quokkas are counted at dawn.” [Source 1]", [{ ...citations[0], mark: null }], SOURCES, "t2");
  assert.equal(old.tips.querySelectorAll("mark").length, 0);
  assert.equal(old.answer.querySelector("a.cite").getAttribute("href"), textFragmentUrl("https://evil.example/q", quote));
});
