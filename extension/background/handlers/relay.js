/**
 * Actions relayed to the host for the extension's pages: search, stats, lists, settings,
 * forgetting, the profiles (which store this browser uses), and the answering models.
 *
 * Job: one named handler per action, each `(deps, msg) => result`, passing on the fields
 * the page gave (`fieldsOf`: its message without the `action` that named the handler); the
 * host checks them against the request's schema, declared beside its handler
 * (host/rewind/native/), so no field is listed here again. After a forget or clear, drop
 * what the worker still holds of it (queue items, hashes) and leave a forget mark for
 * copies on their way.
 * Never: send the host a field the page did not give, or forget anything not asked for.
 */

import { Code, RewindError } from "../../lib/errors.js";
import { pageKey } from "../../lib/rules.js";
import { profileInfo, setProfileId } from "../storage.js";

/** @typedef {import("../dispatch.js").Deps} Deps */

/**
 * The host request's fields from a page's message: everything the page gave but the
 * `action` (and what it left empty: undefined, null or ""), for the host to check.
 * @param {Record<string, unknown>} msg @param {string[]} [not] more keys that are the worker's own
 * @returns {Record<string, unknown>}
 */
export function fieldsOf(msg, not = []) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [k, v] of Object.entries(msg ?? {})) {
    if (k === "action" || not.includes(k)) continue;
    if (v !== undefined && v !== null && v !== "") out[k] = v;
  }
  return out;
}

/** @param {Deps} deps @param {any} msg */
export function search(deps, msg) {
  return deps.native.request("search", fieldsOf(msg));
}

/** @param {Deps} deps */
export function stats(deps) {
  return deps.native.request("stats");
}

/** The side panel opened: the helper loads its models before the first question. @param {Deps} deps */
export function warm(deps) {
  return deps.native.request("warm");
}

/** @param {Deps} deps @param {any} msg */
export function listPages(deps, msg) {
  return deps.native.request("list_pages", fieldsOf(msg));
}

/** @param {Deps} deps */
export function getHostSettings(deps) {
  return deps.native.request("get_settings");
}

/** @param {Deps} deps @param {any} msg */
export function setHostSettings(deps, msg) {
  return deps.native.request("set_settings", { settings: msg.settings ?? {} });
}

/** Forget a page, a site or a time range, on the host and in the worker. @param {Deps} deps @param {any} msg */
export async function forget(deps, msg) {
  const fields = fieldsOf(msg);
  const reply = await deps.native.request("forget", fields);
  const at = Date.now();
  if (typeof fields.url === "string") await deps.indexer.forget({ url: pageKey(fields.url), at });
  else if (typeof fields.domain === "string") await deps.indexer.forget({ domain: fields.domain, at });
  else {
    await deps.indexer.forget({
      since: /** @type {number|undefined} */ (fields.since),
      until: /** @type {number|undefined} */ (fields.until),
      at,
    });
  }
  return reply;
}

/**
 * The embedding job: `job` is status, start (with model, dim), pause, resume or cancel
 * (the host's `action`: a page's message uses `action` to name the handler).
 * @param {Deps} deps @param {any} msg
 */
export function reindex(deps, msg) {
  return deps.native.request("reindex", {
    action: typeof msg.job === "string" ? msg.job : "status",
    ...fieldsOf(msg, ["job"]),
  });
}

/** The answering model in use and the one that suits this computer (the options page). @param {Deps} deps */
export function answerModels(deps) {
  return deps.native.request("answer_models");
}

/** A piece of a file to import (the options page cuts it). @param {Deps} deps @param {any} msg */
export function importChunk(deps, msg) {
  return deps.native.request("import_chunk", fieldsOf(msg));
}

/** @param {Deps} deps */
export async function clear(deps) {
  const reply = await deps.native.request("clear", { confirm: true });
  await deps.indexer.forget({ all: true, at: Date.now() });
  return reply;
}

/**
 * The stores the host has, and which one this browser uses (the options page).
 * @param {Deps} deps
 */
export async function profiles(deps) {
  const [listed, mine] = await Promise.all([deps.native.request("list_profiles"), profileInfo()]);
  const hello = /** @type {any} */ (deps.native.info.hello);
  return {
    profiles: listed.profiles ?? [],
    forced_data_dir: listed.forced_data_dir ?? null,
    current: mine.id,
    origin: mine.origin,
    data_dir: hello?.stats?.data_dir ?? null,
  };
}

/**
 * Use another existing store: remember its profile id and connect again (a connection
 * serves one profile). @param {Deps} deps @param {any} msg
 */
export async function useProfile(deps, msg) {
  const listed = await deps.native.request("list_profiles");
  const wanted = String(msg.profile ?? "");
  if (!(listed.profiles ?? []).some((/** @type {any} */ p) => p.profile === wanted)) {
    throw new RewindError(Code.BAD_REQUEST, `Rewind's helper has no history called ${wanted}.`);
  }
  await setProfileId(wanted);
  deps.native.disconnect();
  await deps.native.connect({ force: true });
  return profiles(deps);
}
