/**
 * What the helper's connection state means: Chrome's disconnect messages and a protocol
 * skew between the helper and the extension, as coded errors saying which side to update.
 *
 * Job: classify, in pure functions the port (native.js) and its tests call.
 * Never: touch `chrome.*` or the port.
 */

import { Code, RewindError } from "../lib/errors.js";
import { FIX_COMMAND, FIX_FROM_SOURCE, PROTOCOL_VERSION } from "../lib/settings.js";

/** @typedef {import("./native.js").HostState} HostState */

/**
 * Helper and extension speak different protocols: which side to update, and how.
 * @param {number} hostProtocol @param {unknown} hostVersion
 */
export function skewError(hostProtocol, hostVersion) {
  const host = `Rewind's helper (${String(hostVersion ?? "unknown version")}, protocol ${hostProtocol})`;
  if (hostProtocol < PROTOCOL_VERSION) {
    return new RewindError(Code.HOST_INCOMPATIBLE,
      `${host} is older than this extension (protocol ${PROTOCOL_VERSION}).`,
      `Update the helper: ${FIX_COMMAND} (from Rewind's source folder: ${FIX_FROM_SOURCE}).`);
  }
  return new RewindError(Code.HOST_INCOMPATIBLE,
    `This extension (protocol ${PROTOCOL_VERSION}) is older than ${host}.`,
    "Update the extension: load the new build (build/extension, or the zip that came with the helper) in your browser's extensions page.");
}

/**
 * Classify Chrome's disconnect message.
 * @param {string} message @returns {{state: HostState, code: string}}
 */
export function classifyDisconnect(message) {
  const m = message.toLowerCase();
  if (m.includes("not found")) return { state: "host_missing", code: Code.HOST_MISSING };
  if (m.includes("forbidden")) return { state: "host_forbidden", code: Code.HOST_FORBIDDEN };
  return { state: "disconnected", code: Code.HOST_DISCONNECTED };
}
