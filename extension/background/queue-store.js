/**
 * The queue's storage: the queue document and each waiting page's text, in one place.
 *
 * Job: load and save the queue state (queue.js's pure logic applied through `update`, one
 * read-modify-write lane), store a page's passages apart under its item's id, and delete
 * them when the item is done, dropped or forgotten.
 * Never: decide anything about the queue (queue.js does), keep state in worker globals, or
 * leave a payload behind without an item (deleted in the same step that removes the item).
 */

import * as Q from "./queue.js";
import { serial } from "./serial.js";

const QUEUE = "queue";
const PAYLOAD = "qp:"; // + item id -> {passages}

const lane = serial();

/** @returns {Promise<Q.QueueState>} */
export async function load() {
  const got = await chrome.storage.local.get(QUEUE);
  return Q.normalizeQueue(got[QUEUE]);
}

/**
 * Read-modify-write the queue through one lane. `fn` returns the next state (and
 * optionally a value and payload ids to delete once the state is saved).
 * @template T
 * @param {(q: Q.QueueState) => {queue: Q.QueueState, out?: T, drop?: string[]}} fn
 * @returns {Promise<T|undefined>}
 */
export function update(fn) {
  return lane(async () => {
    const r = fn(await load());
    await chrome.storage.local.set({ [QUEUE]: r.queue });
    if (r.drop && r.drop.length) await chrome.storage.local.remove(r.drop.map((id) => PAYLOAD + id));
    return r.out;
  });
}

/**
 * Store a page's passages (and its signals, for the host's content check) for item `id`;
 * returns its size in bytes (for the budget).
 * @param {string} id @param {{text: string, position: number, quality: number}[]} passages
 * @param {object|null} [signals]
 */
export async function putPayload(id, passages, signals = null) {
  await chrome.storage.local.set({ [PAYLOAD + id]: signals ? { passages, signals } : { passages } });
  return JSON.stringify(passages).length + (signals ? JSON.stringify(signals).length : 0);
}

/** The page signals stored with item `id`'s passages, or null. @param {string} id @returns {Promise<object|null>} */
export async function getSignals(id) {
  const got = await chrome.storage.local.get(PAYLOAD + id);
  const s = got[PAYLOAD + id]?.signals;
  return s && typeof s === "object" ? s : null;
}

/** @param {string} id @returns {Promise<{text: string, position: number, quality: number}[]|null>} */
export async function getPayload(id) {
  const got = await chrome.storage.local.get(PAYLOAD + id);
  const p = got[PAYLOAD + id]?.passages;
  return Array.isArray(p) ? p : null;
}

/** @param {string[]} ids */
export async function dropPayloads(ids) {
  if (ids.length) await chrome.storage.local.remove(ids.map((id) => PAYLOAD + id));
}
