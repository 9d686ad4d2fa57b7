import assert from "node:assert/strict";
import { test } from "node:test";
import { Readability, RewindExtract, fixture, isProbablyReaderable, parse } from "./helpers.mjs";

const env = { Readability, isProbablyReaderable };

test("an article goes through Readability: no site chrome in the passages", () => {
  const doc = parse(fixture("article.html"));
  const r = RewindExtract.extractFrom(doc, env);
  assert.equal(r.method, "readability");
  assert.equal(r.title, "Pruning neighbours in HNSW graphs | Vector Notes");
  assert.equal(r.lang, "en");
  const all = r.passages.map((p) => p.text).join("\n");
  assert.match(all, /RNG-pruning raised recall/);
  assert.doesNotMatch(all, /All rights reserved|Skip to main content|We use cookies/);
  assert.ok(r.passages.length >= 4);
});

test("Readability leaves the page itself untouched (it works on a clone)", () => {
  const doc = parse(fixture("article.html"));
  const before = doc.body.innerHTML;
  RewindExtract.extractFrom(doc, env);
  assert.equal(doc.body.innerHTML, before);
});

test("a page that is not an article falls back to the heuristics", () => {
  const doc = parse(fixture("nav-heavy.html"));
  const r = RewindExtract.extractFrom(doc, env);
  assert.equal(r.method, "fallback");
  assert.ok(r.passages.some((p) => p.text.includes("protected cycle lanes")));
});

test("main is preferred over body in the fallback; hostile text stays data", () => {
  const doc = parse(fixture("hostile.html"));
  const r = RewindExtract.extractFrom(doc, env);
  const all = r.passages.map((p) => p.text).join("\n");
  assert.doesNotMatch(all, /HIDDEN_ATTR|SECRET_TOKEN|NOSCRIPT_TEXT/);
  assert.match(all, /<script>alert\(3\)<\/script>/);
});

test("without Readability (vendor/ not built) extraction still works", () => {
  const doc = parse(fixture("article.html"));
  const r = RewindExtract.extractFrom(doc, {});
  assert.equal(r.method, "fallback");
  assert.match(r.passages.map((p) => p.text).join("\n"), /RNG-pruning raised recall/);
});

test("a 10 MB page skips Readability and stays bounded", () => {
  const wall = "alpha beta gamma delta epsilon ".repeat(340_000);
  const doc = parse(`<!doctype html><html><head><title>Wall</title></head><body><article><p>${wall}</p></article></body></html>`);
  const r = RewindExtract.extractFrom(doc, env);
  assert.equal(r.method, "fallback");
  assert.ok(r.stats.truncated);
  assert.ok(r.passages.length <= 30);
});

test("the title falls back to og:title, then the first h1", () => {
  const og = parse('<html><head><meta property="og:title" content="From OG"></head><body><h1>H</h1></body></html>');
  assert.equal(RewindExtract.pageTitle(og), "From OG");
  const h1 = parse("<html><head></head><body><h1>  From   the heading </h1></body></html>");
  assert.equal(RewindExtract.pageTitle(h1), "From the heading");
});

test("redactAll masks every passage, counts by kind and keeps passages within the limit", () => {
  const fake = { redact: (/** @type {string} */ t) => ({ text: t.replace(/\S+@\S+/g, "[email]"), counts: { email: (t.match(/@/g) || []).length } }) };
  const passages = [
    { text: "Write to a@b.co today", position: 0, quality: 1 },
    { text: "x@y.io", position: 1, quality: 0.5 },
  ];
  const r = RewindExtract.redactAll(passages, fake, 6);
  assert.deepEqual(r.passages.map((/** @type {any} */ p) => p.text), ["Write ", "[email"]);
  assert.deepEqual(r.counts, { email: 2 });
  assert.deepEqual(r.passages.map((/** @type {any} */ p) => p.position), [0, 1]);
  const plain = RewindExtract.redactAll(passages, { redact: (/** @type {string} */ t) => t.toUpperCase() }, 100);
  assert.equal(plain.passages[0].text, "WRITE TO A@B.CO TODAY", "a redactor may return a plain string");
});
