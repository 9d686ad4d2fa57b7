/**
 * Options section "Better answers": the answering model in use, and the one that suits
 * this computer, one click away ("Better answers: Qwen2.5 1.5B, 1.1 GB, first words in
 * ~5 s here — Get it").
 *
 * Job: ask the helper (answer_models) which model answers and which it recommends, with
 * what it gains and costs; "Get it" downloads it through the "pull_model" port, with the
 * helper's progress frames as a bar, "Cancel" stops it (the helper keeps what came: "Get
 * it" again resumes), and when it is done the helper answers with it ("Use it" switches
 * to an installed one the same way).
 * Never: download without the person's click, or render the helper's text as HTML.
 */

import { answerOffer, pullProgress } from "../lib/answer-model.js";
import { h } from "../lib/dom.js";

/** @param {HTMLElement} _root @param {import("./page.js").Page} page */
export function mount(_root, page) {
  const { $ } = page;
  /** @type {{cancel: () => void}|null} */
  let pulling = null;

  /** @param {any} reply answer_models' answer */
  function render(reply) {
    const o = answerOffer(reply);
    $("answer-model-now").textContent = o.now;
    const offer = $("answer-model-offer");
    if (o.kind === "none") {
      offer.replaceChildren();
      return;
    }
    const button = o.button
      ? h("button", { id: "answer-model-get", type: "button", text: o.button, on: { click: () => pull(o.model, o.label) } })
      : null;
    offer.replaceChildren(
      h("p", { class: "offer" }, h("strong", { id: "answer-model-line", text: o.offer }), button ? " — " : null, button),
      o.gains.length || o.costs.length
        ? h("ul", { class: "help trade" },
            ...o.gains.map((g) => h("li", { text: `You gain: ${g}.` })),
            ...o.costs.map((c) => h("li", { text: `It costs: ${c}.` })))
        : null,
    );
    if (typeof reply?.source === "string" && reply.source !== "published") {
      $("answer-model-source").textContent = `Note: ${reply.source}.`; // a mirror (or a test host)
    }
    if (reply?.problem) page.msg("answer-model-msg", String(reply.problem), true);
  }

  async function load() {
    try {
      render(await page.call("answer_models"));
    } catch (err) {
      page.msg("answer-model-msg", page.errText(err), true);
    }
  }

  /** @param {boolean} on */
  function busy(on) {
    $("answer-model-progress").hidden = !on;
    $("answer-model-cancel").hidden = !on;
    const get = $("answer-model-get");
    if (get) get.disabled = on;
  }

  /** @param {string} model @param {string} label */
  async function pull(model, label) {
    if (pulling) return;
    page.msg("answer-model-msg", `Getting ${label}…`);
    const bar = $("answer-model-progress");
    bar.removeAttribute("value"); // indeterminate until the first frame
    busy(true);
    const run = page.stream("pull_model", { model }, (frame) => {
      const p = pullProgress(frame?.progress, label);
      if (p.share !== null) bar.value = p.share;
      page.msg("answer-model-msg", p.text);
    });
    pulling = run;
    try {
      const reply = await run.done;
      render(reply);
      page.msg("answer-model-msg", `Done: ${label} answers your questions from now on.`);
    } catch (err) {
      const e = /** @type {any} */ (err);
      page.msg("answer-model-msg", e?.code === "cancelled"
        ? `Stopped. What came so far is kept: “Get it” goes on from there.`
        : page.errText(err), e?.code !== "cancelled");
    } finally {
      pulling = null;
      busy(false);
    }
  }

  $("answer-model-cancel").addEventListener("click", () => pulling?.cancel());
  page.onLoad(() => {
    if (page.connected) load();
    else $("answer-model-now").textContent = "Connect Rewind's helper to choose the model that answers your questions.";
  });
}
