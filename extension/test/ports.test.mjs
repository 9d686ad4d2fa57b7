import assert from "node:assert/strict";
import { test } from "node:test";

/** @type {any} */ (globalThis).chrome = { runtime: { id: "ext-id" } };
const ports = await import("../background/ports.js");
const { Msg } = await import("../lib/port-messages.js");

/** A page's end of a runtime port: what the worker posted to it, and closing it. */
function fakePort() {
  /** @type {((m: any) => void)[]} */
  const onMessage = [];
  /** @type {(() => void)[]} */
  const onDisconnect = [];
  const posted = /** @type {any[]} */ ([]);
  return {
    posted,
    send: (/** @type {any} */ m) => Promise.all(onMessage.map((fn) => fn(m))),
    close: () => onDisconnect.forEach((fn) => fn()),
    port: /** @type {any} */ ({
      postMessage: (/** @type {any} */ m) => posted.push(m),
      onMessage: { addListener: (/** @type {any} */ fn) => onMessage.push(fn) },
      onDisconnect: { addListener: (/** @type {any} */ fn) => onDisconnect.push(fn) },
    }),
  };
}

/** A native client that answers ask with two chunks and a final frame, and records requests. */
function fakeNative() {
  const requests = /** @type {any[]} */ ([]);
  return {
    requests,
    native: /** @type {any} */ ({
      cancel: () => {},
      async request(/** @type {string} */ type, /** @type {any} */ fields, /** @type {any} */ o) {
        requests.push({ type, fields, accumulate: o.accumulate });
        o.onId?.("r1");
        o.onFrame?.({ chunk: "It " });
        o.onFrame?.({ chunk: "does." });
        return { answer: "It does [Source 1].", supported: true, thread_id: "th-1", sources: [] };
      },
    }),
  };
}

/**
 * A native client whose request runs until it is cancelled (then fails as the host's
 * `cancelled` error does), after sending one frame.
 */
function slowNative() {
  const cancelled = /** @type {string[]} */ ([]);
  /** @type {(() => void)|null} */
  let stop = null;
  const started = /** @type {string[]} */ ([]);
  return {
    cancelled,
    started,
    native: /** @type {any} */ ({
      cancel: (/** @type {string} */ id) => {
        cancelled.push(id);
        stop?.();
      },
      request(/** @type {string} */ type, /** @type {any} */ _fields, /** @type {any} */ o) {
        started.push(type);
        o.onId?.(`${type}-1`);
        o.onFrame?.({ pages: [{ url: "https://a.example/" }] });
        return new Promise((_resolve, reject) => {
          stop = () => reject({ code: "cancelled", message: "Cancelled." });
        });
      },
    }),
  };
}

test("ask: a follow-up's thread_id reaches the host; a new question sends none", async () => {
  const { native, requests } = fakeNative();
  const page = fakePort();
  ports.askPort(/** @type {any} */ ({ native }), page.port);
  await page.send({ type: Msg.START, question: "Why?" });
  await page.send({ type: Msg.START, question: "And then?", thread_id: "th-1" });
  await page.send({ type: Msg.START, question: "Odd id?", thread_id: 7 });
  assert.deepEqual(requests.map((r) => r.fields), [
    { question: "Why?" },
    { question: "And then?", thread_id: "th-1" },
    { question: "Odd id?" },
  ]);
  const kinds = page.posted.map((m) => m.type);
  assert.deepEqual(kinds.slice(0, 3), [Msg.CHUNK, Msg.CHUNK, Msg.DONE]);
  assert.equal(page.posted[2].reply.thread_id, "th-1");
});

test("every port speaks one dialect: frames, then done with the reply; nothing held", async () => {
  for (const [open, start] of /** @type {const} */ ([
    ["askPort", { question: "Why?" }],
    ["exportPort", {}],
    ["backupPort", { passphrase: "pw" }],
    ["importPort", { upload: "u1" }],
    ["pullModelPort", { model: "m" }],
  ])) {
    const { native, requests } = fakeNative();
    const page = fakePort();
    /** @type {any} */ (ports)[open]({ native }, page.port);
    await page.send({ type: Msg.START, ...start });
    const done = page.posted.at(-1);
    assert.equal(done.type, Msg.DONE, open);
    assert.deepEqual(Object.keys(done).sort(), ["reply", "type"], open);
    assert.equal(done.reply.answer, "It does [Source 1].", open);
    assert.equal(requests[0].accumulate, false, `${open}: the worker keeps no frame`);
  }
});

test("a question without words is refused before the host is asked", async () => {
  const { native, requests } = fakeNative();
  const page = fakePort();
  ports.askPort(/** @type {any} */ ({ native }), page.port);
  await page.send({ type: Msg.START, question: "   " });
  assert.equal(requests.length, 0);
  assert.equal(page.posted[0].type, Msg.ERROR);
  assert.equal(page.posted[0].error.code, "bad_request");
});

for (const open of ["askPort", "exportPort", "backupPort", "importPort", "pullModelPort"]) {
  test(`${open}: the page closing the port cancels the host's request`, async () => {
    const { native, cancelled, started } = slowNative();
    const page = fakePort();
    /** @type {any} */ (ports)[open]({ native }, page.port);
    const running = page.send({ type: Msg.START, question: "Why?", upload: "u", model: "m" });
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(started.length, 1);
    assert.equal(page.posted[0].type, Msg.FRAME, "the frame before the close reached the page");
    page.close();
    await running;
    assert.deepEqual(cancelled, [`${started[0]}-1`]);
    assert.equal(page.posted.length, 1, "nothing is posted to a closed port");
  });
}

test("stop cancels the request; the page is told it ended", async () => {
  const { native, cancelled } = slowNative();
  const page = fakePort();
  ports.exportPort(/** @type {any} */ ({ native }), page.port);
  const running = page.send({ type: Msg.START });
  await new Promise((r) => setTimeout(r, 0));
  await page.send({ type: Msg.STOP });
  await running;
  assert.deepEqual(cancelled, ["export-1"]);
  assert.equal(page.posted.at(-1).type, Msg.ERROR);
  assert.equal(page.posted.at(-1).error.code, "cancelled");
});
