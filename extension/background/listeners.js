/**
 * Wiring: builds the worker's parts and registers every Chrome listener.
 *
 * Job: create the native client, tracker, indexer and dispatcher; register each
 * listener synchronously at start (MV3 wakes the worker only for listeners
 * registered in the first turn), each one guarded so one failure is logged and
 * never takes the others down; expose test hooks on `globalThis.__rewind`.
 * Never: hold state that must survive the worker (the parts keep theirs in
 * chrome.storage), or put logic here that belongs to a part.
 */

import { HOST_NAME, PROTOCOL_VERSION } from "../lib/settings.js";
import { BACKFILL_ALARM, Backfill } from "./backfill.js";
import { createDispatcher } from "./dispatch.js";
import { sendRules } from "./handlers/recording.js";
import { extractTab } from "./extractor.js";
import { Indexer, QUEUE_ALARM } from "./indexer.js";
import { NativeClient } from "./native.js";
import { registerOmnibox, suggestions } from "./omnibox.js";
import { knownCount } from "./pages.js";
import { getProfileId, getSettings, rememberCaptureLimits } from "./storage.js";
import { DWELL_ALARM, IDLE_SECONDS, Tracker } from "./tracker.js";

const VERSION = chrome.runtime.getManifest().version;

/**
 * Wrap a listener: log and swallow errors, sync or async.
 * @template {any[]} A
 * @param {string} name @param {(...args: A) => any} fn
 * @returns {(...args: A) => any}
 */
function guard(name, fn) {
  return (...args) => {
    try {
      const r = fn(...args);
      if (r && typeof r.then === "function") {
        r.catch((/** @type {unknown} */ err) => console.error(`rewind: ${name} failed`, err));
        return undefined;
      }
      return r;
    } catch (err) {
      console.error(`rewind: ${name} failed`, err);
      return undefined;
    }
  };
}

/**
 * The host's existing stores, most recently used first, for a profile id to adopt. An
 * older host without list_profiles has none to offer; any other failure is thrown (hello
 * then fails and is tried again: a new id is never made up while the answer is unknown).
 * @param {(type: string) => Promise<any>} ask
 */
async function existingProfiles(ask) {
  try {
    const r = await ask("list_profiles");
    return Array.isArray(r.profiles) ? r.profiles : [];
  } catch (err) {
    if (/** @type {any} */ (err)?.code === "unknown_type") return [];
    throw err;
  }
}

const native = new NativeClient({
  hostName: HOST_NAME,
  connect: (name) => chrome.runtime.connectNative(name),
  lastErrorMessage: () => chrome.runtime.lastError?.message ?? "",
  helloFields: async (ask) => ({
    protocol: PROTOCOL_VERSION,
    profile: await getProfileId(() => existingProfiles(ask)),
    client: `rewind-extension/${VERSION}`,
  }),
  onStateChange: (info) => {
    chrome.storage.session.set({ host: info }).catch(() => {});
    if (info.state === "connected") {
      rememberCaptureLimits(/** @type {any} */ (info.hello)?.capture).catch(() => {});
      getSettings().then((s) => sendRules(native, s)).catch(() => {});
      indexer.hostBack().catch((err) => console.error("rewind: resuming the queue failed", err));
      backfill.kick(); // pages of the history waiting for the helper
    }
  },
  wantsReconnect: async () => (await indexer.status()).pending > 0,
});
const indexer = new Indexer({ native });
const backfill = new Backfill({ native });
const tracker = new Tracker({
  onDue: (visit) => indexer.pageRead(visit),
  onEnded: (visit, dwellMs) => indexer.visitEnded(visit, dwellMs),
});
const dispatcher = createDispatcher({ native, indexer, tracker, backfill });

// --- lifecycle -------------------------------------------------------------------------

async function start() {
  await indexer.recover();
  await tracker.reconcile();
  // The side panel opens from the keyboard command and the popup's button;
  // the toolbar icon keeps the popup.
  await chrome.sidePanel?.setPanelBehavior?.({ openPanelOnActionClick: false }).catch(() => {});
  try {
    await native.connect();
  } catch {
    // host_missing & co. are shown by the popup and side panel
  }
  await indexer.drain();
}

chrome.runtime.onInstalled.addListener(
  guard("onInstalled", async (details) => {
    // First install: the welcome page says what Rewind keeps and offers the history.
    if (details?.reason === "install") await chrome.tabs.create({ url: chrome.runtime.getURL("welcome.html") });
    await start();
  }),
);
chrome.runtime.onStartup.addListener(guard("onStartup", () => start()));

// --- messages from the extension's pages ----------------------------------------------

chrome.runtime.onMessage.addListener(
  guard("onMessage", (msg, sender, respond) => dispatcher.onMessage(msg, sender, respond)),
);
chrome.runtime.onConnect.addListener(guard("onConnect", (port) => dispatcher.onConnect(port)));

// --- what is in front -------------------------------------------------------------------

chrome.tabs.onActivated.addListener(guard("tabs.onActivated", () => tracker.refresh()));
chrome.windows.onFocusChanged.addListener(guard("windows.onFocusChanged", () => tracker.refresh()));
chrome.idle.setDetectionInterval(IDLE_SECONDS);
chrome.idle.onStateChanged.addListener(guard("idle.onStateChanged", () => tracker.refresh()));

// --- navigation -------------------------------------------------------------------------

/** The page a person sees: the top frame, not a prerendered page nobody looks at yet. */
function topDocument(/** @type {any} */ d) {
  return d.frameId === 0 && d.documentLifecycle !== "prerender";
}

chrome.webNavigation.onCommitted.addListener(
  guard("webNavigation.onCommitted", (d) => {
    if (topDocument(d)) return tracker.navigated(d.tabId, d.url);
  }),
);
chrome.webNavigation.onHistoryStateUpdated.addListener(
  guard("webNavigation.onHistoryStateUpdated", (d) => {
    if (topDocument(d)) return tracker.navigated(d.tabId, d.url);
  }),
);
// The URL changed without a commit we saw (an activated prerender): same visit
// logic, and harmless when a commit already started the visit.
chrome.tabs.onUpdated.addListener(
  guard("tabs.onUpdated", (tabId, change) => {
    if (change.url) return tracker.navigated(tabId, change.url);
  }),
);
chrome.tabs.onRemoved.addListener(guard("tabs.onRemoved", (tabId) => tracker.closed(tabId)));
chrome.tabs.onReplaced.addListener(
  guard("tabs.onReplaced", async (added, removed) => {
    await tracker.closed(removed);
    const tab = await chrome.tabs.get(added).catch(() => null);
    if (tab?.url) await tracker.navigated(added, tab.url);
  }),
);

// --- timers that survive the worker ------------------------------------------------------

chrome.alarms.onAlarm.addListener(
  guard("alarms.onAlarm", (alarm) => {
    if (alarm.name === DWELL_ALARM) return tracker.check();
    if (alarm.name === QUEUE_ALARM) return indexer.drain();
    if (alarm.name === BACKFILL_ALARM) return backfill.run();
    return undefined;
  }),
);

// --- keyboard ------------------------------------------------------------------------------

chrome.commands.onCommand.addListener(
  guard("commands.onCommand", async (command, tab) => {
    if (command !== "open-side-panel") return;
    // A command is a user gesture: sidePanel.open is allowed here.
    const windowId = tab?.windowId ?? (await chrome.windows.getLastFocused()).id;
    if (windowId !== undefined) await chrome.sidePanel.open({ windowId });
  }),
);

// --- the address bar: "rw" + words ------------------------------------------------------------

registerOmnibox(native, guard);

// --- test hooks (browser E2E tests reach them with worker.evaluate) -----------------------

/** @type {any} */ (globalThis).__rewind = Object.freeze({
  native,
  indexer,
  tracker,
  dispatcher,
  /** Idle state override: "idle" | "locked" | "active", or null for Chrome's own. */
  async setIdleState(/** @type {string|null} */ state) {
    const g = /** @type {any} */ (globalThis);
    g.__rewindTest = { ...(g.__rewindTest || {}), idleState: state ?? undefined };
    await tracker.refresh();
  },
  dwell: () => tracker.snapshot(),
  checkDwell: () => tracker.check(),
  queue: () => indexer.status(),
  backfill,
  /** The address bar's suggestions for `text`, as Chrome would show them. */
  omnibox: (/** @type {string} */ text) => suggestions(native, text),
  drain: () => indexer.drain(),
  host: () => native.info,
  request: (/** @type {string} */ type, /** @type {object} */ fields) => native.request(type, fields),
  settings: () => getSettings(),
  knownCount: () => knownCount(),
  /** Run an action as a page would. */
  action: (/** @type {string} */ action, /** @type {object} */ msg = {}) =>
    dispatcher.run(action, { ...msg, action }, /** @type {any} */ ({})),
  /** Extract a tab as the indexer does (the extraction benchmark times it). */
  extract: (/** @type {number} */ tabId, /** @type {object} */ opts = {}) =>
    extractTab(tabId, { redact: true, ...opts }),
});

// A worker woken by an event (not install/startup) resumes its queue and dwell clock.
guard("wake", async () => {
  await indexer.recover();
  await tracker.schedule();
  await indexer.scheduleWake();
  backfill.kick(); // it stops by itself unless the person started it
})();
