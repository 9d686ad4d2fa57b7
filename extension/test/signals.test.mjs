import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "./helpers.mjs";

await import("../content/signals.js");
/** @type {any} */
const S = globalThis.RewindSignals;

const APP = `<!doctype html><html lang="de"><head>
  <meta name="application-name" content="Nextcloud"><meta name="generator" content="Nextcloud 29">
  <link rel="manifest" href="/manifest.json"></head><body>
  <header><nav><a href="/apps/files">Dateien</a><span>Hallo, Anna</span>
    <button aria-label="Einstellungsmenü"><img alt="Anna Weber" src="a.png"></button>
    <a href="/index.php/logout?requesttoken=Zx9">Abmelden</a></nav></header>
  <main><ul><li>Reisepass.pdf 2,4 MB</li></ul><textarea></textarea>
  <div contenteditable="true"></div><input type="submit" value="Hochladen"></main></body></html>`;

test("what a signed-in app page says of itself", () => {
  const s = S.collect(parse(APP));
  assert.equal(s.lang, "de");
  assert.deepEqual(s.app, ["Nextcloud", "Nextcloud 29"]);
  assert.equal(s.manifest, true);
  assert.equal(s.editors, 2);
  for (const c of ["Dateien", "Abmelden", "Einstellungsmenü", "Anna Weber", "Hochladen", "href:files", "href:logout", "Hallo, Anna"]) {
    assert.ok(s.controls.includes(c), c);
  }
  assert.ok(!s.controls.some((/** @type {string} */ c) => c.includes("Zx9")), "a token in a query is not a word");
  assert.ok(!s.controls.includes("Reisepass.pdf 2,4 MB"), "content is not a control");
});

test("a link's last path segment and its word-like query values", () => {
  assert.deepEqual(S.hrefWords("/index.php/logout?requesttoken=abc123"), ["logout"]);
  assert.deepEqual(S.hrefWords("https://blog.example/wp-login.php?action=logout&_wpnonce=9f8e7d"), ["wp-login", "logout"]);
  assert.deepEqual(S.hrefWords("/"), []);
  assert.deepEqual(S.hrefWords("javascript:void(0)"), []);
});

test("an article page for a visitor: a sign-in link, no app, no manifest", () => {
  const s = S.collect(parse(`<html><body><header><a href="/login">Log in</a></header>
    <article><h1>Otters</h1><p>River otters hunt at dusk.</p></article></body></html>`));
  assert.deepEqual([s.lang, s.app, s.manifest, s.editors], ["", [], false, 0]);
  assert.deepEqual(s.controls, ["Log in", "href:login"]);
});

test("hostile pages: bounded however many controls and however long", () => {
  const links = Array.from({ length: 5000 }, (_, i) => `<a href="/p${i}">link number ${i}</a>`).join("");
  const long = `<button>${"x".repeat(10_000)}</button>`;
  const s = S.collect(parse(`<html><body>${long}${links}</body></html>`));
  assert.equal(s.controls.length, S.LIMITS.controls);
  assert.ok(s.controls.every((/** @type {string} */ c) => c.length <= S.LIMITS.chars));
});
