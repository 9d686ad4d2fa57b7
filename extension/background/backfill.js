/**
 * The history backfill: the text of pages imported from the history, loaded again from
 * their sites, once the person agreed.
 *
 * Job: after consent ("Rewind will load these public pages again from their sites,
 * without your cookies, to read their text"), take the pages an import left without text
 * one at a time: check the rules as they are now; fetch the page without credentials
 * (no cookies, no referrer), at most one request per site per second, never while a tab
 * is loading (the person's browsing comes first); skip a page that needs a sign-in, fails,
 * or is not a web page, with its reason; read the HTML in the offscreen document with the
 * same extraction, chunker and masking as a tab (offscreen.js); hand the passages to the
 * helper (`index_page` with `read: false`), whose capture gate and content check decide
 * as for any page. Pausable; its state (lib/backfill.js) lives in chrome.storage, so a
 * stopped worker goes on from where it was (an alarm wakes it).
 * Never: send cookies or credentials, load a page the rules refuse, fetch anything the
 * person did not agree to, or keep page text beyond the one page being read.
 */

import * as B from "../lib/backfill.js";
import { chunkerLimits } from "../lib/settings.js";
import { siteOfUrl } from "../lib/rules.js";
import { contentHash } from "../lib/hash.js";
import { refusal } from "./gate.js";
import * as P from "./pages.js";
import { serial } from "./serial.js";
import { getCaptureLimits, getSettings } from "./storage.js";

export const BACKFILL_ALARM = "rewind-backfill";
const KEY = "backfill";
const FETCH_TIMEOUT_MS = 20_000;
const MAX_HTML_BYTES = 5 * 1024 * 1024; // a bigger page is read up to here
const LOADING_WAIT_MS = 1_000; // a tab is loading: look again after this
const HOST_AWAY_WAIT_MS = 30_000;
export const CONSENT_WORDS =
  "Rewind will load these public pages again from their sites, without your cookies, to read their text.";

const lane = serial();

/** @returns {Promise<B.BackfillState>} */
export async function load() {
  return B.normalize((await chrome.storage.local.get(KEY))[KEY]);
}

/** @param {(s: B.BackfillState) => B.BackfillState} fn @returns {Promise<B.BackfillState>} */
function update(fn) {
  return lane(async () => {
    const next = fn(await load());
    await chrome.storage.local.set({ [KEY]: next });
    return next;
  });
}

const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/** Is the person's browsing busy (a tab loading)? Then the backfill waits. */
async function browsingBusy() {
  const tabs = await chrome.tabs.query({ status: "loading" });
  return tabs.some((t) => typeof t.url === "string" && /^https?:/.test(t.url));
}

/**
 * The page's HTML as its site sends it to anyone: no cookies, no referrer.
 * @param {string} url
 */
async function fetchPage(url) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), FETCH_TIMEOUT_MS);
  try {
    const res = await fetch(url, {
      credentials: "omit", cache: "no-store", redirect: "follow", referrerPolicy: "no-referrer",
      signal: ctl.signal,
    });
    const head = { status: res.status, redirected: res.redirected, url: res.url,
                   contentType: res.headers.get("content-type") ?? "" };
    const problem = B.responseProblem(head, url);
    if (problem) {
      res.body?.cancel().catch(() => {});
      return { problem, html: "" };
    }
    return { problem: null, html: await readLimited(res) };
  } finally {
    clearTimeout(timer);
  }
}

/** The body as text, at most MAX_HTML_BYTES of it. @param {Response} res */
async function readLimited(res) {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.byteLength;
    if (size >= MAX_HTML_BYTES) {
      reader.cancel().catch(() => {});
      break;
    }
  }
  return new TextDecoder().decode(await new Blob(parts).arrayBuffer());
}

/** The offscreen document that reads HTML (one at most; made when first needed). */
async function ensureReader() {
  const have = await chrome.offscreen.hasDocument?.().catch(() => false);
  if (have) return;
  try {
    await chrome.offscreen.createDocument({
      url: "offscreen.html",
      reasons: [chrome.offscreen.Reason.DOM_PARSER],
      justification: "Read the text of pages from your history that you asked Rewind to load.",
    });
  } catch (err) {
    if (!/single offscreen/i.test(String(/** @type {any} */ (err)?.message))) throw err;
  }
}

/** @param {string} html @param {string} url */
async function readHtml(html, url) {
  await ensureReader();
  const settings = await getSettings();
  const reply = await chrome.runtime.sendMessage({
    target: "offscreen", action: "extract", html, url,
    limits: chunkerLimits(await getCaptureLimits()), redact: settings.redact,
  });
  if (!reply?.ok) throw new Error(reply?.error ?? "the page could not be read");
  return reply.result;
}

export class Backfill {
  /**
   * @param {{native: import("./native.js").NativeClient, now?: () => number,
   *          gapMs?: number}} deps
   */
  constructor(deps) {
    this.native = deps.native;
    this.now = deps.now ?? Date.now;
    this.gapMs = deps.gapMs ?? B.GAP_MS;
    /** @type {Record<string, number>} */
    this.lastBySite = {}; // losing it with the worker costs at most one early request
    this.running = false;
  }

  async status() {
    const s = await load();
    return { state: s.state, consented: s.consented, waiting: s.waiting, ...B.progress(s),
             loaded: s.loaded, skipped: s.skippedCount, recentSkipped: s.skipped.slice(-20),
             words: CONSENT_WORDS };
  }

  /** Pages an import left without text. @param {B.Pending[]} pages */
  async add(pages) {
    const s = await update((st) => B.addPending(st, pages));
    if (s.state === "running") this.kick();
  }

  /** The person agreed, in the words of CONSENT_WORDS. */
  async consent() {
    await update((s) => ({ ...s, consented: true, state: s.pending.length ? "running" : "done",
                           startedAt: s.startedAt ?? this.now() }));
    this.kick();
    return this.status();
  }

  /** @param {boolean} paused */
  async setPaused(paused) {
    await update((s) => {
      if (!s.consented) return s;
      if (paused) return s.state === "running" ? { ...s, state: "paused" } : s;
      return s.state === "paused" ? { ...s, state: s.pending.length ? "running" : "done" } : s;
    });
    if (!paused) this.kick();
    return this.status();
  }

  /** Stop and forget the list (the pages already read stay remembered). */
  async cancel() {
    await update((s) => ({ ...B.emptyState(), consented: s.consented, loaded: s.loaded,
                           skippedCount: s.skippedCount, skipped: s.skipped, state: "done",
                           total: s.loaded + s.skippedCount }));
    await chrome.alarms.clear(BACKFILL_ALARM);
    return this.status();
  }

  kick() {
    setTimeout(() => this.run().catch((err) => console.error("rewind: backfill failed", err)), 0);
  }

  /** Work through the list while it runs; the alarm brings a new worker back to it. */
  async run() {
    if (this.running) return;
    this.running = true;
    try {
      await chrome.alarms.create(BACKFILL_ALARM, { periodInMinutes: 0.5 });
      for (;;) {
        const s = await load();
        if (s.state !== "running" || !s.consented) break;
        if ((await getSettings()).paused) break; // Rewind is paused: the alarm looks again
        if (await browsingBusy()) {
          await sleep(LOADING_WAIT_MS);
          continue;
        }
        const { page, waitMs } = B.nextPage(s, this.lastBySite, this.now(), this.gapMs);
        if (!page) {
          if (!waitMs) break;
          await sleep(waitMs);
          continue;
        }
        if (!(await this.one(page))) {
          await sleep(HOST_AWAY_WAIT_MS);
          break; // the alarm tries again
        }
      }
      const s = await load();
      if (s.state !== "running" || !s.consented) {
        await chrome.alarms.clear(BACKFILL_ALARM);
        if (s.state === "done") await chrome.offscreen.closeDocument?.().catch(() => {});
      }
    } finally {
      this.running = false;
    }
  }

  /**
   * Load, read and hand over one page; false when the helper is away (tried again later).
   * @param {B.Pending} page
   */
  async one(page) {
    const started = this.now();
    /** @type {{loaded: true} | {loaded: false, reason: string}} */
    let outcome;
    try {
      outcome = await this.read(page);
    } catch (err) {
      const e = /** @type {any} */ (err);
      if (e?.unsent || e?.code === "host_missing" || e?.code === "store_locked") {
        await update((s) => ({ ...s, waiting: "waiting for Rewind's helper" }));
        return false;
      }
      outcome = { loaded: false, reason: `it could not be loaded (${String(e?.message ?? e).slice(0, 120)})` };
    }
    await update((s) => B.settle(s, page.url, outcome, this.now() - started, this.now()));
    return true;
  }

  /** @param {B.Pending} page @returns {Promise<{loaded: true} | {loaded: false, reason: string}>} */
  async read(page) {
    const refused = await refusal(page.url, { ignorePause: true });
    if (refused) return { loaded: false, reason: refused.why };
    if (await P.forgotten(page.url, page.last_visit)) return { loaded: false, reason: "you asked Rewind to forget it" };
    this.lastBySite[siteOfUrl(page.url)] = this.now();
    const got = await fetchPage(page.url);
    if (got.problem) return { loaded: false, reason: got.problem };
    const ext = await readHtml(got.html, page.url);
    if (ext.refused) return { loaded: false, reason: ext.refused.why };
    if (!ext.passages.length) return { loaded: false, reason: "it has no readable text" };
    const reply = await this.native.request("index_page", {
      page: { url: page.url, title: ext.title, passages: ext.passages,
              content_hash: await contentHash(ext.passages), visited_at: page.last_visit,
              dwell_s: 0, read: false, ...(ext.signals ? { signals: ext.signals } : {}) },
    });
    const r = reply?.result ?? {};
    if (r.status === "skipped") return { loaded: false, reason: String(r.why ?? "Rewind's helper judged it private") };
    if (r.status === "held") return { loaded: false, reason: "it may be private: it waits for your keep or don't keep" };
    return { loaded: true };
  }
}
