/**
 * Requests from the extension's own pages (side panel, popup, options): one table.
 *
 * Job: map each `runtime.sendMessage({action, ...})` to its named handler (KeePassXC-
 * Browser's event.js is the model: a table, not a switch), answer `{ok, result}` or
 * `{ok: false, error}`, and hand the "ask", "export", "backup", "import" and "pull_model"
 * ports to ports.js.
 * Never: answer anything but the extension's own pages (content scripts and web pages are
 * refused), or grow logic here: a handler lives with its group in handlers/.
 */

import { Code, RewindError, toErrorValue } from "../lib/errors.js";
import * as history from "./handlers/history.js";
import * as mcp from "./handlers/mcp.js";
import * as held from "./handlers/held.js";
import * as recording from "./handlers/recording.js";
import * as relay from "./handlers/relay.js";
import * as status from "./handlers/status.js";
import { askPort, backupPort, exportPort, importPort, pullModelPort } from "./ports.js";

/**
 * @typedef {{
 *   native: import("./native.js").NativeClient,
 *   indexer: import("./indexer.js").Indexer,
 *   tracker: import("./tracker.js").Tracker,
 *   backfill: import("./backfill.js").Backfill,
 * }} Deps
 * @typedef {(deps: Deps, msg: any, sender: chrome.runtime.MessageSender) => Promise<any>|any} Handler
 */

/** @type {Readonly<Record<string, Handler>>} */
export const HANDLERS = Object.freeze({
  // status
  status: status.status,
  reconnect: status.reconnect,
  page_status: status.pageStatus,
  // relayed to the host
  search: relay.search,
  stats: relay.stats,
  warm: relay.warm,
  list_pages: relay.listPages,
  get_settings: relay.getHostSettings,
  set_settings: relay.setHostSettings,
  forget: relay.forget,
  clear: relay.clear,
  import_chunk: relay.importChunk,
  reindex: relay.reindex,
  answer_models: relay.answerModels,
  profiles: relay.profiles,
  use_profile: relay.useProfile,
  // AI tools' access (handlers/mcp.js)
  mcp_access: mcp.mcpAccess,
  mcp_set_access: mcp.mcpSetAccess,
  mcp_log: mcp.mcpLog,
  // what is recorded
  get_local_settings: recording.getLocalSettings,
  set_local_settings: recording.setLocalSettings,
  pause: recording.pause,
  resume: recording.resume,
  pause_site: recording.pauseSite,
  resume_site: recording.resumeSite,
  always_record_site: recording.alwaysRecordSite,
  stop_always_recording: recording.stopAlwaysRecording,
  queue_retry: recording.retryFailed,
  // the history: import, and its pages' text with consent
  history_status: history.historyStatus,
  history_import: history.historyImport,
  backfill_consent: history.backfillConsent,
  backfill_pause: history.backfillPause,
  backfill_cancel: history.backfillCancel,
  // pages held for the person's decision
  held_list: held.heldList,
  held_decide: held.heldDecide,
});

/** @type {Readonly<Record<string, (deps: Deps, port: chrome.runtime.Port) => void>>} */
const PORTS = Object.freeze({
  ask: askPort, export: exportPort, backup: backupPort, import: importPort, pull_model: pullModelPort,
});

/** Is the sender one of this extension's pages? @param {chrome.runtime.MessageSender} sender */
export function fromOwnPage(sender) {
  if (!sender || sender.id !== chrome.runtime.id) return false;
  const base = chrome.runtime.getURL("");
  return typeof sender.url === "string" && sender.url.startsWith(base);
}

/** @param {string} name @returns {Handler|null} */
function handlerFor(name) {
  return Object.prototype.hasOwnProperty.call(HANDLERS, name) ? HANDLERS[name] : null;
}

/** @param {Deps} deps */
export function createDispatcher(deps) {
  return {
    /**
     * Run an action as a page would (tests call this through the worker's hooks).
     * @param {string} action @param {any} msg @param {chrome.runtime.MessageSender} sender
     */
    async run(action, msg, sender) {
      const handler = handlerFor(action);
      if (!handler) throw new RewindError(Code.UNKNOWN_ACTION, `Unknown action ${action}.`);
      return handler(deps, msg, sender);
    },
    /**
     * runtime.onMessage: returns true when it will answer.
     * @param {any} msg @param {chrome.runtime.MessageSender} sender @param {(r: any) => void} respond
     */
    onMessage(msg, sender, respond) {
      if (!fromOwnPage(sender) || !msg || typeof msg.action !== "string") return false;
      this.run(msg.action, msg, sender).then(
        (result) => respond({ ok: true, result }),
        (err) => respond({ ok: false, error: toErrorValue(err) }),
      );
      return true;
    },
    /** runtime.onConnect @param {chrome.runtime.Port} port */
    onConnect(port) {
      const open = Object.prototype.hasOwnProperty.call(PORTS, port.name) ? PORTS[port.name] : null;
      if (!fromOwnPage(/** @type {any} */ (port.sender)) || !open) {
        port.disconnect();
        return;
      }
      open(deps, port);
    },
  };
}
