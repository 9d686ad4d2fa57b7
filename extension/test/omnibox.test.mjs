import assert from "node:assert/strict";
import { test } from "node:test";
import { destination, escapeXml, suggestions } from "../background/omnibox.js";

test("a hostile title stays text in the address bar's XML", () => {
  assert.equal(escapeXml(`<url>x</url> & "it's"\u0007`), "&lt;url&gt;x&lt;/url&gt; &amp; &quot;it&apos;s&quot; ");
});

test("suggestions are the pages found, once each, web pages only, marked when not read", async () => {
  const asked = [];
  const native = {
    request: async (/** @type {string} */ type, /** @type {any} */ fields) => {
      asked.push([type, fields]);
      return { results: [
        { url: "https://a.example/tides", title: "Tides <b>late</b>", read: false },
        { url: "https://a.example/tides", title: "again" },
        { url: "javascript:alert(1)", title: "no" },
        { url: "https://b.example/", title: "" },
      ] };
    },
  };
  const got = await suggestions(native, "  tides ");
  assert.deepEqual(asked, [["search", { query: "tides", limit: 6 }]]);
  assert.deepEqual(got, [
    { content: "https://a.example/tides", description: "<match>Tides &lt;b&gt;late&lt;/b&gt;</match> <dim>a.example/tides · visited, not read</dim>" },
    { content: "https://b.example/", description: "<match>b.example</match> <dim>b.example</dim>" },
  ]);
  assert.deepEqual(await suggestions(native, "   "), []);
});

test("Enter opens a suggested page, or the side panel's page searching the words", () => {
  assert.equal(destination("https://a.example/tides", "chrome-extension://x/sidepanel.html"), "https://a.example/tides");
  assert.equal(destination("tides & moon", "chrome-extension://x/sidepanel.html"), "chrome-extension://x/sidepanel.html?q=tides%20%26%20moon");
  assert.equal(destination("javascript:alert(1)", "p.html"), "p.html?q=javascript%3Aalert(1)");
});
