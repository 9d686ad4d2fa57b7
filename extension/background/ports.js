/**
 * The long-lived ports the extension's pages open: "ask", "export", "backup", "import",
 * "pull_model". Each relays one host request, and all speak the one protocol of
 * lib/port-messages.js (start, stop; context, chunk, frame, done, error).
 *
 * Job: `relay` is the whole of it: the page's `start` message becomes the host request;
 * each host frame before the last goes to the page as it comes (a streamed answer's text as
 * `chunk`, anything else as `frame`: the worker holds none), the last as `done` with the
 * reply, a failure as `error`; the page's `stop`, or the page closing the port (the side
 * panel or the options page closed or navigated away), cancels the host request. What
 * differs between ports is only which request they make and the fields they send: "ask"
 * takes the question, the `thread_id` of a follow-up and, when asked, the current tab's
 * text (telling the page with `context` whether the tab could be used); "export" and
 * "backup" stream the host's frames to the options page, "import" runs import_backup on an
 * upload the page sent, "pull_model" downloads a model (the options page's "Get it").
 * Never: send a tab's text the rules refuse, keep frames in the worker, or leave a host
 * request running once its page has gone.
 */

import { Code, RewindError, toErrorValue } from "../lib/errors.js";
import { Msg } from "../lib/port-messages.js";
import { pageKey } from "../lib/rules.js";
import { extractTab } from "./extractor.js";
import { refusal } from "./gate.js";
import { getSettings } from "./storage.js";
import { frontTab } from "./tabs.js";

// At most this many characters of the current tab go with an ask: well under the host's
// max_context_chars (200,000), over which it refuses the whole ask, and about 25 full
// passages (max_passage_chars: 2,400) of the 30 at most a page is read into.
const MAX_TAB_TEXT = 60_000;

/**
 * @typedef {import("./dispatch.js").Deps} Deps
 * @typedef {import("../lib/port-messages.js").ToPage} ToPage
 * @typedef {import("../lib/port-messages.js").StartMessage} StartMessage
 * @typedef {(msg: StartMessage, post: (m: ToPage) => void) => Promise<Record<string, unknown>>|Record<string, unknown>} FieldsOf
 */

/**
 * One host request relayed to a page's port, cancelled when the page stops it or goes away.
 * @param {Deps} deps @param {chrome.runtime.Port} port @param {string} type
 * @param {FieldsOf} fieldsOf the request's fields from the page's start message
 */
export function relay(deps, port, type, fieldsOf) {
  const { native } = deps;
  /** @type {string|null} */
  let requestId = null;
  let open = true;
  const post = (/** @type {ToPage} */ m) => {
    if (!open) return;
    try {
      port.postMessage(m);
    } catch {
      open = false; // the page went away between two frames
    }
  };
  const cancel = () => {
    if (requestId) native.cancel(requestId);
  };
  port.onDisconnect.addListener(() => {
    open = false;
    cancel();
  });
  port.onMessage.addListener(async (/** @type {any} */ msg) => {
    if (msg?.type === Msg.STOP) {
      cancel();
      return;
    }
    if (msg?.type !== Msg.START) return;
    try {
      const fields = await fieldsOf(msg, post);
      if (!open) return; // the page left while its fields were gathered: nothing to cancel
      const reply = await native.request(type, fields, {
        accumulate: false, // every frame goes straight to the page
        onId: (id) => {
          requestId = id;
        },
        onFrame: (frame) => {
          if (typeof frame.chunk === "string") post({ type: Msg.CHUNK, text: frame.chunk });
          else post({ type: Msg.FRAME, frame });
        },
      });
      requestId = null;
      post({ type: Msg.DONE, reply });
    } catch (err) {
      requestId = null;
      post({ type: Msg.ERROR, error: toErrorValue(err) });
    }
  });
}

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

/** @type {FieldsOf} */
async function askFields(msg, post) {
  const question = String(msg.question ?? "").trim();
  if (!question) throw new RewindError(Code.BAD_REQUEST, "Type a question first.");
  /** @type {Record<string, unknown>} */
  const fields = { question };
  // A follow-up: the host answers it in the thread, reusing the thread's sources.
  if (typeof msg.thread_id === "string" && msg.thread_id) fields.thread_id = msg.thread_id;
  if (msg.include_tab) {
    const ctx = await tabContext().catch(() => null);
    if (ctx) Object.assign(fields, ctx);
    post({ type: Msg.CONTEXT, used_tab: Boolean(ctx), title: ctx?.page_title ?? "" });
  }
  return fields;
}

/** A question, its checked answer streamed. @param {Deps} deps @param {chrome.runtime.Port} port */
export function askPort(deps, port) {
  relay(deps, port, "ask", askFields);
}

/** The portable JSON export, in frames of pages. @param {Deps} deps @param {chrome.runtime.Port} port */
export function exportPort(deps, port) {
  relay(deps, port, "export", () => ({}));
}

/** The full backup file, in base64 frames. @param {Deps} deps @param {chrome.runtime.Port} port */
export function backupPort(deps, port) {
  relay(deps, port, "backup", (msg) => (msg.passphrase ? { passphrase: String(msg.passphrase) } : {}));
}

/** Import an upload, with progress frames. @param {Deps} deps @param {chrome.runtime.Port} port */
export function importPort(deps, port) {
  relay(deps, port, "import_backup", (msg) => ({
    upload: String(msg.upload ?? ""),
    ...(msg.passphrase ? { passphrase: String(msg.passphrase) } : {}),
  }));
}

/** Download a model, with progress frames. @param {Deps} deps @param {chrome.runtime.Port} port */
export function pullModelPort(deps, port) {
  relay(deps, port, "pull_model", (msg) => ({ model: String(msg.model ?? "") }));
}
