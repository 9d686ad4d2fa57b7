import assert from "node:assert/strict";
import { test } from "node:test";
import { COULD_NOT_FIND } from "../lib/answer.js";
import { CHECKING, announcement, apply, ask, askAgain, isRunning, joinChunk, lastTurn, newThread, stop } from "../lib/thread.js";

const SOURCES = [{ n: 1, kind: "history", url: "https://docs.example/venv", title: "Venv", passage: "p" }];

/** The port's messages for one answer: chunks, then the final frame. */
function answer(thread, /** @type {any} */ reply, chunks = ["Streamed ", "words"]) {
  for (const text of chunks) assert.ok(apply(thread, { type: "chunk", text }));
  assert.ok(apply(thread, { type: "done", reply }));
}

test("a question streams in, then the checked answer replaces it", () => {
  const t = newThread();
  const msg = ask(t, "  Why use a venv?  ");
  assert.deepEqual(msg, { type: "start", question: "Why use a venv?", include_tab: false });
  assert.ok(isRunning(t));
  assert.equal(lastTurn(t)?.status, CHECKING);
  apply(t, { type: "chunk", text: "To keep " });
  apply(t, { type: "chunk", text: "packages apart" });
  assert.equal(lastTurn(t)?.answer, "To keep packages apart");
  assert.equal(lastTurn(t)?.state, "answering");
  assert.equal(lastTurn(t)?.status, CHECKING);
  apply(t, { type: "frame", frame: { sources: SOURCES } });
  assert.equal(lastTurn(t)?.sources, SOURCES);
  apply(t, { type: "done", reply: { answer: "Checked [Source 1].", supported: true, sources: SOURCES,
    citations: [{ sentence: "Checked.", sources: [1] }], thread_id: "th-1", notice: null } });
  const turn = lastTurn(t);
  assert.equal(turn?.answer, "Checked [Source 1].");
  assert.equal(turn?.citations.length, 1);
  assert.equal(turn?.state, "done");
  assert.equal(turn?.notFound, false);
  assert.equal(t.id, "th-1");
  assert.ok(!isRunning(t));
  assert.ok(!apply(t, { type: "chunk", text: "late" }), "nothing changes once the answer is done");
  assert.equal(lastTurn(t)?.answer, "Checked [Source 1].");
});

test("a follow-up carries the thread_id of the previous answer's final frame", () => {
  const t = newThread();
  assert.equal(ask(t, "First?").thread_id, undefined, "a new thread has no id");
  answer(t, { answer: "One [Source 1].", supported: true, sources: SOURCES, thread_id: "th-1" });
  const second = ask(t, "And then?", { includeTab: true });
  assert.deepEqual(second, { type: "start", question: "And then?", include_tab: true, thread_id: "th-1" });
  answer(t, { answer: "Two [Source 1].", supported: true, sources: SOURCES, thread_id: "th-2" });
  assert.equal(ask(t, "Third?").thread_id, "th-2");
  assert.deepEqual(t.turns.map((x) => x.question), ["First?", "And then?", "Third?"]);
  assert.deepEqual(t.turns.map((x) => x.answer), ["One [Source 1].", "Two [Source 1].", ""]);
  assert.deepEqual(t.turns.map((x) => x.threadId), ["th-1", "th-2", null]);
});

test("a host that sends no thread_id: follow-ups go as new questions, still in the thread", () => {
  const t = newThread();
  ask(t, "First?");
  answer(t, { answer: "One [Source 1].", supported: true, sources: SOURCES });
  const msg = ask(t, "And then?");
  assert.equal("thread_id" in msg, false);
  assert.equal(t.turns.length, 2);
  // A numeric id is kept as a string (the host's ids are opaque).
  answer(t, { answer: "Two.", thread_id: 42 });
  assert.equal(ask(t, "Third?").thread_id, "42");
});

test("couldn't find: the one line only, however the host phrased its answer", () => {
  const t = newThread();
  ask(t, "Who painted the Sistine Chapel?");
  answer(t, { answer: COULD_NOT_FIND, supported: false, sources: SOURCES, thread_id: "th-9" });
  assert.equal(lastTurn(t)?.answer, COULD_NOT_FIND);
  assert.ok(lastTurn(t)?.notFound);
  assert.equal(lastTurn(t)?.sources, SOURCES, "the closest pages are kept, to be shown as pages");
  // An older host appends the closest pages as prose: shown as the one line as well.
  const old = newThread();
  ask(old, "Who painted it?");
  answer(old, { answer: `${COULD_NOT_FIND} The closest pages: “Venv” [Source 1].`, sources: SOURCES });
  assert.equal(lastTurn(old)?.answer, COULD_NOT_FIND);
  assert.ok(lastTurn(old)?.notFound);
});

test("stop and errors end the turn with what streamed, and say why", () => {
  const t = newThread();
  ask(t, "Long one?");
  apply(t, { type: "chunk", text: "Half an answer" });
  assert.ok(stop(t));
  assert.deepEqual([lastTurn(t)?.state, lastTurn(t)?.status, lastTurn(t)?.answer], ["stopped", "Stopped.", "Half an answer"]);
  assert.ok(!stop(t), "stopping twice changes nothing");

  ask(t, "Again?");
  apply(t, { type: "error", error: { code: "cancelled", message: "cancelled" } });
  assert.deepEqual([lastTurn(t)?.state, lastTurn(t)?.status], ["stopped", "Stopped."]);

  ask(t, "Once more?");
  apply(t, { type: "error", error: { code: "model_missing", message: "No model.", hint: "Run: python3 build.py install" } });
  assert.deepEqual([lastTurn(t)?.state, lastTurn(t)?.status], ["failed", "No model. Run: python3 build.py install"]);
  assert.equal(lastTurn(t)?.errorCode, "model_missing");
  assert.equal(t.id, null, "no final frame gave an id");
});

test("the current tab's context, notices, and junk messages", () => {
  const t = newThread();
  ask(t, "About this tab?", { includeTab: true });
  apply(t, { type: "context", used_tab: true, title: "HNSW" });
  assert.equal(lastTurn(t)?.status, `Using the current tab (“HNSW”) and your history. ${CHECKING}`);
  apply(t, { type: "context", used_tab: false });
  assert.match(lastTurn(t)?.status ?? "", /^The current tab can't be used/);
  assert.ok(!apply(t, null));
  assert.ok(!apply(t, { type: "chunk", text: 5 }));
  assert.ok(!apply(t, { type: "frame", frame: {} }));
  assert.ok(!apply(t, { type: "mystery" }));
  apply(t, { type: "done", reply: { answer: "From sources [Source 1].", notice: "No language model: the pages' own sentences." } });
  assert.equal(lastTurn(t)?.status, "No language model: the pages' own sentences.");
  assert.deepEqual(lastTurn(t)?.sources, [], "no sources in the reply: none shown");
  assert.throws(() => ask(t, "   "));
});

test("a closest-passage reply is shown as its passage, not as an answer or a refusal", () => {
  const t = newThread();
  ask(t, "How do I sort a list of objects by an attribute?");
  const reply = {
    answer: "The closest thing you read — Sorting HOW TO: “Key functions …” [Source 1]",
    supported: false, outcome: "closest", sources: SOURCES, thread_id: "th-3",
    closest: { n: 1, kind: "history", url: "https://docs.example/sorting", title: "Sorting HOW TO",
      quote: "Key functions …", passage: "Key functions need not depend on the objects." },
    notice: "Nothing in your history backs an answer to this: here is the passage closest to it.",
  };
  answer(t, reply, []);
  const turn = lastTurn(t);
  assert.equal(turn?.notFound, false);
  assert.equal(turn?.closest?.quote, "Key functions …");
  assert.equal(turn?.closest?.title, "Sorting HOW TO");
  assert.match(String(turn?.closest?.href), /^https:\/\/docs\.example\/sorting#:~:text=/);
  assert.equal(turn?.answer, reply.answer);
  assert.match(turn?.status ?? "", /passage closest to it/);
  // "not_found" stays the one line, whatever else the reply says
  ask(t, "And the capital of Peru?");
  answer(t, { ...reply, outcome: "not_found", answer: COULD_NOT_FIND, closest: null }, []);
  assert.equal(lastTurn(t)?.notFound, true);
  assert.equal(lastTurn(t)?.closest, null);
});

test("an answer cut off (the worker or helper went away) may be asked again; a stopped one not", () => {
  const t = newThread();
  ask(t, "which knot holds?");
  apply(t, { type: "chunk", text: "The bowline" });
  assert.equal(askAgain(t), null, "not while it runs");
  assert.ok(stop(t, "The answer was cut off.", { cutOff: true }));
  assert.equal(lastTurn(t)?.answer, "The bowline", "what streamed stays");
  const msg = askAgain(t, { includeTab: true });
  assert.deepEqual(msg, { type: "start", question: "which knot holds?", include_tab: true });
  assert.equal(t.turns.length, 1, "in the cut-off turn's place");
  assert.equal(lastTurn(t)?.state, "asking");
  assert.ok(stop(t, "Stopped."));
  assert.equal(askAgain(t), null, "the person stopped it: no ask again");
});

test("checked sentences stream under 'Checking against your pages…' until the final frame", () => {
  const t = newThread();
  ask(t, "What did Fresnel replace?");
  assert.equal(CHECKING, "Checking against your pages…");
  assert.equal(lastTurn(t)?.status, CHECKING, "from the question on");
  const sentences = [
    "Fresnel replaced one thick heavy lens [Source 1].",
    " “The lens became lighter.” [Source 1]",
    "Keepers polished the prisms [Source 2].",
  ];
  const shown = [];
  for (const text of sentences) {
    assert.ok(apply(t, { type: "chunk", text }));
    assert.equal(lastTurn(t)?.status, CHECKING, "a checked sentence does not end the check");
    assert.equal(lastTurn(t)?.state, "answering");
    shown.push(lastTurn(t)?.answer);
  }
  // Whole sentences, in order; the space the host left out between two is put back.
  assert.deepEqual(shown, [
    "Fresnel replaced one thick heavy lens [Source 1].",
    "Fresnel replaced one thick heavy lens [Source 1]. “The lens became lighter.” [Source 1]",
    "Fresnel replaced one thick heavy lens [Source 1]. “The lens became lighter.” [Source 1] " +
      "Keepers polished the prisms [Source 2].",
  ]);
  apply(t, { type: "frame", frame: { sources: SOURCES } });
  assert.equal(lastTurn(t)?.status, CHECKING, "the sources frame does not end it either");
  apply(t, { type: "done", reply: { answer: "Checked [Source 1].", supported: true, sources: SOURCES, notice: null } });
  assert.equal(lastTurn(t)?.status, "", "done: the status goes (or becomes the reply's notice)");
  assert.equal(lastTurn(t)?.answer, "Checked [Source 1].");

  // With the current tab: the tab line says the check is on as well, until a sentence comes.
  ask(t, "And this tab?", { includeTab: true });
  apply(t, { type: "context", used_tab: true, title: "Lenses" });
  assert.ok(lastTurn(t)?.status.endsWith(CHECKING));
  apply(t, { type: "chunk", text: "It says so [Source 1]." });
  assert.equal(lastTurn(t)?.status, CHECKING);
});

test("chunks join as sent, with a space only between two whole sentences", () => {
  assert.equal(joinChunk("One [Source 1].", "Two."), "One [Source 1]. Two.");
  assert.equal(joinChunk("One [Source 1].", " Two."), "One [Source 1]. Two.");
  assert.equal(joinChunk("“Quoted.” [Source 2]", "Next."), "“Quoted.” [Source 2] Next.");
  assert.equal(joinChunk("One.", "“Quoted.” [Source 2]"), "One. “Quoted.” [Source 2]");
  // Raw tokens of an older host: never split a word or a number.
  assert.equal(joinChunk("To ke", "ep"), "To keep");
  assert.equal(joinChunk("pi is 3.", "14"), "pi is 3.14");
  assert.equal(joinChunk("", "First."), "First.");
});

test("a finished turn is said in words for the live region; nothing while it runs or when it stopped", () => {
  const t = newThread();
  ask(t, "Why use a venv?");
  assert.equal(announcement(lastTurn(t)), "", "not sentence by sentence while it streams");
  apply(t, { type: "chunk", text: "To keep packages apart [Source 1]." });
  assert.equal(announcement(lastTurn(t)), "");
  apply(t, { type: "done", reply: { answer: "To keep <b>packages</b> apart [Source 1]. Per project [Source 1].",
    supported: true, sources: SOURCES, citations: [] } });
  assert.equal(announcement(lastTurn(t)),
    "Answer: To keep <b>packages</b> apart (source 1). Per project (source 1). 1 source is listed under it.");
  ask(t, "And pip?");
  apply(t, { type: "done", reply: { answer: "x", supported: false, outcome: "not_found", sources: SOURCES } });
  assert.equal(announcement(lastTurn(t)), `${COULD_NOT_FIND} The closest pages you've read are listed under it.`);
  ask(t, "And conda?");
  apply(t, { type: "done", reply: { answer: "", outcome: "closest", sources: SOURCES,
    closest: { n: 1, url: "https://docs.example/venv", title: "Venv", quote: "A venv is a folder." } } });
  assert.equal(announcement(lastTurn(t)),
    "Not an answer: nothing you read backs one. The closest thing you read, Venv: “A venv is a folder.”");
  ask(t, "Stopped?");
  stop(t);
  assert.equal(announcement(lastTurn(t)), "", "the status line says it was stopped");
  assert.equal(announcement(null), "");
});
