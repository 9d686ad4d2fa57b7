import assert from "node:assert/strict";
import { test } from "node:test";
import { classifyDisconnect, skewError } from "../background/host-state.js";
import { NativeClient } from "../background/native.js";

/** A fake native port: records what the client sends; the test plays the host. */
function fakeHost({
  hello = /** @type {any} */ ({ protocol_version: 1, host_version: "0.1.0", models: [], stats: { pages: 0 } }),
  helloFields = /** @type {any} */ (async () => ({ protocol: 1, profile: "ptest" })),
} = {}) {
  /** @type {any[]} */
  const sent = [];
  /** @type {((m: any) => void)[]} */
  const onMsg = [];
  /** @type {(() => void)[]} */
  const onDisc = [];
  let lastError = "";
  let connects = 0;
  const timers = new Map();
  let timerSeq = 0;
  const port = {
    postMessage(/** @type {any} */ m) {
      sent.push(m);
      if (m.type === "hello" && hello) queueMicrotask(() => reply({ id: m.id, ok: true, done: true, ...hello }));
    },
    disconnect() {},
    onMessage: { addListener: (/** @type {any} */ fn) => onMsg.push(fn) },
    onDisconnect: { addListener: (/** @type {any} */ fn) => onDisc.push(fn) },
  };
  /** @param {any} m */
  function reply(m) {
    for (const fn of onMsg) fn(m);
  }
  const client = new NativeClient({
    hostName: "com.rewind.host",
    connect: () => {
      connects++;
      return port;
    },
    lastErrorMessage: () => lastError,
    helloFields,
    setTimer: (fn, ms) => {
      const id = ++timerSeq;
      timers.set(id, { fn, ms });
      return id;
    },
    clearTimer: (id) => timers.delete(id),
  });
  return {
    client, sent, reply, timers,
    get connects() { return connects; },
    /** @param {string} message */
    die(message) {
      lastError = message;
      for (const fn of onDisc) fn();
    },
    /** Fire every pending timer with this delay (a fake clock). @param {number} ms */
    fire(ms) {
      for (const [id, t] of [...timers]) if (t.ms === ms) { timers.delete(id); t.fn(); }
    },
    last: () => sent[sent.length - 1],
  };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

test("connects once with hello, then matches replies to requests by id", async () => {
  const h = fakeHost();
  const p1 = h.client.request("stats");
  await tick();
  const p2 = h.client.request("list_pages", { offset: 0, limit: 2 });
  await tick();
  assert.equal(h.connects, 1);
  assert.deepEqual(h.sent.map((m) => m.type), ["hello", "stats", "list_pages"]);
  assert.deepEqual(h.sent[0].profile, "ptest");
  const [, stats, list] = h.sent;
  h.reply({ id: list.id, ok: true, done: true, pages: [{ url: "u" }] });
  h.reply({ id: stats.id, ok: true, done: true, stats: { pages: 3 } });
  assert.deepEqual((await p1).stats, { pages: 3 });
  assert.deepEqual((await p2).pages, [{ url: "u" }]);
  assert.equal(h.client.info.state, "connected");
  assert.equal(h.client.pending.size, 0);
});

test("a list packed into several frames is joined into the last one", async () => {
  const h = fakeHost();
  const p = h.client.request("search", { query: "q" });
  await tick();
  await tick();
  const id = h.last().id;
  h.reply({ id, ok: true, done: false, results: [{ n: 1 }, { n: 2 }] });
  h.reply({ id, ok: true, done: true, results: [{ n: 3 }], took_ms: 4, notice: null });
  const r = await p;
  assert.deepEqual(r.results.map((/** @type {any} */ x) => x.n), [1, 2, 3]);
  assert.equal(r.took_ms, 4);
});

test("streamed frames reach onFrame; the done frame resolves", async () => {
  const h = fakeHost();
  /** @type {string[]} */
  const chunks = [];
  const p = h.client.request("ask", { question: "why?" }, { onFrame: (f) => chunks.push(f.chunk) });
  await tick();
  await tick();
  const id = h.last().id;
  h.reply({ id, ok: true, done: false, chunk: "Because " });
  h.reply({ id, ok: true, done: false, chunk: "[Source 1]." });
  h.reply({ id, ok: true, done: true, answer: "Because [Source 1].", sources: [{ url: "u" }] });
  const r = await p;
  assert.deepEqual(chunks, ["Because ", "[Source 1]."]);
  assert.equal(r.answer, "Because [Source 1].");
});

test("an error reply rejects with the host's code and message", async () => {
  const h = fakeHost();
  const p = h.client.request("ask", { question: "x" });
  await tick();
  await tick();
  h.reply({ id: h.last().id, ok: false, done: true, error: { code: "not_available", message: "Not yet." } });
  await assert.rejects(p, (/** @type {any} */ e) => e.code === "not_available" && e.message === "Not yet.");
});

test("a timeout becomes a coded error, and a late reply is ignored", async () => {
  const h = fakeHost();
  const p = h.client.request("stats", {}, { timeoutMs: 1234 });
  await tick();
  await tick();
  const id = h.last().id;
  h.fire(1234);
  await assert.rejects(p, (/** @type {any} */ e) => e.code === "timeout");
  h.reply({ id, ok: true, done: true, stats: {} }); // no throw, nothing pending
  assert.equal(h.client.pending.size, 0);
});

test("cancel sends {type: cancel, target_id}", async () => {
  const h = fakeHost();
  let askId = "";
  const p = h.client.request("ask", { question: "x" }, { onFrame: () => {}, onId: (id) => (askId = id) });
  await tick();
  await tick();
  assert.ok(h.client.cancel(askId));
  assert.deepEqual({ type: h.last().type, target_id: h.last().target_id }, { type: "cancel", target_id: askId });
  h.reply({ id: askId, ok: false, done: true, error: { code: "cancelled", message: "Cancelled." } });
  await assert.rejects(p, (/** @type {any} */ e) => e.code === "cancelled");
});

test("host not found: state host_missing with the fix, pending requests rejected, fast fail after", async () => {
  const h = fakeHost({ hello: null });
  const p = h.client.request("stats");
  await tick();
  h.die("Specified native messaging host not found.");
  await assert.rejects(p, (/** @type {any} */ e) => e.code === "host_missing" && /rewind setup/.test(e.hint));
  assert.equal(h.client.info.state, "host_missing");
  assert.equal(h.client.info.fix, "rewind setup");
  await assert.rejects(h.client.request("stats"), (/** @type {any} */ e) => e.code === "host_missing");
  assert.equal(h.connects, 1, "no reconnect storm while the host is missing");
});

test("a crash rejects everything pending and reconnects with backoff", async () => {
  const h = fakeHost();
  await h.client.connect();
  const p = h.client.request("stats");
  await tick();
  h.die("Native host has exited.");
  await assert.rejects(p, (/** @type {any} */ e) => e.code === "host_disconnected");
  assert.equal(h.client.info.state, "disconnected");
  // the reconnect timer fires and the client says hello again
  h.fire(0);
  await tick();
  await tick();
  assert.equal(h.connects, 2);
  assert.equal(h.client.info.state, "connected");
});

test("a different protocol version is reported, not used, naming the side to update", async () => {
  const h = fakeHost({ hello: { protocol_version: 2, host_version: "0.9.0" } });
  await assert.rejects(h.client.connect(), (/** @type {any} */ e) =>
    e.code === "host_incompatible" && /extension \(protocol 1\) is older than Rewind's helper \(0\.9\.0/.test(e.message) &&
    /Update the extension/.test(e.hint));
  assert.equal(h.client.info.state, "incompatible");
  const old = skewError(0, "0.0.9");
  assert.match(old.message, /helper \(0\.0\.9, protocol 0\) is older than this extension/);
  assert.match(old.hint, /Update the helper: rewind setup/);
});

test("a request an older helper does not know says the helper needs an update", async () => {
  const h = fakeHost({ hello: { protocol_version: 1, host_version: "0.5.0" } });
  await h.client.connect();
  const p = h.client.request("import_history", { visits: [] });
  await tick();
  h.reply({ id: h.sent.at(-1).id, ok: false, done: true, error: { code: "unknown_type", message: "Unknown request type 'import_history'." } });
  await assert.rejects(p, (/** @type {any} */ e) => e.code === "host_incompatible" &&
    /helper \(0\.5\.0\) is older than this extension and does not know "import_history"/.test(e.message) &&
    /rewind setup/.test(e.hint));
});

test("classifyDisconnect", () => {
  assert.equal(classifyDisconnect("Specified native messaging host not found.").state, "host_missing");
  assert.equal(classifyDisconnect("Access to the specified native messaging host is forbidden.").state, "host_forbidden");
  assert.equal(classifyDisconnect("Error when communicating with the native messaging host.").state, "disconnected");
});

test("hello's fields may ask the host first (list_profiles before hello)", async () => {
  /** @type {any} */
  let listed = null;
  const h = fakeHost({
    helloFields: async (/** @type {any} */ ask) => {
      listed = await ask("list_profiles");
      return { protocol: 1, profile: listed.profiles[0].profile };
    },
  });
  const connecting = h.client.connect();
  await tick();
  const [first] = h.sent;
  assert.equal(first.type, "list_profiles");
  h.reply({ id: first.id, ok: true, done: true, profiles: [{ profile: "pold" }], forced_data_dir: null });
  await connecting;
  assert.deepEqual(h.sent.map((m) => m.type), ["list_profiles", "hello"]);
  assert.equal(h.sent[1].profile, "pold", "the existing store is adopted");
  assert.equal(h.client.info.state, "connected");
});

test("when hello's fields cannot be had, the connection fails (and is tried again later)", async () => {
  const h = fakeHost({ helloFields: async () => Promise.reject(new Error("host did not say")) });
  await assert.rejects(h.client.connect());
  assert.equal(h.client.info.state, "error");
  assert.ok(!h.sent.some((m) => m.type === "hello"), "no hello with a made-up profile");
});

test("errors before a request left are marked unsent; after it left they are not", async () => {
  const missing = fakeHost({ hello: null });
  const p = missing.client.request("index_page", { page: {} });
  await tick();
  missing.die("Specified native messaging host not found.");
  await assert.rejects(p, (/** @type {any} */ e) => e.unsent === true && e.code === "host_missing");

  const h = fakeHost();
  await h.client.connect();
  const sent = h.client.request("index_page", { page: {} });
  await tick();
  assert.equal(h.last().type, "index_page");
  h.die("Native host has exited."); // the host died with the page
  await assert.rejects(sent, (/** @type {any} */ e) => e.code === "host_disconnected" && !e.unsent);
});
