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
  const marked = D.markReported(s.state, 1, URL_A, s.now());
  assert.equal(marked.visits["1"].reportedMs, T);
  assert.deepEqual(D.dueVisits(marked, s.now() + 60_000, T), []);
  assert.equal(D.msUntilDue(marked, s.now(), T), null, "nothing left to wait for");
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
