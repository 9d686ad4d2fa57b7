import assert from "node:assert/strict";
import { test } from "node:test";
import { answerOffer, modelSize, pullProgress } from "../lib/answer-model.js";

const QWEN = { name: "qwen2.5-1.5b-instruct-q4_k_m", label: "Qwen2.5 1.5B", parameters_b: 1.54,
  file_bytes: 1117320736, first_words_s: 7.2, installed: false };
const SMOL = { name: "smollm2-135m-instruct-q8_0", label: "SmolLM2 135M", parameters_b: 0.135, installed: true };
const REPLY = { answer_model: SMOL.name, answer_label: SMOL.label, recommended: QWEN, installed: [SMOL],
  gains: ["600 tokens of your pages per answer instead of 300"], costs: ["a 1.12 GB download"] };

test("the offer: the recommended model, its size and its wait here, to get", () => {
  const o = answerOffer(REPLY);
  assert.equal(o.kind, "get");
  assert.equal(o.offer, "Better answers: Qwen2.5 1.5B, 1.1 GB, first words in ~7 s here");
  assert.equal(o.button, "Get it");
  assert.equal(o.now, "Answers now come from SmolLM2 135M.");
  assert.deepEqual(o.gains, REPLY.gains);
  assert.equal(o.model, QWEN.name);
});

test("installed already: use it; in use already: nothing to do", () => {
  const use = answerOffer({ ...REPLY, recommended: { ...QWEN, installed: true } });
  assert.equal(use.kind, "use");
  assert.equal(use.button, "Use it");
  assert.match(use.offer, /^Better answers: Qwen2.5 1.5B, installed, first words in ~7 s here$/);
  const current = answerOffer({ ...REPLY, answer_model: QWEN.name, answer_label: QWEN.label });
  assert.equal(current.kind, "current");
  assert.equal(current.button, "");
  assert.equal(current.now, "Answers now come from Qwen2.5 1.5B.");
});

test("a larger model in use: the recommended one is offered as suiting, not as better", () => {
  const big = { name: "gemma-3-4b-it-q4_k_m", label: "Gemma 3 4B", parameters_b: 3.88, installed: true };
  const o = answerOffer({ ...REPLY, answer_model: big.name, answer_label: big.label, installed: [SMOL, big] });
  assert.match(o.offer, /^Suits this computer better: Qwen2.5 1.5B/);
});

test("no model at all, or a reply without a recommendation", () => {
  const none = answerOffer({ answer_model: null, recommended: QWEN });
  assert.match(none.now, /answers are sentences picked from your pages/);
  assert.equal(none.kind, "get");
  assert.equal(answerOffer(null).kind, "none");
  assert.equal(answerOffer({ recommended: "<b>x</b>" }).kind, "none");
});

test("sizes and progress in words", () => {
  assert.equal(modelSize(1117320736), "1.1 GB");
  assert.equal(modelSize(312_400_000), "312 MB");
  assert.equal(modelSize(-1), "");
  assert.deepEqual(pullProgress({ all_done: 312_400_000, all_total: 1117320736 }, "Qwen2.5 1.5B"),
    { text: "Downloading Qwen2.5 1.5B: 312 MB of 1.1 GB (27 %)", share: 312_400_000 / 1117320736 });
  assert.equal(pullProgress({ done: 5e6, total: null }, "X").share, null);
  assert.equal(pullProgress({}, "X").text, "Downloading X…");
});
