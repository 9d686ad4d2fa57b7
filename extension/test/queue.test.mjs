import assert from "node:assert/strict";
import { test } from "node:test";
import { deliver } from "../background/delivery.js";
import * as Q from "../background/queue.js";

/** @param {string} id @param {object} [over] */
const page = (id, over = {}) => ({
  id, kind: /** @type {"page"} */ ("page"), url: `https://example.com/${id}`, title: id, hash: `h-${id}`,
  visited_at: 1000, dwell_s: 6, ...over,
});

test("items go out oldest first, one at a time", () => {
  let q = Q.emptyQueue();
  q = Q.enqueue(q, page("a"), 0).queue;
  q = Q.enqueue(q, page("b"), 10).queue;
  assert.equal(Q.nextReady(q, 10)?.id, "a");
  q = Q.markSending(q, "a", 10);
  assert.equal(Q.nextReady(q, 11), null, "nothing else while one is in flight");
  q = Q.markDone(q, "a", 20, { indexed: true });
  assert.equal(Q.nextReady(q, 20)?.id, "b");
  assert.deepEqual(q.last_indexed, { url: "https://example.com/a", title: "a", at: 20 });
});

test("exponential backoff: 3 tries, then failed", () => {
  let q = Q.enqueue(Q.emptyQueue(), page("a"), 0).queue;
  let now = 0;
  q = Q.markFailed(Q.markSending(q, "a", now), "a", now, "bad_request: x").queue;
  assert.equal(q.items[0].next_at, Q.BASE_DELAY_MS);
  assert.equal(Q.nextReady(q, Q.BASE_DELAY_MS - 1), null, "waits out the backoff");
  now = Q.BASE_DELAY_MS;
  q = Q.markFailed(Q.markSending(q, "a", now), "a", now, "bad_request: x").queue;
  assert.equal(q.items[0].next_at, now + 2 * Q.BASE_DELAY_MS, "the delay doubles");
  now += 2 * Q.BASE_DELAY_MS;
  const r = Q.markFailed(Q.markSending(q, "a", now), "a", now, "bad_request: x");
  assert.ok(r.gaveUp);
  assert.equal(r.queue.items.length, 0);
  assert.equal(r.queue.failed.length, 1);
  assert.equal(r.queue.failed[0].tries, Q.MAX_TRIES);
  assert.deepEqual(
    { pending: Q.status(r.queue, now).pending, failed: Q.status(r.queue, now).failed, last_error: Q.status(r.queue, now).last_error },
    { pending: 0, failed: 1, last_error: "bad_request: x" },
  );
});

test("backoffMs doubles from the base", () => {
  assert.deepEqual([1, 2, 3].map(Q.backoffMs), [5000, 10000, 20000]);
});

test("an unreachable host defers everything without spending tries", () => {
  let q = Q.enqueue(Q.emptyQueue(), page("a"), 0).queue;
  q = Q.enqueue(q, page("b"), 0).queue;
  q = Q.markSending(q, "a", 0);
  q = Q.deferAll(q, 30_000, "host_missing: x");
  assert.ok(q.items.every((it) => it.tries === 0 && it.sending_since === null && it.next_at === 30_000));
  assert.equal(Q.nextReady(q, 29_999), null);
  assert.equal(Q.nextWakeAt(q, 0), 30_000);
});

test("resumeDeferred: when the host is back, deferred items are ready at once, others keep their time", () => {
  let q = Q.enqueue(Q.emptyQueue(), page("a"), 0).queue;
  q = Q.deferAll(q, 30_000, "host_missing: x");
  q = Q.enqueue(q, page("b"), 1_000).queue;
  q = Q.markFailed(q, "b", 1_000, "bad_input: x").queue; // a real failure: backoff stands
  q = Q.resumeDeferred(q, 2_000);
  assert.equal(Q.nextReady(q, 2_000)?.id, "a");
  assert.equal(q.items[0].deferred, false);
  assert.equal(q.items[1].next_at, 1_000 + Q.backoffMs(1));
  assert.deepEqual(Q.resumeDeferred(q, 3_000), q, "nothing deferred: unchanged");
});

test("retryFailed puts failed items back with fresh tries", () => {
  let q = Q.enqueue(Q.emptyQueue(), page("a"), 0).queue;
  for (let i = 0; i < Q.MAX_TRIES; i++) q = Q.markFailed(q, "a", 0, "x").queue;
  q = Q.retryFailed(q, 100);
  assert.equal(q.failed.length, 0);
  assert.equal(q.items[0].tries, 0);
  assert.equal(Q.nextReady(q, 100)?.id, "a");
});

test("the same visit: a newer page replaces the waiting one, a dwell update only raises dwell", () => {
  let q = Q.enqueue(Q.emptyQueue(), page("a"), 0).queue;
  const r1 = Q.enqueue(q, page("a2", { url: "https://example.com/a", dwell_s: 5 }), 1);
  assert.deepEqual(r1.replaced, ["a"]);
  assert.equal(r1.queue.items.length, 1);
  assert.equal(r1.queue.items[0].dwell_s, 6, "dwell never goes down");
  const r2 = Q.enqueue(r1.queue, { ...page("d", { url: "https://example.com/a", dwell_s: 120 }), kind: "dwell" }, 2);
  assert.ok(r2.merged);
  assert.equal(r2.queue.items.length, 1);
  assert.equal(r2.queue.items[0].id, "a2", "the page (and its payload) stays");
  assert.equal(r2.queue.items[0].dwell_s, 120);
  const r3 = Q.enqueue(r2.queue, page("b", { url: "https://example.com/a", visited_at: 2000 }), 3);
  assert.equal(r3.queue.items.length, 2, "another visit of the same page is its own item");
});

test("past MAX_PENDING the oldest waiting items are dropped, and counted", () => {
  let q = Q.emptyQueue();
  /** @type {string[]} */
  let dropped = [];
  for (let i = 0; i < Q.MAX_PENDING + 3; i++) {
    const r = Q.enqueue(q, page(`p${i}`), i);
    q = r.queue;
    dropped = dropped.concat(r.dropped);
  }
  assert.equal(q.items.length, Q.MAX_PENDING);
  assert.deepEqual(dropped, ["p0", "p1", "p2"]);
  const st = Q.status(q, 0);
  assert.equal(st.dropped, 3, "nothing is dropped without a visible count");
  assert.equal(st.last_dropped?.url, "https://example.com/p2");
  assert.equal(st.last_dropped?.reason, "the queue was full");
});

test("the waiting pages' text stays within the byte budget: the oldest go first, counted", () => {
  const third = Math.ceil(Q.MAX_PENDING_BYTES / 3);
  let q = Q.emptyQueue();
  for (const id of ["a", "b", "c"]) q = Q.enqueue(q, page(id, { bytes: third - 10 }), 0).queue;
  assert.equal(Q.status(q, 0).dropped, 0);
  q = Q.markSending(q, "a", 1); // in flight: never dropped under it
  const r = Q.enqueue(q, page("d", { bytes: third }), 2);
  assert.deepEqual(r.dropped, ["b"]);
  assert.deepEqual(r.queue.items.map((it) => it.id), ["a", "c", "d"]);
  assert.ok(Q.status(r.queue, 2).bytes <= Q.MAX_PENDING_BYTES);
  assert.equal(Q.status(r.queue, 2).dropped, 1);
  // A page bigger than the whole budget is still kept (it is the newest): never dropped on arrival.
  const huge = Q.enqueue(Q.emptyQueue(), page("h", { bytes: Q.MAX_PENDING_BYTES + 1 }), 0);
  assert.deepEqual(huge.dropped, []);
});

test("failed pages past MAX_FAILED are counted as dropped, not silently lost", () => {
  let q = Q.emptyQueue();
  for (let i = 0; i < Q.MAX_FAILED + 2; i++) {
    q = Q.enqueue(q, page(`f${i}`), i).queue;
    for (let t = 0; t < Q.MAX_TRIES; t++) q = Q.markFailed(q, `f${i}`, i, "bad_input: x").queue;
  }
  assert.equal(q.failed.length, Q.MAX_FAILED);
  assert.equal(Q.status(q, 0).dropped, 2);
  assert.equal(q.last_dropped?.reason, "too many failed pages");
  // Their stored text goes with them (applyOutcome hands the ids to the storage).
  q = Q.enqueue(q, page("last"), 9).queue;
  for (let t = 0; t < Q.MAX_TRIES - 1; t++) q = Q.markFailed(q, "last", 9, "x").queue;
  const a = Q.applyOutcome(q, q.items[0], { outcome: "failed", error: "x" }, 9, 30_000);
  assert.deepEqual(a.drop, ["f2"]);
  assert.ok(a.gaveUp && !a.stop);
});

test("countDropped records what was let go of; removeItem takes an item out of line", () => {
  let q = Q.enqueue(Q.emptyQueue(), page("a"), 0).queue;
  const item = q.items[0];
  q = Q.countDropped(Q.removeItem(q, "a"), [item], "its text was lost", 5);
  assert.equal(q.items.length, 0);
  assert.deepEqual(q.last_dropped, { url: item.url, title: "a", at: 5, reason: "its text was lost" });
  assert.equal(Q.countDropped(q, [], "nothing", 6), q);
});

test("a send the worker died in is retried after a new start, or when stale", () => {
  let q = Q.markSending(Q.enqueue(Q.emptyQueue(), page("a"), 0).queue, "a", 0);
  assert.equal(Q.nextReady(q, 1000), null);
  assert.equal(Q.nextReady(q, Q.STALE_SENDING_MS + 1)?.id, "a");
  q = Q.resetSending(q);
  assert.equal(Q.nextReady(q, 1000)?.id, "a");
});

test("dropMatching forgets items, failures and the last indexed page", () => {
  let q = Q.enqueue(Q.emptyQueue(), page("a"), 0).queue;
  q = Q.enqueue(q, page("b"), 0).queue;
  q = Q.markDone(Q.markSending(q, "a", 1), "a", 2, { indexed: true });
  const r = Q.dropMatching(q, (it) => it.url.endsWith("/a") || it.url.endsWith("/b"));
  assert.deepEqual(r.removed, ["b"]);
  assert.equal(r.queue.items.length, 0);
  assert.equal(r.queue.last_indexed, null);
});

test("normalizeQueue survives junk in storage", () => {
  assert.deepEqual(Q.normalizeQueue(undefined), Q.emptyQueue());
  assert.deepEqual(Q.normalizeQueue({ items: "x" }), Q.emptyQueue());
});

// ---- the queue and delivery together: nothing stalls, nothing is lost silently -------------

/**
 * Drain the queue against a fake host the way the indexer does (delivery.deliver, then
 * Q.applyOutcome), advancing a fake clock to each next wake-up.
 * @param {Q.QueueState} q @param {(type: string, fields: any) => Promise<any>} request
 */
async function drainAll(q, request, { maxSteps = 100, now = 0 } = {}) {
  /** @type {string[]} */
  const sent = [];
  for (let step = 0; step < maxSteps; step++) {
    const item = Q.nextReady(q, now);
    if (!item) {
      const at = Q.nextWakeAt(q, now);
      if (at === null) break;
      now = Math.max(now + 1, at);
      continue;
    }
    q = Q.markSending(q, item.id, now);
    const r = await deliver(item, {
      request: (type, fields) => {
        sent.push(`${type} ${fields.page?.url ?? fields.url}`);
        return request(type, fields);
      },
      payload: async () => [{ text: "some passage text of the page", position: 1, quality: 0.5 }],
      knownHash: async () => null,
      refusal: async () => null,
      forgotten: async () => false,
    });
    const a = Q.applyOutcome(q, item, r, now, 30_000);
    q = a.queue;
    if (a.stop) now += 30_000;
  }
  return { q, sent, now };
}

/** @param {string} code @param {boolean} [unsentFlag] */
const fail = (code, unsentFlag = false) => Object.assign(new Error(code), { code, unsent: unsentFlag });

for (const [what, code] of [["a timeout", "timeout"], ["the host exiting", "host_disconnected"]]) {
  test(`${what} while a page is sent uses one of its tries; after 3 it fails and the pages behind go on`, async () => {
    let q = Q.emptyQueue();
    for (const id of ["bad", "b", "c"]) q = Q.enqueue(q, page(id), 0).queue;
    const { q: end, sent } = await drainAll(q, async (type, f) => {
      if (f.page?.url?.endsWith("/bad")) throw fail(code);
      return type === "index_page" ? { result: { status: "new" } } : { known: false };
    });
    assert.equal(end.items.length, 0, "nothing left waiting");
    assert.deepEqual(end.failed.map((it) => [it.id, it.tries]), [["bad", Q.MAX_TRIES]]);
    assert.match(String(end.failed[0].error), new RegExp(`^${code}: `));
    assert.equal(sent.filter((s) => s.endsWith("/bad")).length, Q.MAX_TRIES, "tried exactly 3 times");
    const first = (/** @type {string} */ id) => sent.findIndex((s) => s.endsWith(`/${id}`));
    assert.ok(first("b") < sent.lastIndexOf("index_page https://example.com/bad"), "b did not wait for bad's retries");
    assert.equal(end.last_indexed?.url, "https://example.com/c");
  });
}

test("a host that cannot be reached at connect defers without spending tries", async () => {
  let q = Q.enqueue(Q.emptyQueue(), page("a"), 0).queue;
  let reachable = false;
  let connects = 0;
  const { q: end } = await drainAll(
    q,
    async () => {
      connects++;
      if (!reachable) {
        if (connects === 5) reachable = true; // installed meanwhile
        throw fail("host_missing", true);
      }
      return { result: { status: "new" } };
    },
  );
  assert.equal(connects, 6);
  assert.equal(end.items.length + end.failed.length, 0, "sent once the host was there, no try lost");
  assert.equal(end.last_indexed?.url, "https://example.com/a");
});

test("a host refusal (status skipped) leaves the line without a retry or a failure", async () => {
  const q = Q.enqueue(Q.emptyQueue(), page("inbox"), 0).queue;
  let calls = 0;
  const { q: end } = await drainAll(q, async () => {
    calls++;
    return { result: { status: "skipped", category: "email", why: "looks like an inbox" } };
  });
  assert.equal(calls, 1);
  assert.deepEqual([end.items.length, end.failed.length, end.dropped], [0, 0, 0]);
  assert.equal(end.last_indexed, null, "not remembered");
});

test("a full disk on the helper's side: every page waits, no try spent, and the status says so", () => {
  let q = Q.enqueue(Q.emptyQueue(), page("a"), 0).queue;
  q = Q.enqueue(q, page("b"), 0).queue;
  const item = Q.nextReady(q, 1);
  q = Q.markSending(q, item.id, 1);
  q = Q.applyOutcome(q, item, { outcome: "defer", error: "disk_full: The disk is full" }, 2, 30_000).queue;
  const st = Q.status(q, 3);
  assert.equal(st.disk_full, true);
  assert.equal(st.pending, 2);
  assert.equal(st.failed, 0);
  assert.ok(q.items.every((it) => (it.tries ?? 0) === 0));
});
