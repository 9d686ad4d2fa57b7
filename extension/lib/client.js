/**
 * How the extension's pages talk to the worker.
 *
 * Job: `call(action, fields)` -> the handler's result or a thrown
 * {code, message, hint}; `connectPort(name)` for streams. Outside the
 * extension (a file:// preview, a test page) every call fails with
 * `no_extension`, so pages render their "not connected" state instead of
 * throwing at load.
 * Never: reach the host directly (only the worker holds the port).
 */

import { Code, hintFor } from "./errors.js";

/** Is this page running inside the extension? */
export function inExtension() {
  const c = /** @type {any} */ (globalThis).chrome;
  return Boolean(c && c.runtime && c.runtime.id && typeof c.runtime.sendMessage === "function");
}

/**
 * @param {string} action @param {Record<string, unknown>} [fields]
 * @returns {Promise<any>}
 */
export async function call(action, fields = {}) {
  if (!inExtension()) {
    throw { code: Code.NO_EXTENSION, message: "Not running inside the extension.", hint: hintFor(Code.NO_EXTENSION) };
  }
  /** @type {any} */
  let reply;
  try {
    reply = await chrome.runtime.sendMessage({ ...fields, action });
  } catch (err) {
    throw { code: Code.INTERNAL, message: String(/** @type {any} */ (err)?.message ?? err), hint: "" };
  }
  if (!reply) throw { code: Code.INTERNAL, message: "No answer from the extension's worker.", hint: "" };
  if (!reply.ok) throw reply.error;
  return reply.result;
}

/** @param {string} name @returns {chrome.runtime.Port|null} */
export function connectPort(name) {
  return inExtension() ? chrome.runtime.connect({ name }) : null;
}
