import assert from "node:assert/strict";
import { test } from "node:test";
import { jobFollower, jobOfStatus } from "../lib/job-follow.js";

const running = (percent) => ({ model: "all-minilm-l6-v2-int8@256", state: "running", percent });

/** Timers run by hand: `tick()` fires every timer due by then, in order. */
function clock() {
  let now = 0;
  let seq = 0;
  /** @type {Map<number, {at: number, fn: () => void}>} */
  const timers = new Map();
  return {
    setTimer: (/** @type {() => void} */ fn, /** @type {number} */ ms) => {
      seq += 1;
      timers.set(seq, { at: now + ms, fn });
      return seq;
    },
    clearTimer: (/** @type {number} */ t) => timers.delete(t),
    pending: () => timers.size,
    async tick(/** @type {number} */ ms) {
      const until = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
        for (let i = 0; i < 5; i += 1) await Promise.resolve(); // let the ask settle
      }
      now = until;
    },
  };
}

test("a page load that could not reach the helper keeps the job and its following", async () => {
  // The bug this guards against: the worker stopped under the popup, its load saw "not connected"
  // and took that for "no job": the line went and nothing asked again, so no worker
  // started again and the helper stayed down for good.
  const c = clock();
  const shown = [];
  /** @type {any[]} */
  const answers = [];
  const f = jobFollower({ ask: async () => answers.shift() ?? Promise.reject(new Error("stopped")),
    show: (j) => shown.push(j?.percent ?? null), setTimer: c.setTimer, clearTimer: c.clearTimer });
  f.known(running(10));
  assert.deepEqual(shown, [10]);
  f.known(undefined); // status while the helper restarts: connecting, no stats
  assert.deepEqual(shown, [10], "the line stays");
  assert.equal(f.shown.percent, 10);
  await c.tick(1000); // the ask fails (worker stopped): asked again a second later
  assert.equal(c.pending(), 1, "still following");
  answers.push({ reembed: running(40) });
  await c.tick(1000);
  assert.deepEqual(shown, [10, 40], "it moves on once the helper is back");
  answers.push({ reembed: null });
  await c.tick(1000);
  assert.deepEqual(shown, [10, 40, null], "only the helper's answer ends it");
  assert.equal(c.pending(), 0, "nothing more asked");
});

test("an ask that never settles (a worker stopped mid-call) is given up and asked again", async () => {
  const c = clock();
  let asks = 0;
  const f = jobFollower({ ask: () => { asks += 1; return asks === 1 ? new Promise(() => {}) : Promise.resolve({ reembed: running(70) }); },
    show: () => {}, setTimer: c.setTimer, clearTimer: c.clearTimer, lateMs: 10_000 });
  f.set(running(50));
  await c.tick(1000);
  assert.equal(asks, 1);
  await c.tick(10_000); // late: no answer
  await c.tick(1000);
  assert.equal(asks, 2);
  assert.equal(f.shown.percent, 70);
});

test("the job a status load knows of", () => {
  assert.equal(jobOfStatus({ host: { state: "connected" }, stats: { reembed: null } }), null);
  assert.deepEqual(jobOfStatus({ host: { state: "connected" }, stats: { reembed: running(5) } }), running(5));
  assert.equal(jobOfStatus({ host: { state: "connected" }, stats: null }), undefined, "stats failed");
  assert.equal(jobOfStatus({ host: { state: "connecting" } }), undefined);
  assert.equal(jobOfStatus({ host: { state: "error" }, stats: { reembed: null } }), undefined);
  assert.equal(jobOfStatus(null), undefined);
});
