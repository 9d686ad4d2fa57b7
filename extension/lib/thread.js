/**
 * A conversation with the history: the questions asked in one thread and their answers.
 *
 * Job: the state of a thread as plain data — each turn's question, streamed then checked
 * answer, sources, citations, state and status line — updated from the ask port's
 * messages (lib/port-messages.js: context, chunk, frame, done, error), and the start
 * message a new question sends: a follow-up carries the `thread_id` of the previous
 * answer's final frame, so the host reuses the thread's sources. A host that sends no `thread_id` gets
 * follow-ups as new questions (still shown in the thread).
 * What streams is checked already: the host sends only whole sentences that passed the
 * citation check, each with its [Source N] tags, so the status says "Checking against
 * your pages…" from the question until the final frame (more sentences may follow), and
 * the final frame's checked answer replaces what streamed. `announcement(turn)` is a
 * finished turn in words, for the side panel's live region (a screen reader says it).
 * Never: touch the DOM or `chrome.*` (node tests import this); keep state outside the
 * thread object it is given.
 */

import { COULD_NOT_FIND, answerParts, closestPages, closestPassage, isCouldNotFind } from "./answer.js";
import { Msg } from "./port-messages.js";

/**
 * @typedef {"asking"|"answering"|"done"|"stopped"|"failed"} TurnState
 * @typedef {{
 *   question: string,
 *   answer: string,
 *   state: TurnState,
 *   status: string,
 *   sources: any[],
 *   citations: any[],
 *   notFound: boolean,
 *   closest: ReturnType<typeof closestPassage>,
 *   errorCode: string,
 *   threadId: string|null,
 *   cutOff?: boolean,
 * }} Turn
 * @typedef {{id: string|null, turns: Turn[]}} Thread
 * @typedef {{type: "start", question: string, include_tab: boolean, thread_id?: string}} AskStart
 */

/** The status line while a turn runs: what streams has passed the check, more may come. */
export const CHECKING = "Checking against your pages…";

/**
 * Streamed text with a checked chunk after it. The host sends whole sentences and may
 * leave out the space between two of them ("…tree [Source 1].It…"): one is put back only
 * there, after a sentence's end and before a new one's start, so words cut across chunks
 * (an older host streams raw tokens) are never split.
 * @param {string} shown @param {string} chunk
 */
export function joinChunk(shown, chunk) {
  // A sentence's end, or its citation tags (a reader quote ends "“…” [Source 2]").
  const ended = /(?:[.!?…]["'”’)\]]*|\[Sources?\s*\d[^\]]*\])$/u.test(shown);
  const starts = /^["'“‘(\[]?\p{Lu}/u.test(chunk);
  return ended && starts ? `${shown} ${chunk}` : shown + chunk;
}

/** @returns {Thread} */
export function newThread() {
  return { id: null, turns: [] };
}

/** @param {Thread} thread @returns {Turn|null} */
export function lastTurn(thread) {
  return thread.turns[thread.turns.length - 1] ?? null;
}

/** Is an answer under way? @param {Thread} thread */
export function isRunning(thread) {
  const t = lastTurn(thread);
  return Boolean(t && (t.state === "asking" || t.state === "answering"));
}

/**
 * Add a question to the thread; returns the start message for the ask port.
 * @param {Thread} thread @param {string} question @param {{includeTab?: boolean}} [opts]
 * @returns {AskStart}
 */
export function ask(thread, question, opts = {}) {
  const asked = question.trim();
  if (!asked) throw new Error("empty question");
  /** @type {AskStart} */
  const msg = { type: Msg.START, question: asked, include_tab: Boolean(opts.includeTab) };
  if (thread.id !== null && thread.turns.length) msg.thread_id = thread.id;
  thread.turns.push({
    question: asked,
    answer: "",
    state: "asking",
    status: CHECKING,
    sources: [],
    citations: [],
    notFound: false,
    closest: null,
    errorCode: "",
    threadId: null,
  });
  return msg;
}

/** @param {unknown} id @returns {string|null} */
function threadId(id) {
  if (typeof id === "string" && id) return id;
  if (typeof id === "number" && Number.isFinite(id)) return String(id);
  return null;
}

/**
 * Apply one message of the ask port to the thread's last turn. Returns false when the
 * message changed nothing (no turn running).
 * @param {Thread} thread @param {any} m a ToPage message (lib/port-messages.js), unchecked
 */
export function apply(thread, m) {
  const t = lastTurn(thread);
  if (!t || !isRunning(thread) || !m || typeof m !== "object") return false;
  if (m.type === Msg.CONTEXT) {
    t.status = m.used_tab
      ? `Using the current tab (“${m.title || "untitled"}”) and your history. ${CHECKING}`
      : `The current tab can't be used (Rewind doesn't record it); using your history. ${CHECKING}`;
  } else if (m.type === Msg.CHUNK) {
    if (typeof m.text !== "string") return false;
    t.answer = joinChunk(t.answer, m.text);
    t.state = "answering";
    // Checked sentences so far; the check goes on until the final frame.
    t.status = CHECKING;
  } else if (m.type === Msg.FRAME) {
    if (!Array.isArray(m.frame?.sources)) return false;
    t.sources = m.frame.sources;
  } else if (m.type === Msg.DONE) {
    const r = m.reply && typeof m.reply === "object" ? m.reply : {};
    if (Array.isArray(r.sources)) t.sources = r.sources;
    t.citations = Array.isArray(r.citations) ? r.citations : [];
    t.notFound = isCouldNotFind(r);
    // No answer is backed, but a page is near: its passage, quoted (not an answer).
    t.closest = t.notFound ? null : closestPassage(r);
    // The checked answer replaces what streamed; "couldn't find" is its one line only
    // (the closest pages are shown as pages, not as the prose an older host appends).
    if (t.notFound) t.answer = COULD_NOT_FIND;
    else if (typeof r.answer === "string" && r.answer) t.answer = r.answer;
    t.state = "done";
    t.status = typeof r.notice === "string" ? r.notice : "";
    thread.id = threadId(r.thread_id);
    t.threadId = thread.id;
  } else if (m.type === Msg.ERROR) {
    const e = m.error ?? {};
    t.errorCode = String(e.code ?? "");
    t.state = e.code === "cancelled" ? "stopped" : "failed";
    t.status =
      e.code === "cancelled"
        ? "Stopped."
        : `${e.message ?? "The answer failed."}${e.hint ? ` ${e.hint}` : ""}`;
  } else {
    return false;
  }
  return true;
}

/**
 * The running turn stops here (the person pressed Stop, or the port closed): what
 * streamed stays, marked as stopped. `cutOff`: it ended without being asked to (the
 * worker or the helper went away), so it may be asked again (`askAgain`).
 * @param {Thread} thread @param {string} [status] @param {{cutOff?: boolean}} [opts]
 */
export function stop(thread, status = "Stopped.", opts = {}) {
  const t = lastTurn(thread);
  if (!t || !isRunning(thread)) return false;
  t.state = "stopped";
  t.status = status;
  if (opts.cutOff) t.cutOff = true;
  return true;
}

/**
 * The last turn, cut off, asked again in its place; null when it was not cut off.
 * @param {Thread} thread @param {{includeTab?: boolean}} [opts]
 */
export function askAgain(thread, opts = {}) {
  const t = lastTurn(thread);
  if (!t || !t.cutOff || isRunning(thread)) return null;
  thread.turns.pop();
  return ask(thread, t.question, opts);
}

/**
 * What a screen reader is told when a turn has its checked answer: the answer in words,
 * each citation as "(source N)"; "couldn't find" and where the closest pages are; or the
 * closest passage, quoted. "" while it runs, and for a stopped or failed turn (the status
 * line, a live region too, says so).
 * @param {Turn|null} turn
 */
export function announcement(turn) {
  if (!turn || turn.state !== "done") return "";
  if (turn.notFound) {
    return closestPages(turn.sources).length
      ? `${COULD_NOT_FIND} The closest pages you've read are listed under it.`
      : COULD_NOT_FIND;
  }
  if (turn.closest) {
    return `Not an answer: nothing you read backs one. The closest thing you read, ${turn.closest.title}: “${turn.closest.quote}”`;
  }
  const words = answerParts(turn.answer, turn.citations, turn.sources)
    .map((p) => ("text" in p ? p.text : ` (source ${p.cite})`))
    .join("")
    .replace(/\s+/g, " ")
    .replace(/\s+([.,;:!?])/g, "$1")
    .trim();
  const n = turn.sources.length;
  return `Answer: ${words}${n ? ` ${n} ${n === 1 ? "source is" : "sources are"} listed under it.` : ""}`;
}
