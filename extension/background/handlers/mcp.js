/**
 * Actions relayed to the host for the options page's "AI tools (MCP)" section.
 *
 * Job: which AI tools may read the history and what part of it (`mcp_access`,
 * `mcp_set_access`), and the log of what they read (`mcp_log`), passing on the fields the
 * page gave (the host checks them: native/mcp_requests.py).
 * Never: send the host a field the page did not give; turn a tool on unless the page asked.
 */

import { fieldsOf } from "./relay.js";

/** @typedef {import("../dispatch.js").Deps} Deps */

/** @param {Deps} deps */
export function mcpAccess(deps) {
  return deps.native.request("mcp_access");
}

/** @param {Deps} deps @param {any} msg */
export function mcpSetAccess(deps, msg) {
  // Lists are sent as given, empty ones too: an empty list means "every site" / "none".
  return deps.native.request("mcp_set_access", fieldsOf(msg));
}

/** @param {Deps} deps @param {any} msg */
export function mcpLog(deps, msg) {
  return deps.native.request("mcp_log", fieldsOf(msg));
}
