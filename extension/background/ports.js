/**
 * The long-lived ports the extension's pages open: "ask", "export", "backup", "import",
 * "pull_model".
 *
 * Job: "ask" streams an answer's chunks (the host sends only checked sentences) back to
 * the side panel (and sends `cancel` when the page stops or goes away), optionally with
 * the current tab's text as context and the `thread_id` of a follow-up; "export" and "backup" stream the host's frames to the
 * options page without holding them; "import" runs import_backup on an upload the page
 * sent and relays its progress; "pull_model" downloads a model (the options page's "Get
 * it") with the host's progress frames, and cancels it when the page closes the port.
 * Never: send a tab's text the rules refuse, or keep frames in the worker.
 */

import { Code, RewindError, toErrorValue } from "../lib/errors.js";
import { pageKey } from "../lib/rules.js";
import { extractTab } from "./extractor.js";
import { refusal } from "./gate.js";
import { frontTab } from "./handlers/status.js";
import { getSettings } from "./storage.js";

// At most this many characters of the current tab go with an ask: well under the host's
// max_context_chars (200,000), over which it refuses the whole ask, and about 25 full
// passages (max_passage_chars: 2,400) of the 30 at most a page is read into.
const MAX_TAB_TEXT = 60_000;

/** @typedef {import("./dispatch.js").Deps} Deps */

/**
 * The current tab's text for ask, if the rules allow it.
 * @returns {Promise<{page_text: string, page_url: string, page_title: string}|null>}
 */
async function tabContext() {
  const tab = await frontTab();
  if (!tab?.id || !tab.url) return null;
  if (await refusal(tab.url, { incognito: tab.incognito, ignorePause: true })) return null;
  const page = await extractTab(tab.id, { redact: (await getSettings()).redact });
  if (page.refused) return null;
  const text = page.passages.map((p) => p.text).join("\n\n").slice(0, MAX_TAB_TEXT);
  return text ? { page_text: text, page_url: pageKey(page.url), page_title: page.title } : null;
}

/** @param {Deps} deps @param {chrome.runtime.Port} port */
export function askPort(deps, port) {
  const { native } = deps;
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
      // A follow-up: the host answers it in the thread, reusing the thread's sources.
      if (typeof msg.thread_id === "string" && msg.thread_id) fields.thread_id = msg.thread_id;
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

/** @param {Deps} deps @param {chrome.runtime.Port} port */
export function exportPort(deps, port) {
  let open = true;
  port.onDisconnect.addListener(() => {
    open = false;
  });
  port.onMessage.addListener(async (msg) => {
    if (msg?.type !== "start") return;
    try {
      const reply = await deps.native.request(
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

/**
 * A streamed host request relayed to a port: frames as they come, then done or error.
 * @param {Deps} deps @param {chrome.runtime.Port} port @param {string} type
 * @param {(msg: any) => Record<string, unknown>} fieldsOf
 */
function streamPort(deps, port, type, fieldsOf) {
  let open = true;
  /** @type {string|null} */
  let requestId = null;
  port.onDisconnect.addListener(() => {
    open = false;
    if (requestId) deps.native.cancel(requestId);
  });
  port.onMessage.addListener(async (msg) => {
    if (msg?.type !== "start") return;
    try {
      const reply = await deps.native.request(type, fieldsOf(msg), {
        accumulate: false,
        onId: (id) => {
          requestId = id;
        },
        onFrame: (frame) => {
          if (open) port.postMessage({ type: "frame", frame });
        },
      });
      requestId = null;
      if (open) port.postMessage({ type: "done", frame: reply });
    } catch (err) {
      requestId = null;
      if (open) port.postMessage({ type: "error", error: toErrorValue(err) });
    }
  });
}

/** The full backup file, in base64 frames. @param {Deps} deps @param {chrome.runtime.Port} port */
export function backupPort(deps, port) {
  streamPort(deps, port, "backup", (msg) => (msg.passphrase ? { passphrase: String(msg.passphrase) } : {}));
}

/** Import an upload, with progress frames. @param {Deps} deps @param {chrome.runtime.Port} port */
export function importPort(deps, port) {
  streamPort(deps, port, "import_backup", (msg) => ({
    upload: String(msg.upload ?? ""),
    ...(msg.passphrase ? { passphrase: String(msg.passphrase) } : {}),
  }));
}

/** Download a model, with progress frames; the page closing the port cancels it. @param {Deps} deps @param {chrome.runtime.Port} port */
export function pullModelPort(deps, port) {
  streamPort(deps, port, "pull_model", (msg) => ({ model: String(msg.model ?? "") }));
}
