/**
 * Errors a person can see, as values with a stable code.
 *
 * Job: the extension's own error codes (transport and UI), next to the host's
 * codes (host/rewind/errors.py, PROTOCOL.md) which pass through unchanged;
 * every error carries a hint saying what to do.
 * Never: touch `chrome.*`; include page text or stack traces in messages.
 */

import { FIX_COMMAND } from "./settings.js";

/** Extension-side codes (the host's codes are listed in PROTOCOL.md). */
export const Code = Object.freeze({
  HOST_MISSING: "host_missing", // Chrome: "Specified native messaging host not found."
  HOST_FORBIDDEN: "host_forbidden", // host manifest does not allow this extension's ID
  HOST_DISCONNECTED: "host_disconnected", // host exited, crashed or sent an oversize frame
  HOST_INCOMPATIBLE: "host_incompatible", // protocol versions differ
  TIMEOUT: "timeout",
  CANCELLED: "cancelled",
  NO_EXTENSION: "no_extension", // the page runs outside the extension (file://)
  UNKNOWN_ACTION: "unknown_action",
  BAD_REQUEST: "bad_request",
  NOT_RECORDABLE: "not_recordable",
  EXTRACTION_FAILED: "extraction_failed",
  INTERNAL: "internal",
});

/** @type {Record<string, string>} */
const HINTS = {
  host_missing: `Rewind's helper isn't installed. Run: ${FIX_COMMAND}`,
  host_forbidden: `Rewind's helper is registered for another extension ID. Run: ${FIX_COMMAND}`,
  host_disconnected: "Rewind's helper stopped. It restarts by itself; if this repeats, run: rewind doctor",
  host_incompatible: `Rewind's helper and extension are different versions. Run: ${FIX_COMMAND}`,
  timeout: "Rewind's helper is busy or stuck. Try again; if this repeats, run: rewind doctor",
  no_extension: "Open this page from the Rewind extension.",
  model_missing: `A model is not installed. Run: ${FIX_COMMAND}`,
  store_locked: "Another Rewind process is writing. Close it, or wait a moment and try again.",
  disk_full: "The disk is full. Free some space, then try again.",
};

export class RewindError extends Error {
  /** @param {string} code @param {string} message @param {string} [hint] */
  constructor(code, message, hint) {
    super(message);
    this.name = "RewindError";
    this.code = code;
    this.hint = hint ?? HINTS[code] ?? "";
  }

  /** @returns {{code: string, message: string, hint: string}} */
  toJSON() {
    return { code: this.code, message: this.message, hint: this.hint };
  }
}

/**
 * Any thrown value as a plain {code, message, hint} (safe to post to a page).
 * @param {unknown} err @returns {{code: string, message: string, hint: string}}
 */
export function toErrorValue(err) {
  if (err instanceof RewindError) return err.toJSON();
  const e = /** @type {any} */ (err);
  if (e && typeof e === "object" && typeof e.code === "string") {
    return {
      code: e.code,
      message: String(e.message ?? e.code).slice(0, 500),
      hint: String(e.hint ?? HINTS[e.code] ?? ""),
    };
  }
  return { code: Code.INTERNAL, message: String(e?.message ?? e).slice(0, 500), hint: "" };
}

/** @param {string} code */
export function hintFor(code) {
  return HINTS[code] ?? "";
}
