import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "./helpers.mjs";

await import("../content/visible.js");
/** @type {any} */
const V = globalThis.RewindVisible;

/**
 * A stand-in for the browser's computed style and layout: a class name's style, as a
 * stylesheet rule would give it (linkedom computes no styles).
 * @type {Record<string, Record<string, string>>}
 */
const SHEET = {
  gone: { display: "none" },
  ghost: { visibility: "hidden" },
  shown: { visibility: "visible" },
  faded: { opacity: "0" },
  srOnly: { position: "absolute", overflow: "hidden", width: "1px" },
  offscreen: { position: "absolute" },
  collapsed: { contentVisibility: "hidden" },
  tiny: { overflow: "hidden", height: "0px" },
  card: { display: "block" },
};
const RECTS = {
  srOnly: { left: 0, top: 0, right: 1, bottom: 1, width: 1, height: 1 },
  offscreen: { left: -10000, top: 10, right: -9000, bottom: 30, width: 1000, height: 20 },
  tiny: { left: 0, top: 0, right: 500, bottom: 0, width: 500, height: 0 },
};

/** @param {any} el */
function classes(el) {
  return String(el.getAttribute("class") || "").split(/\s+/).filter(Boolean);
}
const env = {
  styleOf: (/** @type {any} */ el) => Object.assign({ display: "block", visibility: "" }, ...classes(el).map((c) => SHEET[c] || {})),
  rectOf: (/** @type {any} */ el) => classes(el).map((c) => /** @type {any} */ (RECTS)[c]).find(Boolean) || { left: 0, top: 0, right: 100, bottom: 100, width: 100, height: 100 },
  newDocument: () => parse("<!doctype html><html><head></head><body></body></html>"),
};

/** @param {string} body @param {object} [over] */
function seen(body, over = {}) {
  const doc = parse(`<!doctype html><html><head><title>T</title></head><body>${body}</body></html>`);
  const r = V.copy(doc, { ...env, ...over });
  return { ...r, text: String(r.doc.body.textContent).replace(/\s+/g, " ").trim(), page: doc };
}

test("hidden text never enters the copy; visible text does", () => {
  const r = seen(`<main><p>Visible words.</p>
    <p class="gone">STYLESHEET_HIDDEN</p>
    <p aria-hidden="true">ARIA_HIDDEN</p>
    <p class="faded">OPACITY_ZERO</p>
    <p class="srOnly">SCREEN_READER_ONLY</p>
    <div class="offscreen">OFF_SCREEN</div>
    <div class="tiny">ZERO_HEIGHT_CLIPPED</div>
    <div class="collapsed">CONTENT_VISIBILITY_HIDDEN</div>
    <template><p>TEMPLATE_TEXT</p></template>
    <details><summary>Summary shown</summary><p>CLOSED_DETAILS</p></details>
    <details open><summary>Open summary</summary><p>Open details text.</p></details>
  </main>`);
  assert.match(r.text, /Visible words\. .*Summary shown.*Open summary.*Open details text\./);
  assert.doesNotMatch(
    r.text,
    /STYLESHEET_HIDDEN|ARIA_HIDDEN|OPACITY_ZERO|SCREEN_READER_ONLY|OFF_SCREEN|ZERO_HEIGHT|CONTENT_VISIBILITY|TEMPLATE_TEXT|CLOSED_DETAILS/,
  );
  assert.ok(r.stats.hidden >= 6);
});

test("visibility is inherited but a child may show itself again", () => {
  const r = seen(`<div class="ghost">PARENT_HIDDEN <span class="shown">child shown</span></div>`);
  assert.equal(r.text, "child shown");
});

test("form fields and contenteditable drafts are never copied", () => {
  const r = seen(`<article><p>Article text.</p>
    <textarea>TEXTAREA_DRAFT</textarea><input value="INPUT_VALUE"><select><option>OPTION</option></select>
    <button>BUTTON_TEXT</button>
    <div contenteditable="true">Dear bank, my account 12345678 DRAFT</div>
    <div contenteditable><p>NESTED_DRAFT</p><div contenteditable="false">not editable inside</div></div>
  </article>`);
  assert.match(r.text, /Article text\./);
  assert.doesNotMatch(r.text, /TEXTAREA|INPUT_VALUE|OPTION|BUTTON_TEXT|DRAFT/);
});

test("an open shadow root's text is read instead of its host's light children", () => {
  const doc = parse(`<!doctype html><html><body><my-card class="card">LIGHT_FALLBACK</my-card><p>Outside.</p></body></html>`);
  const host = doc.querySelector("my-card");
  const root = host.attachShadow({ mode: "open" });
  root.innerHTML = "<p>Inside the shadow root.</p><p class='gone'>SHADOW_HIDDEN</p>";
  const r = V.copy(doc, env);
  const text = String(r.doc.body.textContent);
  assert.match(text, /Inside the shadow root\./);
  assert.match(text, /Outside\./);
  assert.doesNotMatch(text, /LIGHT_FALLBACK|SHADOW_HIDDEN/);
  assert.equal(r.stats.shadow_roots, 1);
  assert.equal(r.doc.body.firstChild.localName, "div", "a block custom element becomes a div");
});

test("the copy has structure and safe attributes only; the page is not touched", () => {
  const r = seen(`<main id="m" class="content" style="color:red" onclick="x()"><h2>Head</h2>
    <p>Text <a href="https://example.com/x" onclick="y()">link</a> <a href="javascript:alert(1)">js</a></p></main>`);
  const main = r.doc.querySelector("main");
  assert.equal(main.getAttribute("class"), "content");
  assert.equal(main.getAttribute("style"), null);
  assert.equal(main.getAttribute("onclick"), null);
  const links = [...r.doc.querySelectorAll("a")].map((a) => a.getAttribute("href"));
  assert.deepEqual(links, ["https://example.com/x", null]);
  assert.ok(r.page.querySelector("main").getAttribute("onclick"), "the live page keeps its own");
  assert.ok(r.doc !== r.page);
});

test("signals: a visible password, payment or one-time-code field in the page's content", () => {
  const sig = (/** @type {string} */ body) => seen(body).signals.map((/** @type {any} */ s) => [s.category, s.signal]);
  assert.deepEqual(sig(`<main><form><input name="user"><input type="password"></form></main>`), [["account", "password"]]);
  assert.deepEqual(sig(`<main><input autocomplete="cc-number"></main>`), [["finance", "payment"]]);
  assert.deepEqual(sig(`<main><input name="cvc"></main>`), [["finance", "payment"]]);
  assert.deepEqual(sig(`<main><input id="iban-field"></main>`), [["finance", "payment"]]);
  assert.deepEqual(sig(`<main><input autocomplete="one-time-code"></main>`), [["account", "one-time-code"]]);
  assert.deepEqual(sig(`<main><input type="password" class="gone"></main>`), [], "a hidden field is no signal");
  assert.deepEqual(sig(`<main><div class="ghost"><input type="password"></div></main>`), []);
  assert.deepEqual(sig(`<main><input type="hidden" name="cvc"><input name="company"></main>`), []);
  assert.deepEqual(sig(`<main><iframe title="Secure card payment input frame"></iframe></main>`), [["finance", "payment"]]);
});

test("a login box in the site's header or sidebar beside an article is not a signal", () => {
  const r = seen(`<header><form><input name="u"><input type="password"></form></header>
    <aside><input type="password"></aside>
    <main><article><h1>Online banking explained</h1><p>How banks let customers sign in.</p></article></main>`);
  assert.deepEqual(r.signals, []);
  assert.equal(r.stats.ignored_signals, 2);
  // An article's own <header> is not site chrome.
  const inArticle = seen(`<article><header><input type="password"></header><p>x</p></article>`);
  assert.equal(inArticle.signals.length, 1);
});

test("bounded: a walk past its node or time budget stops and says so", () => {
  const many = "<p>word</p>".repeat(5000);
  const byNodes = seen(many, { limits: { maxNodes: 1000 } });
  assert.ok(byNodes.stats.truncated);
  assert.ok(byNodes.stats.nodes <= 1001);
  let t = 0;
  const byTime = seen(many, { now: () => (t += 50), limits: { budgetMs: 60 } }); // time read every 16 nodes
  assert.ok(byTime.stats.truncated);
  assert.ok(byTime.stats.nodes < 1500);
});

test("sliced: the same copy as in one go, the page getting its thread back between slices", async () => {
  const body = `<main><h1>Title</h1>${"<p>Some visible words here.</p>".repeat(400)}<p class="gone">HIDDEN</p></main>`;
  const whole = seen(body);
  const doc = parse(`<!doctype html><html><head></head><body>${body}</body></html>`);
  let t = 0;
  let yields = 0;
  // A fake clock that moves 1 ms each time it is read (every 16 nodes): ~128 nodes a slice.
  const r = await V.copySliced(doc, { ...env, now: () => t++, limits: { sliceMs: 8, budgetMs: 1e9 }, yieldToPage: async () => void yields++ });
  assert.equal(String(r.doc.body.textContent).replace(/\s+/g, " ").trim(), whole.text);
  assert.ok(yields >= 5, `yielded ${yields} times`);
  assert.equal(r.stats.slices, yields + 1);
  assert.ok(!r.stats.truncated);
});

test("sliced: what the page removed while we yielded is left out; past the budget the walk stops", async () => {
  const doc = parse(`<!doctype html><html><head></head><body><p>kept words</p>${"<p>filler</p>".repeat(50)}<p id="late">REMOVED</p></body></html>`);
  let t = 0;
  const r = await V.copySliced(doc, {
    ...env, now: () => t++, limits: { sliceMs: 4, budgetMs: 1e9 },
    yieldToPage: async () => { doc.getElementById("late")?.remove(); },
  });
  const text = String(r.doc.body.textContent);
  assert.ok(text.includes("kept words") && !text.includes("REMOVED"));
  t = 0;
  const slow = await V.copySliced(doc, { ...env, now: () => (t += 100), limits: { sliceMs: 8, budgetMs: 500 }, yieldToPage: async () => {} });
  assert.equal(slow.stats.stopped_by, "time");
  assert.ok(slow.stats.truncated);
});
