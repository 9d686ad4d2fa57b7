/**
 * What every section of the options page shares.
 *
 * Job: elements by id, status messages, the extension's own settings (current, saved,
 * and a callback whenever they change, here or elsewhere), the status loaded from the
 * worker (each section is told after every load: connected or not, stats), and streamed
 * host requests through a port (with a way to cancel). A section is a module in this
 * folder exporting `mount(root, page)`: options.js calls it once with its
 * `data-section="…"` element (a card in one of the page's panes) and this page; the section
 * wires its controls and subscribes to `onLoad` / `onLocal`.
 * Never: render host or page text as HTML (lib/dom.js builds every element), or keep
 * state a section owns.
 */

import { hostBanner } from "../lib/banner.js";
import { call, connectPort, inExtension } from "../lib/client.js";
import { Msg } from "../lib/port-messages.js";
import { DEFAULTS } from "../lib/settings.js";

/** @typedef {import("../lib/settings.js").LocalSettings} LocalSettings */
/** @typedef {{host: {state: string, error?: any}, settings?: LocalSettings, stats?: any}} Status */
/** @typedef {ReturnType<typeof createPage>} Page */

/** A host or worker error in words, with its hint. @param {unknown} err */
export function errText(err) {
  const e = /** @type {any} */ (err) ?? {};
  return `${e.message ?? "Something went wrong."}${e.hint ? ` ${e.hint}` : ""}`;
}

export function createPage() {
  /** @type {LocalSettings} */
  let settings = { ...DEFAULTS };
  /** @type {Status|null} */
  let status = null;
  /** @type {((s: LocalSettings) => void)[]} */
  const localListeners = [];
  /** @type {((s: Status) => void)[]} */
  const loadListeners = [];

  /** @param {string} id */
  const $ = (id) => /** @type {any} */ (document.getElementById(id));

  const page = {
    $,
    call,
    errText,
    /** The extension's own settings as last read or saved. */
    get settings() {
      return settings;
    },
    /** Whether the last load found the helper connected. */
    get connected() {
      return status?.host?.state === "connected";
    },
    /** @param {string} id @param {string} text @param {boolean} [bad] */
    msg(id, text, bad = false) {
      const el = $(id);
      if (!el) return;
      el.textContent = text;
      el.classList.toggle("bad", bad);
    },
    /** Run `fn` now and whenever the extension's settings change. @param {(s: LocalSettings) => void} fn */
    onLocal(fn) {
      localListeners.push(fn);
      fn(settings);
    },
    /** Run `fn` after every load of the worker's status. @param {(s: Status) => void} fn */
    onLoad(fn) {
      loadListeners.push(fn);
      if (status) fn(status);
    },
    /** @param {LocalSettings} next */
    setLocal(next) {
      settings = next;
      for (const fn of localListeners) fn(settings);
    },
    /**
     * Save part of the extension's settings; say so (or why not) in `msgId`. `more`: the
     * caller saves more after this, and says "Saved." itself once all of it is.
     * @param {Partial<LocalSettings>} patch @param {string} msgId @param {{more?: boolean}} [opts]
     * @returns {Promise<boolean>} saved
     */
    async saveLocal(patch, msgId, { more = false } = {}) {
      try {
        const r = await call("set_local_settings", { settings: patch });
        page.setLocal(r.settings);
        if (!more) page.msg(msgId, "Saved.");
        return true;
      } catch (err) {
        page.msg(msgId, errText(err), true);
        return false;
      }
    },
    /** Read the worker's status, show the banner, tell every section. */
    async load() {
      /** @type {Status} */
      let next;
      try {
        next = await call("status");
      } catch (err) {
        const e = /** @type {any} */ (err);
        next = { host: { state: e?.code === "no_extension" ? "no_extension" : "error", error: e } };
      }
      status = next;
      const banner = hostBanner(next.host, { onRetry: () => call("reconnect").then(page.load, page.load) });
      $("banners").replaceChildren(...(banner ? [banner] : []));
      if (next.settings) page.setLocal(next.settings);
      for (const fn of loadListeners) fn(next);
    },
    stream,
  };
  return page;
}

/**
 * A streamed host request through a worker port ("backup", "export", "import",
 * "pull_model"; lib/port-messages.js): frames as they come, then the reply; `cancel()`, or
 * this page closing, closes the port (the worker cancels the host's request).
 * @param {string} name @param {Record<string, unknown>} start @param {(frame: any) => void} onFrame
 * @returns {{done: Promise<any>, cancel: () => void}}
 */
function stream(name, start, onFrame) {
  const port = connectPort(name);
  if (!port) return { done: Promise.reject({ message: "Open this page from the Rewind extension." }), cancel() {} };
  let settled = false;
  /** @type {(v: any) => void} */ let resolve = () => {};
  /** @type {(e: any) => void} */ let reject = () => {};
  const done = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const end = () => {
    settled = true;
    try {
      port.disconnect();
    } catch {
      // already closed
    }
  };
  port.onMessage.addListener((m) => {
    if (settled) return;
    if (m.type === Msg.FRAME) onFrame(m.frame);
    else if (m.type === Msg.DONE) {
      end();
      resolve(m.reply);
    } else if (m.type === Msg.ERROR) {
      end();
      reject(m.error);
    }
  });
  port.onDisconnect.addListener(() => {
    if (settled) return;
    settled = true;
    reject({ code: "disconnected", message: "Rewind's helper went away before it finished." });
  });
  port.postMessage({ type: Msg.START, ...start });
  return {
    done,
    cancel() {
      if (settled) return;
      end();
      reject({ code: "cancelled", message: "Stopped." });
    },
  };
}

/** Listen for the extension's settings changing elsewhere (the popup, another tab). @param {Page} page */
export function followLocalChanges(page) {
  if (!inExtension()) return;
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && changes.settings) {
      call("get_local_settings").then((r) => page.setLocal(r.settings), () => {});
    }
  });
}
