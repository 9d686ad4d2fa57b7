import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "./helpers.mjs";

// panel/search.js with a linkedom document and a worker that answers when the test says.
const doc = parse(`<!doctype html><html><body>
  <input id="q"><p id="status"></p><ol id="results"></ol>
  <details id="less"><summary id="less-label"></summary><ol id="folded"></ol></details>
  <select id="range"><option value="any" selected>Any</option></select><input id="domain">
</body></html>`);
/** @type {{fields: any, resolve: (r: any) => void}[]} */
const calls = [];
Object.assign(globalThis, {
  document: doc,
  location: { href: "chrome-extension://ext-id/sidepanel.html" },
  requestAnimationFrame: (/** @type {() => void} */ f) => setTimeout(f, 0),
  chrome: {
    runtime: {
      id: "ext-id",
      sendMessage: (/** @type {any} */ fields) =>
        new Promise((resolve) => calls.push({ fields, resolve: (result) => resolve({ ok: true, result }) })),
    },
  },
});
const proto = Object.getPrototypeOf(doc.getElementById("results"));
proto.scrollIntoView ??= () => {};
const { createSearch } = await import("../panel/search.js");

const $ = (/** @type {string} */ id) => /** @type {any} */ (doc.getElementById(id));
/** @type {string[]} */
const searched = [];
createSearch(
  { q: $("q"), status: $("status"), results: $("results"), less: $("less"), lessLabel: $("less-label"),
    folded: $("folded"), range: $("range"), domain: $("domain") },
  { settings: () => ({ showScores: false }), mode: () => "hybrid", onQuery: () => {},
    onSearched: (q) => searched.push(q), onNotice: () => {}, onError: () => false, onAsk: () => {} },
);
const tick = (/** @type {number} */ ms = 10) => new Promise((r) => setTimeout(r, ms));
const hit = (/** @type {string} */ title) => ({ url: `https://example.org/${title}`, title, snippet: title, relevant: true });

function type(/** @type {string} */ text) {
  $("q").value = text;
  $("q").dispatchEvent(new doc.defaultView.Event("input"));
}

test("a search at each keystroke, one at a time; words typed meanwhile go next, measured to the paint", async () => {
  type("q");
  await tick();
  assert.deepEqual(calls.map((c) => c.fields.query), ["q"], "the first key searches at once");
  type("qu");
  type("quo");
  await tick();
  assert.equal(calls.length, 1, "no second search while one is under way");
  calls[0].resolve({ results: [hit("one")], took_ms: 7 });
  await tick();
  assert.equal($("results").children.length, 1, "its results are shown meanwhile");
  assert.deepEqual(calls.map((c) => c.fields.query), ["q", "quo"], "then the words typed since, once");
  calls[1].resolve({ results: [hit("two"), hit("three")], took_ms: 9 });
  await tick(20);
  assert.equal($("results").children.length, 2);
  // The measure comes at the frame after the paint: wait for it (a loaded machine is slow).
  for (let i = 0; i < 200 && performance.getEntriesByName("rewind:search").at(-1)?.detail.chars !== 3; i++) {
    await tick(10);
  }
  const kept = performance.getEntriesByName("rewind:search");
  assert.equal(kept.length, 1, "the paint of the results is measured, only the last kept");
  const last = /** @type {any} */ (kept[0]);
  assert.equal(last.detail.chars, 3);
  assert.equal(last.detail.results, 2);
  assert.equal(last.detail.host, 9);
  for (const k of ["wait", "roundTrip", "render", "paint"]) assert.ok(last.detail[k] >= 0, k);
  await tick(350);
  assert.deepEqual(searched, ["quo"], "onSearched (auto-answer) only once the typing paused");
});

test("Escape while a search is under way: the next words are searched at once", async () => {
  calls.length = 0;
  type("stale");
  await tick();
  assert.equal(calls.length, 1);
  $("q").dispatchEvent(Object.assign(new doc.defaultView.Event("keydown"), { key: "Escape" }));
  await tick();
  type("fresh");
  await tick();
  assert.deepEqual(calls.map((c) => c.fields.query), ["stale", "fresh"], "not held behind the stale one");
  calls[0].resolve({ results: [hit("old")], took_ms: 1 });
  calls[1].resolve({ results: [hit("new")], took_ms: 1 });
  await tick();
  assert.equal($("results").textContent.includes("new"), true);
  assert.equal($("results").textContent.includes("old"), false, "the stale reply is dropped");
});

test("a result card: its link and Forget button are siblings in a plain list item, both reached by Tab", async () => {
  calls.length = 0;
  type("cards");
  await tick();
  calls[0].resolve({ results: [hit("one"), hit("two")], took_ms: 1 });
  await tick();
  const cards = [...$("results").children];
  assert.equal(cards.length, 2);
  for (const li of cards) {
    assert.equal(li.tagName, "LI");
    assert.equal(li.getAttribute("role"), null, "no option role: it holds controls");
    const link = li.querySelector("a.title");
    const forget = li.querySelector("button.forget");
    assert.ok(link && forget);
    assert.equal(link.contains(forget) || forget.contains(link), false, "neither holds the other");
    assert.equal(link.getAttribute("tabindex"), null, "in the Tab order");
    assert.equal(forget.getAttribute("tabindex"), null);
    assert.equal(li.querySelectorAll("a, button").length, 2, "nothing else to focus in a card");
  }
  assert.equal(cards[0].getAttribute("aria-current"), "true", "Enter in the box opens the first");
  assert.equal(cards[1].getAttribute("aria-current"), null);
  assert.equal($("q").getAttribute("aria-activedescendant"), null, "typing is not interrupted");
  $("q").dispatchEvent(Object.assign(new doc.defaultView.Event("keydown"), { key: "ArrowDown" }));
  assert.equal(cards[1].getAttribute("aria-current"), "true");
  assert.equal(cards[0].getAttribute("aria-current"), null);
  assert.equal($("q").getAttribute("aria-activedescendant"), "result-1-link", "the box names the link");
  assert.equal(doc.getElementById("result-1-link"), cards[1].querySelector("a.title"));
});
