/**
 * Requests from the extension's own pages (side panel, popup, options).
 *
 * Job: one action -> handler table for `runtime.sendMessage({action, ...})`,
 * relaying to the host where needed, plus two long-lived ports: "ask" streams
 * an answer's chunks back (and sends `cancel` when the page stops or goes
 * away) and "export" streams the host's export frames to the options page.
 * Never: answer anything but the extension's own pages (content scripts and
 * web pages are refused), or pass page text to the host for a URL the rules
 * refuse.
 */

import { Code, RewindError, toErrorValue } from "../lib/errors.js";
import { loadPolicy } from "../lib/load_policy.js";
import { hostMatches, pageKey, siteOfUrl, whyNotRecord } from "../lib/rules.js";
import { extractTab } from "./indexer.js";
import { getSettings, patchSettings } from "./storage.js";

const MAX_TAB_TEXT = 60_000; // current-tab context for ask, in characters

/**
 * @typedef {{
 *   native: import("./native.js").NativeClient,
 *   indexer: import("./indexer.js").Indexer,
 *   tracker: import("./tracker.js").Tracker,
 * }} Deps
 * @typedef {(msg: any, sender: chrome.runtime.MessageSender) => Promise<any>} Handler
 */

/** @param {object} src @param {string[]} keys */
function pick(src, keys) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const k of keys) {
    const v = /** @type {any} */ (src)[k];
    if (v !== undefined && v !== null && v !== "") out[k] = v;
  }
  return out;
}

/** Is the sender one of this extension's pages? @param {chrome.runtime.MessageSender} sender */
export function fromOwnPage(sender) {
  if (!sender || sender.id !== chrome.runtime.id) return false;
  const base = chrome.runtime.getURL("");
  return typeof sender.url === "string" && sender.url.startsWith(base);
}

/** The tab the person is looking at (the side panel's window is the last focused). */
async function frontTab() {
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  return tab ?? null;
}

/** @param {Deps} deps */
export function createRouter(deps) {
  const { native, indexer, tracker } = deps;

  /** @param {string} type @param {object} [fields] @param {object} [o] */
  const host = (type, fields = {}, o = {}) => native.request(type, fields, o);

  /** @type {Record<string, Handler>} */
  const handlers = {
    // --- status -----------------------------------------------------------------------
    async status(msg) {
      if (msg.connect !== false) {
        try {
          await native.connect({ force: msg.force === true });
        } catch {
          // the state says what went wrong
        }
      }
      const [queue, settings] = await Promise.all([indexer.status(), getSettings()]);
      // Fresh counts for "N pages remembered" (hello's are from connect time).
      const stats =
        native.info.state === "connected"
          ? ((await host("stats").catch(() => null))?.stats ?? null)
          : null;
      return { host: native.info, queue, settings, stats };
    },
    async reconnect() {
      try {
        await native.connect({ force: true });
      } catch {
        // reported through the state
      }
      if (native.info.state === "connected") indexer.kick();
      return { host: native.info };
    },

    // --- relayed to the host ------------------------------------------------------------
    async search(msg) {
      return host("search", pick(msg, ["query", "mode", "limit", "since", "until", "domain"]));
    },
    async stats() {
      return host("stats");
    },
    async list_pages(msg) {
      return host("list_pages", pick(msg, ["offset", "limit"]));
    },
    async get_settings() {
      return host("get_settings");
    },
    async set_settings(msg) {
      return host("set_settings", { settings: msg.settings ?? {} });
    },
    async forget(msg) {
      const fields = pick(msg, ["url", "domain", "since", "until"]);
      const reply = await host("forget", fields);
      if (typeof fields.url === "string") {
        const key = pageKey(fields.url);
        await indexer.forget((u) => u === key);
      } else if (typeof fields.domain === "string") {
        const domain = fields.domain;
        await indexer.forget((u) => {
          try {
            return hostMatches(new URL(u).hostname, domain);
          } catch {
            return false;
          }
        });
      } else {
        // A time range: hashes cannot tell when a page was visited; forgetting
        // them all costs one re-embedding of unchanged revisits, never a loss.
        await indexer.forget(() => true);
      }
      return reply;
    },
    async clear() {
      const reply = await host("clear", { confirm: true });
      await indexer.forget(() => true);
      return reply;
    },

    // --- the extension's own settings and queue -----------------------------------------
    async get_local_settings() {
      return { settings: await getSettings() };
    },
    async set_local_settings(msg) {
      const settings = await patchSettings(msg.settings ?? {});
      await tracker.refresh();
      return { settings };
    },
    async pause() {
      const settings = await patchSettings({ paused: true });
      await tracker.refresh();
      return { settings };
    },
    async resume() {
      const settings = await patchSettings({ paused: false });
      await tracker.refresh();
      indexer.kick();
      return { settings };
    },
    async pause_site(msg) {
      const site = String(msg.site ?? "").trim().toLowerCase();
      if (!site) throw new RewindError(Code.BAD_REQUEST, "No site given.");
      const current = await getSettings();
      const settings = await patchSettings({ pausedSites: [...current.pausedSites, site] });
      await tracker.refresh();
      return { settings };
    },
    async resume_site(msg) {
      const site = String(msg.site ?? "").trim().toLowerCase();
      const current = await getSettings();
      const settings = await patchSettings({
        pausedSites: current.pausedSites.filter((d) => d !== site && !hostMatches(site, d)),
      });
      await tracker.refresh();
      return { settings };
    },
    async queue_retry() {
      await indexer.retryFailed();
      return { queue: await indexer.status() };
    },
    async current_tab() {
      const tab = await frontTab();
      if (!tab?.url) return { tab: null };
      const settings = await getSettings();
      return {
        tab: {
          url: tab.url,
          title: tab.title ?? "",
          site: siteOfUrl(tab.url),
          not_recorded: whyNotRecord(tab.url, { ...settings, incognito: tab.incognito, policy: await loadPolicy() }),
        },
      };
    },
  };

  /**
   * The current tab's text for ask, if the rules allow it.
   * @returns {Promise<{page_text: string, page_url: string, page_title: string}|null>}
   */
  async function tabContext() {
    const tab = await frontTab();
    if (!tab?.id || !tab.url) return null;
    const settings = await getSettings();
    if (whyNotRecord(tab.url, { ...settings, incognito: tab.incognito, paused: false, policy: await loadPolicy() })) return null;
    const page = await extractTab(tab.id);
    const text = page.passages.map((p) => p.text).join("\n\n").slice(0, MAX_TAB_TEXT);
    return text ? { page_text: text, page_url: pageKey(page.url), page_title: page.title } : null;
  }

  /** @param {chrome.runtime.Port} port */
  function askPort(port) {
    /** @type {string|null} */
    let requestId = null;
    let open = true;
    const post = (/** @type {object} */ m) => {
      if (!open) return;
      try {
        port.postMessage(m);
      } catch {
        open = false;
      }
    };
    port.onDisconnect.addListener(() => {
      open = false;
      if (requestId) native.cancel(requestId);
    });
    port.onMessage.addListener(async (msg) => {
      try {
        if (msg?.type === "stop") {
          if (requestId) native.cancel(requestId);
          return;
        }
        if (msg?.type !== "ask") return;
        const question = String(msg.question ?? "").trim();
        if (!question) throw new RewindError(Code.BAD_REQUEST, "Type a question first.");
        /** @type {Record<string, unknown>} */
        const fields = { question };
        if (msg.include_tab) {
          const ctx = await tabContext().catch(() => null);
          if (ctx) Object.assign(fields, ctx);
          post({ type: "context", used_tab: Boolean(ctx), title: ctx?.page_title ?? "" });
        }
        const reply = await native.request("ask", fields, {
          onId: (id) => {
            requestId = id;
          },
          onFrame: (frame) => {
            if (typeof frame.chunk === "string") post({ type: "chunk", text: frame.chunk });
            else post({ type: "frame", frame });
          },
        });
        requestId = null;
        post({ type: "done", reply });
      } catch (err) {
        requestId = null;
        post({ type: "error", error: toErrorValue(err) });
      }
    });
  }

  /** @param {chrome.runtime.Port} port */
  function exportPort(port) {
    let open = true;
    port.onDisconnect.addListener(() => {
      open = false;
    });
    port.onMessage.addListener(async (msg) => {
      if (msg?.type !== "start") return;
      try {
        const reply = await native.request(
          "export",
          {},
          {
            accumulate: false, // frames go straight to the page: the worker holds none
            onFrame: (frame) => {
              if (open) port.postMessage({ type: "frame", frame });
            },
          },
        );
        if (open) port.postMessage({ type: "done", frame: reply });
      } catch (err) {
        if (open) port.postMessage({ type: "error", error: toErrorValue(err) });
      }
    });
  }

  return {
    handlers,
    /**
     * runtime.onMessage: returns true when it will answer.
     * @param {any} msg @param {chrome.runtime.MessageSender} sender @param {(r: any) => void} respond
     */
    onMessage(msg, sender, respond) {
      if (!fromOwnPage(sender) || !msg || typeof msg.action !== "string") return false;
      const handler = Object.prototype.hasOwnProperty.call(handlers, msg.action)
        ? handlers[msg.action]
        : null;
      if (!handler) {
        respond({ ok: false, error: toErrorValue(new RewindError(Code.UNKNOWN_ACTION, `Unknown action ${msg.action}.`)) });
        return false;
      }
      handler(msg, sender).then(
        (result) => respond({ ok: true, result }),
        (err) => respond({ ok: false, error: toErrorValue(err) }),
      );
      return true;
    },
    /** runtime.onConnect @param {chrome.runtime.Port} port */
    onConnect(port) {
      if (!fromOwnPage(/** @type {any} */ (port.sender))) {
        port.disconnect();
        return;
      }
      if (port.name === "ask") askPort(port);
      else if (port.name === "export") exportPort(port);
      else port.disconnect();
    },
  };
}
