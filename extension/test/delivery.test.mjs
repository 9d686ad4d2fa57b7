import assert from "node:assert/strict";
import { test } from "node:test";
import { deliver, hostRefusal } from "../background/delivery.js";

const PASSAGES = [{ text: "a passage with enough words in it", position: 1, quality: 0.6 }];

/** @param {object} [over] */
const item = (over = {}) => ({
  id: "i1", kind: /** @type {"page"} */ ("page"), url: "https://example.com/a", title: "A", hash: "h-new",
  visited_at: 1000, dwell_s: 6, added_at: 0, tries: 0, next_at: 0, sending_since: 0, error: null, ...over,
});

/** Fake deps: the host answers with `replies[type]` (a value or a function). @param {object} [over] */
function deps(over = {}) {
  /** @type {[string, any][]} */
  const sent = [];
  /** @type {Record<string, any>} */
  const replies = {
    record_visit: { known: true },
    index_page: { result: { status: "new" } },
    .../** @type {any} */ (over).replies,
  };
  return {
    sent,
    request: async (/** @type {string} */ type, /** @type {any} */ fields) => {
      sent.push([type, fields]);
      const r = replies[type];
      return typeof r === "function" ? r(fields) : r;
    },
    payload: async () => PASSAGES,
    knownHash: async () => "h-old",
    refusal: async () => null,
    forgotten: async () => false,
    ...over,
  };
}

test("new content goes out as index_page; the hash is handed back to remember", async () => {
  const d = deps();
  assert.deepEqual(await deliver(item(), d), { outcome: "done", indexed: true, hash: "h-new" });
  assert.deepEqual(d.sent.map(([t]) => t), ["index_page"]);
  assert.deepEqual(d.sent[0][1].page.passages, PASSAGES);
});

test("an unchanged revisit sends only record_visit; a host that lost the page gets it whole", async () => {
  const same = deps({ knownHash: async () => "h-new" });
  assert.deepEqual(await deliver(item(), same), { outcome: "done", indexed: false, hash: "h-new" });
  assert.deepEqual(same.sent.map(([t]) => t), ["record_visit"]);
  const lost = deps({ knownHash: async () => "h-new", replies: { record_visit: { known: false } } });
  assert.equal((await deliver(item(), lost)).outcome, "done");
  assert.deepEqual(lost.sent.map(([t]) => t), ["record_visit", "index_page"]);
});

test("the host's refusal (status skipped) comes back with its category and reason, not as a failure", async () => {
  const d = deps({
    replies: { index_page: { result: { status: "skipped", category: "payments", why: "looks like a payment page" } } },
  });
  assert.deepEqual(await deliver(item(), d), {
    outcome: "skipped",
    refusal: { category: "payments", why: "looks like a payment page" },
  });
});

test("hostRefusal reads only a skipped result, and words a bare one", () => {
  assert.equal(hostRefusal({ result: { status: "new" } }), null);
  assert.equal(hostRefusal(null), null);
  assert.deepEqual(hostRefusal({ result: { status: "skipped" } }), {
    category: "host-check",
    why: "Rewind's helper judged it private",
  });
});

test("re-checked at delivery: what the rules refuse now, or what was forgotten, is never sent", async () => {
  const refused = deps({ refusal: async () => ({ category: "paused-site", why: "paused on this site" }) });
  assert.deepEqual(await deliver(item(), refused), {
    outcome: "refused",
    refusal: { category: "paused-site", why: "paused on this site" },
  });
  const forgotten = deps({ forgotten: async () => true });
  assert.deepEqual(await deliver(item(), forgotten), { outcome: "forgotten" });
  assert.deepEqual([...refused.sent, ...forgotten.sent], [], "nothing reached the host");
});

test("a page whose text is gone from storage is lost (counted), not sent as a bare visit", async () => {
  const d = deps({ payload: async () => null });
  const r = await deliver(item(), d);
  assert.equal(r.outcome, "lost");
  assert.deepEqual(d.sent, []);
});

test("errors: unsent (no host at connect) and store_locked defer; a timeout or an exit is a failed try", async () => {
  /** @param {any} err */
  const throwing = (err) => deps({ replies: { index_page: () => Promise.reject(err) } });
  const unsent = Object.assign(new Error("not installed"), { code: "host_missing", unsent: true });
  assert.equal((await deliver(item(), throwing(unsent))).outcome, "defer");
  const locked = Object.assign(new Error("busy"), { code: "store_locked" });
  assert.equal((await deliver(item(), throwing(locked))).outcome, "defer");
  const full = Object.assign(new Error("The disk holding … is full"), { code: "disk_full" });
  assert.deepEqual(await deliver(item(), throwing(full)), { outcome: "defer", error: "disk_full: The disk holding … is full" });
  for (const code of ["timeout", "host_disconnected", "bad_request"]) {
    const r = await deliver(item(), throwing(Object.assign(new Error("x"), { code })));
    assert.deepEqual(r, { outcome: "failed", error: `${code}: x`, code });
  }
});

test("a visit record (kind dwell) never sends page text", async () => {
  const d = deps({ replies: { record_visit: { known: false } } });
  const r = await deliver(item({ kind: "dwell", hash: "" }), d);
  assert.equal(r.outcome, "done");
  assert.deepEqual(d.sent.map(([t]) => t), ["record_visit"]);
});

test("a page the host says was forgotten is forgotten here too, not remembered as refused", async () => {
  const reply = { result: { status: "skipped", category: "forgotten", why: "you asked Rewind to forget it" } };
  const d = deps({ replies: { index_page: reply } });
  assert.deepEqual(await deliver(item(), d), { outcome: "forgotten" });
  const other = deps({ replies: { index_page: { result: { ...reply.result, category: "finance" } } } });
  assert.equal((await deliver(item(), other)).outcome, "skipped");
});

test("the page's signals go with it; a page the host holds is held, not skipped", async () => {
  const signals = { lang: "de", app: [], manifest: false, controls: ["Abmelden"], editors: 0 };
  const d = deps({
    signals: async () => signals,
    replies: { index_page: { result: { status: "held", category: "private", why: "looks like a private page", held_id: "3f2a" } } },
  });
  const r = await deliver(item(), d);
  assert.deepEqual(r, { outcome: "held", refusal: { category: "private", why: "looks like a private page" }, heldId: "3f2a" });
  assert.deepEqual(d.sent.find(([t]) => t === "index_page")?.[1].page.signals, signals);
  const none = deps();
  await deliver(item(), none);
  assert.equal("signals" in none.sent.find(([t]) => t === "index_page")?.[1].page, false, "no signals: no field");
});
