import assert from "node:assert/strict";
import { test } from "node:test";

/** @type {any} */ (globalThis).chrome = { runtime: { id: "ext-id" } };
const { askPort } = await import("../background/ports.js");

/** A page's end of a runtime port, and what the worker posted to it. */
function fakePort() {
  /** @type {((m: any) => void)[]} */
  const onMessage = [];
  const posted = /** @type {any[]} */ ([]);
  return {
    posted,
    send: (/** @type {any} */ m) => Promise.all(onMessage.map((fn) => fn(m))),
    port: /** @type {any} */ ({
      postMessage: (/** @type {any} */ m) => posted.push(m),
      onMessage: { addListener: (/** @type {any} */ fn) => onMessage.push(fn) },
      onDisconnect: { addListener: () => {} },
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
        requests.push({ type, fields });
        o.onId?.("r1");
        o.onFrame?.({ chunk: "It " });
        o.onFrame?.({ chunk: "does." });
        return { answer: "It does [Source 1].", supported: true, thread_id: "th-1", sources: [] };
      },
    }),
  };
}

test("ask: a follow-up's thread_id reaches the host; a new question sends none", async () => {
  const { native, requests } = fakeNative();
  const page = fakePort();
  askPort(/** @type {any} */ ({ native }), page.port);
  await page.send({ type: "ask", question: "Why?" });
  await page.send({ type: "ask", question: "And then?", thread_id: "th-1" });
  await page.send({ type: "ask", question: "Odd id?", thread_id: 7 });
  assert.deepEqual(requests.map((r) => r.fields), [
    { question: "Why?" },
    { question: "And then?", thread_id: "th-1" },
    { question: "Odd id?" },
  ]);
  const kinds = page.posted.map((m) => m.type);
  assert.deepEqual(kinds.slice(0, 3), ["chunk", "chunk", "done"]);
  assert.equal(page.posted[2].reply.thread_id, "th-1");
});
