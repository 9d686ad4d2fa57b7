/**
 * The side panel's answers: a thread of questions and answers above the results.
 *
 * Job: ask through the worker's "ask" port (background/ports.js), stream each answer in
 * (checked sentences only, under "Checking against your pages…" in the polite live
 * region #ask-status), replace it with the checked answer when the final frame comes and
 * say it once in words in the polite live region #ask-announce (lib/thread.js announcement),
 * show it as a conversation (lib/thread.js holds the state), let the person stop it, and
 * send follow-ups in the same thread (with the previous answer's `thread_id`).
 * Never: render model or page text as HTML (panel/answer.js), or keep a port open once
 * an answer has ended.
 */

import { connectPort } from "../lib/client.js";
import { Msg, isEnd } from "../lib/port-messages.js";
import { h } from "../lib/dom.js";
import { announcement, apply, ask, askAgain, isRunning, lastTurn, newThread, stop } from "../lib/thread.js";
import { answerBody, closestBody, closestList, sourceList } from "./answer.js";

/**
 * @typedef {{
 *   section: HTMLElement, turns: HTMLElement, status: HTMLElement, announce: HTMLElement,
 *   followForm: HTMLFormElement, followBox: HTMLTextAreaElement,
 *   followButton: HTMLButtonElement, stopButton: HTMLButtonElement,
 *   askButton: HTMLButtonElement, includeTab: HTMLInputElement,
 * }} ThreadElements
 * @typedef {{onHostError: () => void}} ThreadHooks
 */

/** @param {ThreadElements} els @param {ThreadHooks} hooks */
export function createThread(els, hooks) {
  let thread = newThread();
  let generation = 0; // numbers turns across threads, for unique tooltip ids
  /** @type {chrome.runtime.Port|null} */
  let port = null;
  /** @type {import("../lib/thread.js").Turn|null} the last turn said in #ask-announce */
  let announced = null;

  /** @param {import("../lib/thread.js").Turn} turn @param {number} i */
  function turnItem(turn, i) {
    const id = `turn-${generation}-${i}`;
    const body = turn.closest
      ? { answer: closestBody(turn.closest), tips: null }
      : answerBody(turn.answer, turn.citations, turn.sources, id);
    if (turn.notFound) body.answer.classList.add("not-found");
    const done = turn.state !== "asking" && turn.state !== "answering";
    return h(
      "li",
      // data-thread: the host's thread this answer came in (tests compare follow-ups).
      { class: "turn", id, dataset: turn.threadId ? { state: turn.state, thread: turn.threadId } : { state: turn.state } },
      h("p", { class: "question" }, h("span", { class: "visually-hidden", text: "You asked: " }), turn.question),
      body.answer,
      body.tips,
      turn.notFound ? closestList(turn.sources) : null,
      !turn.notFound && !turn.closest && turn.sources.length && (done || turn.answer) ? sourceList(turn.sources) : null,
      turn.cutOff && done
        ? h("button", { class: "ask-again", type: "button", text: "Ask again", on: { click: () => again() } })
        : null,
    );
  }

  /** Draw the last turn again (earlier ones do not change), and the controls. */
  function render() {
    const running = isRunning(thread);
    els.section.hidden = thread.turns.length === 0;
    const i = thread.turns.length - 1;
    const last = lastTurn(thread);
    if (last) {
      const item = turnItem(last, i);
      const old = els.turns.children[i];
      if (old) old.replaceWith(item);
      else els.turns.append(item);
    }
    while (els.turns.children.length > thread.turns.length) els.turns.lastElementChild?.remove();
    // The status is a polite live region: written again with the same words at each
    // checked sentence, a screen reader would say "Checking against your pages…" each time.
    const status = last?.status ?? "";
    if (els.status.textContent !== status) els.status.textContent = status;
    // The checked answer, said once when it is there (not sentence by sentence as it streams).
    const said = announcement(last);
    if (last && last !== announced && said) {
      announced = last;
      els.announce.textContent = said;
    }
    els.section.setAttribute("aria-busy", running ? "true" : "false");
    els.askButton.disabled = running;
    els.followButton.disabled = running;
    els.stopButton.disabled = !running;
    els.followForm.hidden = thread.turns.length === 0;
  }

  function closePort() {
    const p = port;
    port = null;
    try {
      p?.disconnect();
    } catch {
      // already closed
    }
  }

  /** @param {import("../lib/thread.js").AskStart} msg */
  function send(msg) {
    const p = connectPort("ask");
    if (!p) {
      stop(thread, "Not connected: open this panel from the Rewind extension.");
      render();
      return;
    }
    port = p;
    p.onMessage.addListener((m) => {
      if (p !== port) return; // a stopped answer's late frames
      if (!apply(thread, m)) return;
      if (isEnd(m)) closePort();
      if (m.type === Msg.ERROR && ["host_missing", "host_forbidden"].includes(m.error?.code)) hooks.onHostError();
      render();
    });
    p.onDisconnect.addListener(() => {
      if (p !== port) return;
      port = null;
      if (stop(thread, "The answer was cut off: Rewind went away before it ended.", { cutOff: true })) render();
    });
    render();
    p.postMessage(msg);
  }

  /** Stop the answer under way. @param {boolean} announce */
  function stopAnswer(announce) {
    if (port) {
      try {
        port.postMessage({ type: Msg.STOP });
      } catch {
        // the worker cancels on disconnect as well
      }
      closePort();
    }
    if (stop(thread, announce ? "Stopped." : "") || announce) render();
  }

  /** A new question: a new thread. @param {string} question */
  function start(question) {
    if (!question.trim()) {
      els.status.textContent = "Type a question first.";
      return;
    }
    stopAnswer(false);
    thread = newThread();
    generation++;
    els.turns.replaceChildren();
    els.announce.textContent = "";
    send(ask(thread, question, { includeTab: els.includeTab.checked }));
  }

  /** A question in the same thread. @param {string} question */
  function followUp(question) {
    if (!question.trim() || isRunning(thread)) return;
    els.followBox.value = "";
    els.announce.textContent = "";
    send(ask(thread, question, { includeTab: els.includeTab.checked }));
  }

  /** The last answer, cut off, asked again. */
  function again() {
    const msg = askAgain(thread, { includeTab: els.includeTab.checked });
    if (msg) send(msg);
  }

  /** Take the thread away (the words searched are no longer its question). */
  function clear() {
    stopAnswer(false);
    thread = newThread();
    els.turns.replaceChildren();
    els.announce.textContent = "";
    render();
  }

  els.followForm.addEventListener("submit", (ev) => {
    ev.preventDefault();
    followUp(els.followBox.value);
  });
  els.followBox.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) {
      ev.preventDefault();
      followUp(els.followBox.value);
    } else if (ev.key === "Escape" && port) {
      ev.preventDefault();
      stopAnswer(true);
    }
  });
  els.stopButton.addEventListener("click", () => stopAnswer(true));
  render();

  return {
    start,
    followUp,
    clear,
    stop: stopAnswer,
    running: () => isRunning(thread),
    /** The thread's first question ("" when there is none). */
    question: () => thread.turns[0]?.question ?? "",
  };
}
