/**
 * From "this page was read" to the host: extraction, queue, delivery.
 *
 * Job: when a visit passes the dwell threshold, check the rules again, inject
 * the extractor into the tab (`scripting.executeScript`), hash the passages,
 * queue the page persistently, and drain the queue to the host — `index_page`
 * for new or changed content, only `record_visit` for an unchanged revisit.
 * Never: send anything for a URL the rules refuse, keep page text anywhere but
 * the queue's payload keys (deleted once delivered), or spend retries while
 * the host is simply not there.
 */

import { Code, RewindError } from "../lib/errors.js";
import { contentHash } from "../lib/hash.js";
import { loadPolicy } from "../lib/load_policy.js";
import { pageKey, whyNotRecord } from "../lib/rules.js";
import * as Q from "./queue.js";
import { serial } from "./serial.js";
import { forgetHashes, getSettings, knownHash, rememberHash } from "./storage.js";

const QUEUE = "queue";
const PAYLOAD = "qp:"; // + item id -> {passages}
export const QUEUE_ALARM = "rewind-queue";
const HOST_DOWN_RETRY_MS = 30_000; // unreachable host: look again after this
export const EXTRACT_FILES = Object.freeze([
  "vendor/Readability-readerable.js",
  "vendor/Readability.js",
  "content/chunker.js",
  "content/extract.js",
]);
const TRANSPORT_CODES = new Set([
  Code.HOST_MISSING,
  Code.HOST_FORBIDDEN,
  Code.HOST_DISCONNECTED,
  Code.HOST_INCOMPATIBLE,
  Code.TIMEOUT,
  "store_locked",
]);

const lane = serial();

/** @returns {Promise<Q.QueueState>} */
async function loadQueue() {
  const got = await chrome.storage.local.get(QUEUE);
  return Q.normalizeQueue(got[QUEUE]);
}

/** @param {Q.QueueState} q */
async function saveQueue(q) {
  await chrome.storage.local.set({ [QUEUE]: q });
}

/** @param {string[]} ids */
async function dropPayloads(ids) {
  if (ids.length) await chrome.storage.local.remove(ids.map((id) => PAYLOAD + id));
}

/**
 * Run the extractor in a tab's top frame and return what it found.
 * @param {number} tabId
 * @returns {Promise<{url: string, title: string, passages: {text: string, position: number, quality: number}[], method: string, stats: object}>}
 */
export async function extractTab(tabId) {
  const target = { tabId, frameIds: [0] };
  try {
    await chrome.scripting.executeScript({ target, files: [...EXTRACT_FILES] });
  } catch (err) {
    // vendor/ is filled by `node build.mjs`; without it, extract with the fallback only.
    console.warn("rewind: injecting with Readability failed, trying without", err);
    await chrome.scripting.executeScript({ target, files: EXTRACT_FILES.slice(2) });
  }
  const [res] = await chrome.scripting.executeScript({
    target,
    func: () => /** @type {any} */ (globalThis).RewindExtract.run(),
  });
  if (!res || !res.result || !Array.isArray(res.result.passages)) {
    throw new RewindError(Code.EXTRACTION_FAILED, "The page's text could not be read.");
  }
  return res.result;
}

export class Indexer {
  /**
   * @param {{native: import("./native.js").NativeClient, now?: () => number}} deps
   */
  constructor(deps) {
    this.native = deps.native;
    this.now = deps.now ?? Date.now;
    this.draining = false;
    this.timer = null;
  }

  /**
   * A visit passed the dwell threshold: extract, hash and queue it.
   * @param {{tabId: number, url: string, startedAt: number, dwellMs: number}} visit
   * @returns {Promise<{queued: boolean, reason?: string}>}
   */
  async pageRead(visit) {
    const settings = await getSettings();
    const tab = await chrome.tabs.get(visit.tabId).catch(() => null);
    if (!tab || !tab.url) return { queued: false, reason: "tab gone" };
    const why = whyNotRecord(visit.url, { ...settings, incognito: tab.incognito, policy: await loadPolicy() });
    if (why) return { queued: false, reason: why };
    if (pageKey(tab.url) !== visit.url) return { queued: false, reason: "navigated away" };
    const page = await extractTab(visit.tabId);
    if (pageKey(page.url) !== visit.url) return { queued: false, reason: "navigated away" };
    if (!page.passages.length) return { queued: false, reason: "no text" };
    const hash = await contentHash(page.passages);
    await this.enqueue({
      kind: "page",
      url: visit.url,
      title: page.title || tab.title || "",
      hash,
      visited_at: visit.startedAt / 1000,
      dwell_s: Math.round(visit.dwellMs / 100) / 10,
      passages: page.passages,
    });
    return { queued: true };
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
   *          dwell_s: number, passages?: {text: string, position: number, quality: number}[]}} page
   */
  async enqueue(page) {
    const id = `${this.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    await lane(async () => {
      const q = await loadQueue();
      const { passages, ...meta } = page;
      if (passages) await chrome.storage.local.set({ [PAYLOAD + id]: { passages } });
      const { queue, replaced, dropped } = Q.enqueue(q, { id, ...meta }, this.now());
      await saveQueue(queue);
      await dropPayloads([...replaced, ...dropped]);
    });
    this.kick();
  }

  /** Start draining soon (fast path; the alarm is the backstop). */
  kick() {
    setTimeout(() => this.drain().catch((err) => console.error("rewind: drain failed", err)), 0);
  }

  /** Send waiting items, one at a time, until none is ready. */
  async drain() {
    if (this.draining) return;
    this.draining = true;
    try {
      for (;;) {
        const settings = await getSettings();
        if (settings.paused) return;
        const now = this.now();
        const item = await lane(async () => {
          const q = await loadQueue();
          const next = Q.nextReady(q, now);
          if (next) await saveQueue(Q.markSending(q, next.id, now));
          return next;
        });
        if (!item) {
          await this.scheduleWake();
          return;
        }
        const ok = await this.deliver(item);
        if (!ok) {
          await this.scheduleWake();
          return;
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * Send one item. False when the host is unreachable (drain stops).
   * @param {Q.QueueItem} item
   */
  async deliver(item) {
    const got = await chrome.storage.local.get(PAYLOAD + item.id);
    const passages = got[PAYLOAD + item.id]?.passages;
    try {
      let indexed = false;
      const known = await knownHash(item.url);
      let needIndex = item.kind === "page" && Boolean(passages) && known !== item.hash;
      if (!needIndex) {
        const reply = await this.native.request("record_visit", {
          url: item.url,
          visited_at: item.visited_at,
          dwell_s: item.dwell_s,
        });
        // The host may have lost or forgotten the page: send it whole.
        if (reply.recorded === false || reply.known === false) needIndex = true;
      }
      if (needIndex && passages) {
        await this.native.request("index_page", {
          page: {
            url: item.url,
            title: item.title,
            passages,
            content_hash: item.hash,
            visited_at: item.visited_at,
            dwell_s: item.dwell_s,
          },
        });
        await rememberHash(item.url, item.hash, this.now());
        indexed = true;
      }
      await lane(async () => saveQueue(Q.markDone(await loadQueue(), item.id, this.now(), { indexed })));
      await dropPayloads([item.id]);
      return true;
    } catch (err) {
      const e = /** @type {any} */ (err);
      const code = String(e?.code ?? Code.INTERNAL);
      const message = String(e?.message ?? e).slice(0, 300);
      if (TRANSPORT_CODES.has(code)) {
        await lane(async () =>
          saveQueue(Q.deferAll(await loadQueue(), this.now() + HOST_DOWN_RETRY_MS, `${code}: ${message}`)),
        );
        return false;
      }
      if (code === "not_found") {
        await forgetHashes((u) => u === item.url);
      }
      const gaveUp = await lane(async () => {
        const r = Q.markFailed(await loadQueue(), item.id, this.now(), `${code}: ${message}`);
        await saveQueue(r.queue);
        return r.gaveUp;
      });
      if (gaveUp) console.warn("rewind: gave up on a page after retries:", code);
      return true;
    }
  }

  /** Arm the alarm for the queue's next due item (survives the worker). */
  async scheduleWake() {
    const q = await loadQueue();
    const at = Q.nextWakeAt(q, this.now());
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
    await lane(async () => saveQueue(Q.resumeDeferred(await loadQueue(), this.now())));
    this.kick();
  }

  /** At worker start: a send the previous worker died in is retried now. */
  async recover() {
    await lane(async () => saveQueue(Q.resetSending(await loadQueue())));
  }

  /** Status for the popup. */
  async status() {
    const [q, settings] = await Promise.all([loadQueue(), getSettings()]);
    return { ...Q.status(q, this.now()), paused: settings.paused };
  }

  async retryFailed() {
    await lane(async () => saveQueue(Q.retryFailed(await loadQueue(), this.now())));
    this.kick();
  }

  /**
   * After a forget / clear on the host: drop matching queue items and hashes.
   * @param {(url: string) => boolean} match
   */
  async forget(match) {
    const removed = await lane(async () => {
      const r = Q.dropMatching(await loadQueue(), match);
      await saveQueue(r.queue);
      return r.removed;
    });
    await dropPayloads(removed);
    await forgetHashes(match);
  }
}
