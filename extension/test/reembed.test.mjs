import assert from "node:assert/strict";
import { test } from "node:test";
import { parseHTML } from "linkedom";

// lib/reembed.js builds elements with lib/dom.js: give it a document (linkedom).
const { document: doc } = parseHTML("<!doctype html><html><body></body></html>");
Object.assign(globalThis, { document: doc });
const { modelChoices, modelChooser, reembedLine, reembedView, timeLeft } = await import("../lib/reembed.js");

const running = { model: "all-minilm-l6-v2-int8@256", state: "running", done: 912, total: 2210, percent: 41.3, eta_s: 7300 };

test("the job in words: model, percent, time left", () => {
  assert.equal(reembedLine(running)?.text,
    "Re-embedding with all-minilm-l6-v2-int8 at 256 dimensions: 41 % — about 2 h left");
  assert.equal(reembedLine({ ...running, eta_s: 240 })?.text.endsWith("about 4 min left"), true);
  assert.equal(reembedLine({ ...running, eta_s: null })?.text,
    "Re-embedding with all-minilm-l6-v2-int8 at 256 dimensions: 41 %");
  assert.equal(reembedLine({ ...running, state: "paused" })?.text,
    "Re-embedding with all-minilm-l6-v2-int8 at 256 dimensions paused at 41 %");
  assert.match(String(reembedLine({ state: "failed", problem: "model gone" })?.text), /stopped: model gone/);
  assert.equal(reembedLine(null), null);
  assert.equal(timeLeft(30), "less than 2 min left");
  assert.equal(timeLeft(undefined), "");
});

test("a running job offers pause and cancel; a paused one resume and cancel", () => {
  const acts = [];
  const view = reembedView(running, (a) => acts.push(a));
  const ids = [...view.querySelectorAll("button")].map((b) => b.id);
  assert.deepEqual(ids, ["reembed-pause", "reembed-cancel"]);
  view.querySelector("#reembed-cancel").dispatchEvent(new doc.defaultView.Event("click"));
  assert.deepEqual(acts, ["cancel"]);
  const paused = reembedView({ ...running, state: "paused" }, () => {});
  assert.deepEqual([...paused.querySelectorAll("button")].map((b) => b.id), ["reembed-resume", "reembed-cancel"]);
  assert.equal(paused.querySelector("progress").getAttribute("value"), "41.3");
});

test("host text stays text", () => {
  const view = reembedView({ ...running, model: "<img src=x onerror=alert(1)>@256" }, () => {});
  assert.equal(view.querySelector("img"), null);
  assert.match(view.textContent, /<img src=x/);
});

test("the options page lists the other installed models and dimensions", () => {
  const models = [{ name: "all-minilm-l6-v2-int8", dims: [384, 256, 128] }];
  assert.deepEqual(modelChoices(models).map((c) => c.value),
    ["all-minilm-l6-v2-int8@384", "all-minilm-l6-v2-int8@256", "all-minilm-l6-v2-int8@128"]);
  const started = [];
  const el = modelChooser({ embedding_model: "all-minilm-l6-v2-int8@384", models, reembed: null },
    (m, d) => started.push([m, d]));
  const options = [...el.querySelectorAll("option")].map((o) => o.getAttribute("value"));
  assert.deepEqual(options, ["all-minilm-l6-v2-int8@256", "all-minilm-l6-v2-int8@128"]);
  el.querySelector("#model-switch").dispatchEvent(new doc.defaultView.Event("click"));
  assert.deepEqual(started, [["all-minilm-l6-v2-int8", 256]]);
  const busy = modelChooser({ embedding_model: "x@1", models, reembed: running }, () => {});
  assert.equal(busy.querySelector("#model-switch").hasAttribute("disabled"), true);
  const none = modelChooser({ embedding_model: "all-minilm-l6-v2-int8@384", models: [{ name: "all-minilm-l6-v2-int8", dims: [384] }] }, () => {});
  assert.match(none.textContent, /No other embedding model/);
});
