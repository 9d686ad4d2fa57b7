import assert from "node:assert/strict";
import { test } from "node:test";
import * as D from "../background/dwell.js";

const T = 5000; // threshold
const URL_A = "https://example.com/a";
const URL_B = "https://example.com/b";

/** A small scenario runner over a fake clock. */
function scenario() {
  let state = D.emptyState();
  let now = 1_000_000;
  return {
    get state() {
      return state;
    },
    /** @param {number} ms */
    tick(ms) {
      now += ms;
    },
    now: () => now,
    /** @param {Partial<D.Front>} f */
    front(f) {
      state = D.setFront(state, f, now);
    },
    /** @param {number} tabId @param {string} url */
    visit(tabId, url) {
      const r = D.startVisit(state, { tabId, url }, now);
      state = r.state;
      return r.ended;
    },
    /** @param {number} tabId */
    close(tabId) {
      const r = D.endVisit(state, tabId, now);
      state = r.state;
      return r.ended;
    },
    /** @param {number} tabId */
    elapsed(tabId) {
      return D.elapsedMs(state.visits[String(tabId)], now);
    },
  };
}

test("time counts only while the tab is in front, focused and the user active", () => {
  const s = scenario();
  s.front({ tabId: 1, focused: true, active: true });
  s.visit(1, URL_A);
  s.tick(2000);
  assert.equal(s.elapsed(1), 2000);
  s.front({ focused: false }); // another application in front
  s.tick(60_000);
  assert.equal(s.elapsed(1), 2000);
  s.front({ focused: true });
  s.tick(1000);
  s.front({ active: false }); // idle
  s.tick(30_000);
  s.front({ active: true });
  s.tick(500);
  assert.equal(s.elapsed(1), 3500);
});

test("a background tab does not accrue; switching tabs moves the clock", () => {
  const s = scenario();
  s.front({ tabId: 1, focused: true, active: true });
  s.visit(1, URL_A);
  s.visit(2, URL_B); // opened in the background
  s.tick(3000);
  s.front({ tabId: 2 });
  s.tick(4000);
  assert.equal(s.elapsed(1), 3000);
  assert.equal(s.elapsed(2), 4000);
});

test("due visits: once past the threshold, reported once", () => {
  const s = scenario();
  s.front({ tabId: 1, focused: true, active: true });
  s.visit(1, URL_A);
  assert.equal(D.msUntilDue(s.state, s.now(), T), T);
  s.tick(4999);
  assert.deepEqual(D.dueVisits(s.state, s.now(), T), []);
  assert.equal(D.msUntilDue(s.state, s.now(), T), 1);
  s.tick(1);
  const due = D.dueVisits(s.state, s.now(), T);
  assert.deepEqual(due.map((v) => v.url), [URL_A]);
  const handing = D.markReported(s.state, 1, URL_A, s.now());
  assert.equal(handing.visits["1"].reportedMs, T);
  assert.equal(D.msUntilDue(handing, s.now(), T), D.HAND_LEASE_MS, "the lease while handing");
  const marked = D.handed(handing, 1, URL_A);
  assert.deepEqual(D.dueVisits(marked, s.now() + 60_000, T), []);
  assert.equal(D.msUntilDue(marked, s.now(), T), D.RECHECK.everyMs, "only its re-extraction is left");
});

test("a hand-on a stopped worker left unfinished is due again in the next worker, once", () => {
  const s = scenario();
  s.front({ tabId: 1, focused: true, active: true });
  s.visit(1, URL_A);
  s.tick(T);
  const handing = D.markReported(s.state, 1, URL_A, s.now());
  const sameWorker = s.now() - 10; // born before the hand-on began: it is its own
  assert.deepEqual(D.interrupted(handing, sameWorker), []);
  assert.equal(D.msUntilDue(handing, s.now(), T, sameWorker), D.HAND_LEASE_MS);
  s.tick(300); // the worker is stopped; the next one starts
  const bornAt = s.now();
  assert.deepEqual(D.interrupted(handing, bornAt).map((v) => v.url), [URL_A]);
  assert.equal(D.msUntilDue(handing, s.now(), T, bornAt), 0, "due at once");
  assert.deepEqual(D.dueVisits(handing, s.now(), T), [], "not a new first hand-on");
  const again = D.markHanding(handing, 1, URL_A, s.now());
  assert.deepEqual(D.interrupted(again, bornAt), [], "this worker's own now");
  const done = D.handed(again, 1, URL_A);
  assert.equal(done.visits["1"].handing, null);
  assert.equal(D.handed(done, 1, URL_A), done, "nothing to clear twice");
  assert.equal(D.markHanding(done, 2, URL_A, s.now()), done, "another tab: untouched");
});

test("re-extraction: after each minute of further reading, at most maxExtractions a visit", () => {
  const s = scenario();
  s.front({ tabId: 1, focused: true, active: true });
  s.visit(1, URL_A);
  s.tick(T);
  let st = D.handed(D.markReported(s.state, 1, URL_A, s.now()), 1, URL_A);
  let extractions = 1;
  for (;;) {
    const wait = D.msUntilDue(st, s.now(), T);
    if (wait === null) break;
    assert.equal(wait, D.RECHECK.everyMs);
    assert.deepEqual(D.dueRechecks(st, s.now() + wait - 1), [], "not before a minute of reading");
    s.tick(wait);
    assert.deepEqual(D.dueRechecks(st, s.now()).map((v) => v.url), [URL_A]);
    st = D.markExtracting(st, 1, URL_A, s.now());
    extractions++;
    assert.deepEqual(D.dueRechecks(st, s.now()), [], "counted before it runs: never twice");
  }
  assert.equal(extractions, D.RECHECK.maxExtractions);
  s.tick(10 * D.RECHECK.everyMs);
  assert.deepEqual(D.dueRechecks(st, s.now()), []);
  assert.equal(D.markExtracting(st, 1, URL_A, s.now()), st, "no more than the bound");
});

test("re-extraction when an extracted page leaves the front, not after a quick flip", () => {
  const s = scenario();
  s.front({ tabId: 1, focused: true, active: true });
  s.visit(1, URL_A);
  s.visit(2, URL_B);
  s.tick(T);
  const reported = D.markReported(s.state, 1, URL_A, s.now());
  // Straight away to another tab: less than minGapMs read since the extraction.
  let after = D.setFront(reported, { tabId: 2 }, s.now() + 500);
  assert.deepEqual(D.leftFront(reported, after, s.now() + 500), []);
  // Read on, then switch: the page is read again as it is now.
  s.tick(D.RECHECK.minGapMs);
  after = D.setFront(reported, { tabId: 2 }, s.now());
  assert.deepEqual(D.leftFront(reported, after, s.now()).map((v) => v.url), [URL_A]);
  // Going idle counts as leaving too; a visit never extracted does not.
  const idle = D.setFront(reported, { active: false }, s.now());
  assert.deepEqual(D.leftFront(reported, idle, s.now()).map((v) => v.url), [URL_A]);
  const fresh = scenario();
  fresh.front({ tabId: 1, focused: true, active: true });
  fresh.visit(1, URL_A);
  fresh.tick(T * 2);
  const away = D.setFront(fresh.state, { focused: false }, fresh.now());
  assert.deepEqual(D.leftFront(fresh.state, away, fresh.now()), []);
});

test("setHash keeps the last extraction's content hash on the visit only", () => {
  const s = scenario();
  s.visit(1, URL_A);
  const st = D.setHash(s.state, 1, URL_A, "h1");
  assert.equal(st.visits["1"].hash, "h1");
  assert.equal(D.setHash(st, 1, URL_B, "h2"), st, "another page: unchanged");
  assert.equal(s.state.visits["1"].hash, undefined, "input not mutated");
});

test("a short skim never becomes due", () => {
  const s = scenario();
  s.front({ tabId: 1, focused: true, active: true });
  s.visit(1, "https://news.example/");
  s.tick(3000);
  const ended = s.visit(1, URL_A);
  assert.equal(ended?.accMs, 3000);
  assert.equal(ended?.reported, false);
  assert.deepEqual(D.dueVisits(s.state, s.now(), T), []);
});

test("the same page again (reload, duplicate event) keeps the visit; another page ends it", () => {
  const s = scenario();
  s.front({ tabId: 1, focused: true, active: true });
  s.visit(1, URL_A);
  s.tick(3000);
  assert.equal(s.visit(1, URL_A), null);
  s.tick(3000);
  assert.equal(s.elapsed(1), 6000);
  const ended = s.visit(1, URL_B);
  assert.equal(ended?.url, URL_A);
  assert.equal(ended?.accMs, 6000);
  assert.equal(s.elapsed(1), 0);
});

test("closing the tab ends the visit with its final dwell", () => {
  const s = scenario();
  s.front({ tabId: 1, focused: true, active: true });
  s.visit(1, URL_A);
  s.tick(7000);
  const ended = s.close(1);
  assert.equal(ended?.accMs, 7000);
  assert.deepEqual(s.state.visits, {});
  assert.equal(s.close(1), null);
});

test("state survives a round trip through JSON (chrome.storage) mid-visit", () => {
  const s = scenario();
  s.front({ tabId: 1, focused: true, active: true });
  s.visit(1, URL_A);
  s.tick(2000);
  const restored = D.normalizeState(JSON.parse(JSON.stringify(s.state)));
  assert.equal(D.elapsedMs(restored.visits["1"], s.now() + 1000), 3000);
  assert.deepEqual(D.normalizeState(null), D.emptyState());
});

test("functions never mutate their input", () => {
  const s = scenario();
  s.front({ tabId: 1, focused: true, active: true });
  s.visit(1, URL_A);
  const frozen = JSON.stringify(s.state);
  D.setFront(s.state, { focused: false }, s.now() + 10);
  D.startVisit(s.state, { tabId: 1, url: URL_B }, s.now() + 10);
  D.endVisit(s.state, 1, s.now() + 10);
  D.markReported(s.state, 1, URL_A, s.now() + 10);
  assert.equal(JSON.stringify(s.state), frozen);
});
