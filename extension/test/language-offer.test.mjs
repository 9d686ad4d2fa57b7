import assert from "node:assert/strict";
import { test } from "node:test";
import { parseHTML } from "linkedom";

const { document } = parseHTML("<!doctype html><html><body></body></html>");
globalThis.document = document;
const { languageOffer, offerKey } = await import("../lib/language-offer.js");

const languages = {
  pages: { en: 6, de: 3, ja: 3 },
  offer: { model: "multilingual-e5-small", dim: 384, share: 0.5, languages: ["de", "ja"],
           text: "50 % of your pages are in German or Japanese: search them by meaning too with the multilingual model.",
           cost: "Everything you have read is embedded again in the background (12 pages)." },
};

test("the offer says the share and languages as text and starts nothing by itself", () => {
  const started = [];
  const el = languageOffer(languages, { start: (m, d) => started.push([m, d]), dismiss: () => {} });
  assert.ok(el);
  assert.match(el.textContent, /50 % of your pages are in German or Japanese/);
  assert.deepEqual(started, []);
  el.querySelector("#language-offer-use").dispatchEvent(new document.defaultView.Event("click"));
  assert.deepEqual(started, [["multilingual-e5-small", 384]]);
});

test("host text is never HTML", () => {
  const evil = { offer: { ...languages.offer, text: "<img src=x onerror=alert(1)>" } };
  const el = languageOffer(evil, { start: () => {}, dismiss: () => {} });
  assert.equal(el.querySelector("img"), null);
  assert.match(el.textContent, /<img/);
});

test("no offer: none, dismissed, or a job running", () => {
  const opts = { start: () => {}, dismiss: () => {} };
  assert.equal(languageOffer({ pages: {}, offer: null }, opts), null);
  assert.equal(languageOffer(languages, { ...opts, dismissed: offerKey(languages.offer) }), null);
  assert.ok(languageOffer(languages, { ...opts, dismissed: "de" }), "a new language: offered again");
  assert.equal(languageOffer(languages, { ...opts, job: { state: "running" } }), null);
});
