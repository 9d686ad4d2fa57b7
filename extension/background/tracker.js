/**
 * Dwell tracking in the browser: the glue between Chrome's events and dwell.js.
 *
 * Job: keep the dwell state in `chrome.storage.session` up to date from tab,
 * window, navigation and idle events; arm a `chrome.alarms` alarm (plus a
 * timer as a fast path while the worker lives) for the moment the front page
 * reaches the threshold or its next re-extraction; hand due visits to `onDue`
 * (at the threshold, after each further minute of reading and when an extracted
 * page leaves the front, bounded by dwell.js's RECHECK).
 * Never: keep state in worker globals (the worker can be killed at any time),
 * create visits for incognito tabs or URLs the rules refuse, or trust a
 * WINDOW_ID_NONE focus event without asking `windows.getLastFocused()` (in
 * headless Chromium the focus event never comes back).
 */

import { pageKey } from "../lib/rules.js";
import * as D from "./dwell.js";
import { refusal } from "./gate.js";
import { serial } from "./serial.js";
import { getSettings } from "./storage.js";

const KEY = "dwell";
export const DWELL_ALARM = "rewind-dwell";
export const IDLE_SECONDS = 60; // chrome.idle's detection interval (minimum 15)

/**
 * A visit to extract: at the threshold (`again: false`) or again (`again: true`, with the
 * hash of its last extraction). Resolves with the new extraction's hash, if any.
 * @typedef {{tabId: number, url: string, startedAt: number, dwellMs: number, again: boolean, hash: string|null}} DueVisit
 * @typedef {(visit: DueVisit) => Promise<{hash?: string}|unknown>} OnDue
 */
/** @typedef {(visit: D.Visit, dwellMs: number) => Promise<unknown>} OnEnded */

/**
 * The user's idle state: "active" | "idle" | "locked". The ONE place it is
 * read, so browser tests can set `globalThis.__rewindTest.idleState` (headless
 * Chromium always answers "active").
 * @returns {Promise<string>}
 */
export async function readIdleState() {
  const hook = /** @type {any} */ (globalThis).__rewindTest;
  if (hook && typeof hook.idleState === "string") return hook.idleState;
  return chrome.idle.queryState(IDLE_SECONDS);
}

export class Tracker {
  /** @param {{onDue: OnDue, onEnded?: OnEnded, now?: () => number}} deps */
  constructor(deps) {
    this.onDue = deps.onDue;
    this.onEnded = deps.onEnded;
    this.now = deps.now ?? Date.now;
    this.lane = serial();
    this.timer = null;
    // A hand-on stamped before this is a stopped worker's, never this one's (dwell.js).
    this.bornAt = this.now();
  }

  /** @returns {Promise<D.DwellState>} */
  async load() {
    const got = await chrome.storage.session.get(KEY);
    return D.normalizeState(got[KEY]);
  }

  /**
   * Read-modify-write the state through one lane.
   * @template T
   * @param {(s: D.DwellState, now: number) => Promise<{state: D.DwellState, out?: T}>|{state: D.DwellState, out?: T}} fn
   * @returns {Promise<T|undefined>}
   */
  update(fn) {
    return this.lane(async () => {
      const before = await this.load();
      const { state, out } = await fn(before, this.now());
      if (state !== before) await chrome.storage.session.set({ [KEY]: state });
      return out;
    });
  }

  async thresholdMs() {
    return (await getSettings()).dwellSeconds * 1000;
  }

  /** What is in front now, asked from Chrome (never inferred from one event). */
  async front() {
    /** @type {chrome.windows.Window|null} */
    let win = null;
    try {
      win = await chrome.windows.getLastFocused({ windowTypes: ["normal"] });
    } catch {
      win = null; // no window at all
    }
    let tabId = null;
    if (win && win.id !== undefined) {
      const [tab] = await chrome.tabs.query({ active: true, windowId: win.id });
      tabId = tab?.id ?? null;
    }
    const idle = await readIdleState();
    return { tabId, focused: Boolean(win && win.focused), active: idle === "active" };
  }

  /** Re-read what is in front, re-read pages that just left it, re-arm the check. */
  async refresh() {
    const front = await this.front();
    if (front.tabId !== null) await this.ensureVisit(front.tabId);
    const left = await this.update((s, now) => {
      const next = D.setFront(s, front, now);
      let state = next;
      const gone = D.leftFront(s, next, now);
      for (const v of gone) state = D.markExtracting(state, v.tabId, v.url, now);
      return { state, out: gone.map((v) => this.dueVisit(v, now, true)) };
    });
    await this.hand(left || []);
    await this.schedule();
  }

  /** @param {D.Visit} v @param {number} now @param {boolean} again @returns {DueVisit} */
  dueVisit(v, now, again) {
    return { tabId: v.tabId, url: v.url, startedAt: v.startedAt, dwellMs: D.elapsedMs(v, now), again, hash: v.hash ?? null };
  }

  /**
   * Hand visits to onDue, one at a time; keep each extraction's hash on its visit and mark
   * it handed. A worker stopped in here leaves the mark unset: the next one hands it again.
   * @param {DueVisit[]} due
   */
  async hand(due) {
    for (const v of due) {
      /** @type {any} */
      let r = null;
      try {
        r = await this.onDue(v);
        console.info("rewind: page read", r);
      } catch (err) {
        console.error("rewind: handing on a read page failed", err);
      }
      await this.update((s) => {
        const hashed = r && typeof r.hash === "string" ? D.setHash(s, v.tabId, v.url, r.hash) : s;
        return { state: D.handed(hashed, v.tabId, v.url) };
      });
    }
  }

  /**
   * The front tab has no visit yet (opened before the worker started, or the
   * browser restarted and session storage was emptied): start one.
   * @param {number} tabId
   */
  async ensureVisit(tabId) {
    const s = await this.load();
    if (s.visits[String(tabId)]) return;
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    if (tab?.url) await this.startOrEnd(tabId, tab.url, tab);
  }

  /**
   * Start a visit for `url` in the tab, or end the tab's visit if the URL is
   * not to be recorded (nothing about it is stored).
   * @param {number} tabId @param {string} url @param {chrome.tabs.Tab|null} [knownTab]
   */
  async startOrEnd(tabId, url, knownTab) {
    const tab = knownTab ?? (await chrome.tabs.get(tabId).catch(() => null));
    const key = pageKey(url);
    const refused = !tab || (await refusal(key, { incognito: tab.incognito })) !== null;
    const ended = await this.update((s, now) => {
      const r = refused ? D.endVisit(s, tabId, now) : D.startVisit(s, { tabId, url: key }, now);
      return { state: r.state, out: r.ended };
    });
    if (ended) await this.visitEnded(ended);
  }

  /**
   * A tab committed a navigation (or changed URL in place).
   * @param {number} tabId @param {string} url
   */
  async navigated(tabId, url) {
    await this.startOrEnd(tabId, url);
    await this.refresh();
  }

  /** @param {number} tabId */
  async closed(tabId) {
    const ended = await this.update((s, now) => {
      const r = D.endVisit(s, tabId, now);
      return { state: r.state, out: r.ended };
    });
    if (ended) await this.visitEnded(ended);
    await this.refresh();
  }

  /** @param {D.Visit} visit */
  async visitEnded(visit) {
    if (!visit.reported || !this.onEnded) return;
    try {
      await this.onEnded(visit, visit.accMs);
    } catch (err) {
      console.error("rewind: visit end handler failed", err);
    }
  }

  /** Hand due visits on; called by the alarm, the timer and after refreshes. */
  async check() {
    const front = await this.front();
    const threshold = await this.thresholdMs();
    const due = await this.update((s, now) => {
      let state = D.setFront(s, front, now);
      const first = D.dueVisits(state, now, threshold);
      for (const v of first) state = D.markReported(state, v.tabId, v.url, now);
      const cut = D.interrupted(state, this.bornAt);
      for (const v of cut) state = D.markHanding(state, v.tabId, v.url, now);
      const again = D.dueRechecks(state, now);
      for (const v of again) state = D.markExtracting(state, v.tabId, v.url, now);
      return {
        state,
        out: [...[...first, ...cut].map((v) => this.dueVisit(v, now, false)), ...again.map((v) => this.dueVisit(v, now, true))],
      };
    });
    if (due?.length) {
      // Should this worker be stopped mid-way, the alarm wakes the next to hand them again.
      await chrome.alarms.create(DWELL_ALARM, { when: this.now() + D.HAND_LEASE_MS });
    }
    await this.hand(due || []);
    await this.schedule();
  }

  /** Arm an alarm (survives the worker) and a timer (fast path) for the next due moment. */
  async schedule() {
    const state = await this.load();
    const ms = D.msUntilDue(state, this.now(), await this.thresholdMs(), this.bornAt);
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (ms === null) {
      await chrome.alarms.clear(DWELL_ALARM);
      return;
    }
    const delay = ms + 50;
    await chrome.alarms.create(DWELL_ALARM, { when: this.now() + Math.max(delay, 1000) });
    this.timer = setTimeout(() => {
      this.timer = null;
      this.check().catch((err) => console.error("rewind: dwell check failed", err));
    }, delay);
  }

  /** At worker start: drop visits of tabs that no longer exist, then re-arm. */
  async reconcile() {
    const tabs = await chrome.tabs.query({});
    const alive = new Set(tabs.map((t) => t.id));
    await this.update((s, now) => {
      let state = s;
      for (const v of Object.values(s.visits)) {
        if (!alive.has(v.tabId)) state = D.endVisit(state, v.tabId, now).state;
      }
      return { state };
    });
    await this.refresh();
  }

  /** For tests: the stored state. */
  async snapshot() {
    const s = await this.load();
    const now = this.now();
    return {
      ...s,
      elapsed: Object.fromEntries(Object.entries(s.visits).map(([k, v]) => [k, D.elapsedMs(v, now)])),
    };
  }
}
