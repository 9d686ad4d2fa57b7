/**
 * From "this page was read" to the host: extraction, queue, delivery.
 *
 * Job: when a visit passes the dwell threshold (or is due to be read again), check the
 * rules and what is remembered about the URL, extract it in the tab, refuse it when the
 * page itself shows a password or payment field, hash the passages, queue the page
 * persistently (only when its content changed), and drain the queue to the host through
 * delivery.js, applying each outcome: done, refused or skipped (the reason is kept for the
 * URL), held for the person's decision (kept for the URL until they decide: popup and
 * options), lost or given up (counted), deferred (the host is away: no try spent).
 * Never: send anything for a URL the rules refuse now, extract a page already judged not
 * to be recorded, keep page text anywhere but the queue's payloads (deleted once
 * delivered), or spend retries while the host is simply not there.
 */

import { contentHash } from "../lib/hash.js";
import { hostMatches, pageKey, siteOfUrl } from "../lib/rules.js";
import { deliver } from "./delivery.js";
import { extractTab } from "./extractor.js";
import { refusal } from "./gate.js";
import * as P from "./pages.js";
import * as Q from "./queue.js";
import * as store from "./queue-store.js";
import { getSettings } from "./storage.js";

export const QUEUE_ALARM = "rewind-queue";
const HOST_DOWN_RETRY_MS = 30_000; // unreachable host: look again after this

/**
 * @typedef {import("./tracker.js").DueVisit} DueVisit
 * @typedef {{queued: boolean, reason?: string, hash?: string}} ReadResult
 */

// extract.js's and extractor.js's category for a page not read within its time budget.
const UNREADABLE = "unreadable";

export class Indexer {
  /**
   * @param {{native: import("./native.js").NativeClient, now?: () => number,
   *          extract?: typeof extractTab}} deps
   */
  constructor(deps) {
    this.native = deps.native;
    this.now = deps.now ?? Date.now;
    this.extract = deps.extract ?? extractTab;
    this.draining = false;
    this.timer = null;
  }

  /**
   * A visit is due to be extracted: check, extract, hash and queue it.
   * @param {DueVisit} visit @returns {Promise<ReadResult>}
   */
  async pageRead(visit) {
    const tab = await chrome.tabs.get(visit.tabId).catch(() => null);
    if (!tab || !tab.url) return { queued: false, reason: "tab gone" };
    if (pageKey(tab.url) !== visit.url) return { queued: false, reason: "navigated away" };
    const refused = await refusal(visit.url, { incognito: tab.incognito });
    if (refused) return { queued: false, reason: refused.why };
    const known = await P.verdictFor(visit.url);
    // Never retried, except a page skipped for being too slow to read: the next visit tries again.
    const retry = known?.category === UNREADABLE && !visit.again;
    if (known && !retry) return { queued: false, reason: `already judged: ${known.why}` };
    const settings = await getSettings();
    const site = siteOfUrl(visit.url);
    const always = settings.alwaysRecord.some((d) => hostMatches(site, d));
    const page = await this.extract(visit.tabId, { redact: settings.redact, honourSignals: !always });
    if (pageKey(page.url) !== visit.url) return { queued: false, reason: "navigated away" };
    if (page.refused) {
      // Judged at the threshold: remembered, never extracted again. A field that appears
      // later (a sign-in box over a page already recorded) only stops this re-extraction.
      if (!visit.again) await P.noteVerdict(visit.url, { ...page.refused, by: "page" }, this.now());
      return { queued: false, reason: page.refused.why };
    }
    if (page.skipped) {
      // Too big or too busy to read within its budget: the popup says so until a visit reads it.
      await P.noteVerdict(visit.url, { ...page.skipped, by: "page" }, this.now());
      return { queued: false, reason: page.skipped.why };
    }
    if (retry) await P.clearVerdicts((u) => u === visit.url);
    if (!page.passages.length) return { queued: false, reason: "no text" };
    const hash = await contentHash(page.passages);
    if (visit.again && hash === visit.hash) return { queued: false, reason: "unchanged", hash };
    await this.enqueue({
      kind: "page",
      url: visit.url,
      title: page.title, // from the page itself, masked with its passages (never the raw tab title)
      hash,
      visited_at: visit.startedAt / 1000,
      dwell_s: Math.round(visit.dwellMs / 100) / 10,
      passages: page.passages,
      signals: page.signals ?? null,
    });
    return { queued: true, hash };
  }

  /**
   * A recorded visit ended: send its whole dwell (the page went out at the
   * threshold with the dwell of that moment).
   * @param {{url: string, startedAt: number, reportedMs: number}} visit @param {number} dwellMs
   */
  async visitEnded(visit, dwellMs) {
    if (dwellMs - visit.reportedMs < 2000) return; // nothing worth a message
    await this.enqueue({
      kind: "dwell",
      url: visit.url,
      title: "",
      hash: "",
      visited_at: visit.startedAt / 1000,
      dwell_s: Math.round(dwellMs / 100) / 10,
    });
  }

  /**
   * @param {{kind: "page"|"dwell", url: string, title: string, hash: string, visited_at: number,
   *          dwell_s: number, passages?: {text: string, position: number, quality: number}[],
   *          signals?: object|null}} page
   */
  async enqueue(page) {
    const id = `${this.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const { passages, signals, ...meta } = page;
    let bytes = 0;
    try {
      if (passages) bytes = await store.putPayload(id, passages, signals ?? null);
    } catch (err) {
      // Storage refused the text (disk full): the page is lost, and the popup says so.
      await store.update((q) => ({
        queue: Q.countDropped(q, [{ ...meta, id }], `it could not be stored (${String(err).slice(0, 120)})`, this.now()),
        drop: [id],
      }));
      return;
    }
    await store.update((q) => {
      const r = Q.enqueue(q, { id, ...meta, bytes }, this.now());
      return { queue: r.queue, drop: [...r.replaced, ...r.dropped] };
    });
    this.kick();
  }

  /** Start draining soon (fast path; the alarm is the backstop). */
  kick() {
    setTimeout(() => this.drain().catch((err) => console.error("rewind: drain failed", err)), 0);
  }

  /** Send waiting items, one at a time, until none is ready or the host is away. */
  async drain() {
    if (this.draining) return;
    this.draining = true;
    try {
      for (;;) {
        if ((await getSettings()).paused) return;
        const now = this.now();
        const item = await store.update((q) => {
          const next = Q.nextReady(q, now);
          return { queue: next ? Q.markSending(q, next.id, now) : q, out: next };
        });
        if (!item) break;
        if (!(await this.deliverOne(item))) break;
      }
      await this.scheduleWake();
    } finally {
      this.draining = false;
    }
  }

  /**
   * Deliver one item and apply the outcome. False when the host is away (drain stops).
   * @param {Q.QueueItem} item
   */
  async deliverOne(item) {
    const r = await deliver(item, {
      request: (type, fields) => this.native.request(type, fields),
      payload: (id) => store.getPayload(id),
      signals: (id) => store.getSignals(id),
      knownHash: (url) => P.knownHash(url),
      forgotten: (url, at) => P.forgotten(url, at),
      refusal: async (it) => (await refusal(it.url, { ignorePause: true })) ?? (await P.verdictFor(it.url)),
    });
    const now = this.now();
    if (r.outcome === "done" && r.indexed) await P.rememberHash(item.url, r.hash, now);
    if (r.outcome === "failed" && r.code === "not_found") await P.forgetHashes((u) => u === item.url);
    // Not recorded on purpose: the page's own reason or the host's is remembered for the
    // URL (the popup says why) and the page is never sent again. A refusal by the rules is
    // not: the rules themselves say it again, and may change.
    if (r.outcome === "skipped") await P.noteVerdict(item.url, { ...r.refusal, by: "host" }, now);
    // Held: not sent again while the person decides (the popup asks); "keep" clears it.
    if (r.outcome === "held") await P.noteVerdict(item.url, { ...r.refusal, by: "held", hash: item.hash }, now);
    if (r.outcome === "refused") console.info("rewind: not sent, the rules refuse it now:", r.refusal.why);
    const applied = await store.update((q) => {
      const a = Q.applyOutcome(q, item, r, now, HOST_DOWN_RETRY_MS);
      return { queue: a.queue, drop: a.drop, out: a };
    });
    if (applied?.gaveUp) console.warn("rewind: gave up on a page after retries:", /** @type {any} */ (r).error);
    return !applied?.stop;
  }

  /** Arm the alarm for the queue's next due item (survives the worker). */
  async scheduleWake() {
    const at = Q.nextWakeAt(await store.load(), this.now());
    if (at === null) {
      await chrome.alarms.clear(QUEUE_ALARM);
      return;
    }
    await chrome.alarms.create(QUEUE_ALARM, { when: Math.max(at, this.now() + 1000) });
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.drain().catch(() => {}), Math.max(0, at - this.now()) + 50);
  }

  /** The host (re)connected: pages deferred while it was away go now, not in 30 s. */
  async hostBack() {
    await store.update((q) => ({ queue: Q.resumeDeferred(q, this.now()) }));
    this.kick();
  }

  /** At worker start: a send the previous worker died in is retried now. */
  async recover() {
    await store.update((q) => ({ queue: Q.resetSending(q) }));
  }

  /** Status for the popup. */
  async status() {
    const [q, settings] = await Promise.all([store.load(), getSettings()]);
    return { ...Q.status(q, this.now()), paused: settings.paused };
  }

  /** The queue's view of one URL, for the popup: waiting, failed, or nothing. @param {string} url */
  async itemFor(url) {
    const q = await store.load();
    const failed = q.failed.filter((it) => it.url === url).at(-1);
    const waiting = q.items.find((it) => it.url === url);
    if (waiting) return { state: "waiting", ahead: q.items.indexOf(waiting), error: waiting.error };
    if (failed) return { state: "failed", error: failed.error };
    return null;
  }

  async retryFailed() {
    await store.update((q) => ({ queue: Q.retryFailed(q, this.now()) }));
    this.kick();
  }

  /**
   * After a forget / clear on the host: drop matching queue items and hashes, and leave a
   * mark so a copy read before now that is already on its way is dropped at delivery.
   * @param {P.ForgetMark} mark
   */
  async forget(mark) {
    const match = (/** @type {{url: string, visited_at?: number}} */ it) =>
      P.coveredByForget([mark], it.url, it.visited_at ?? -Infinity);
    await P.addForgetMark(mark);
    await store.update((q) => {
      const r = Q.dropMatching(q, match);
      return { queue: r.queue, drop: r.removed };
    });
    if (mark.since === undefined && mark.until === undefined) {
      await P.forgetHashes((url) => P.coveredByForget([mark], url, -Infinity));
    } else {
      // A time range: hashes cannot tell when a page was visited; forgetting them all
      // costs one re-embedding of unchanged revisits, never a loss.
      await P.forgetHashes(() => true);
    }
  }
}
