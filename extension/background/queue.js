/**
 * The indexing queue's logic: pure functions over a serialisable state.
 *
 * Job: order pages waiting for the host, retry them with exponential backoff (3 tries,
 * then "failed" with the reason, and the pages behind go on), defer everything while the
 * host cannot be reached at connect without spending tries, keep the waiting pages' text
 * within a byte budget (the oldest are dropped past it, and counted), and report status
 * for the popup. The caller keeps the state in `chrome.storage.local` (the extension asks
 * for `unlimitedStorage`, so the budget is ours, not Chrome's 10 MB quota) and passes the
 * clock in.
 * Never: touch `chrome.*` or the network, read the clock, mutate its input, hold page text
 * (payloads are stored apart, under each item's id), or drop anything without counting it.
 */

export const MAX_TRIES = 3;
export const BASE_DELAY_MS = 5_000; // 5 s, then 10 s
// Waiting pages' text at most (~1,500 typical pages: days of reading without the host);
// past it the oldest waiting page is dropped and counted ("N dropped" in the popup).
export const MAX_PENDING_BYTES = 50 * 1024 * 1024;
export const MAX_PENDING = 5_000; // items (visit records have no text); same rule past it
export const MAX_FAILED = 200; // failed items kept for the popup / retry; older ones counted
export const STALE_SENDING_MS = 5 * 60_000; // a send the worker died in is retried

/**
 * @typedef {{
 *   id: string,
 *   kind: "page" | "dwell",  // a page read (payload stored apart) / a visit's final dwell
 *   url: string,
 *   title: string,
 *   hash: string,
 *   visited_at: number,     // epoch s
 *   dwell_s: number,
 *   added_at: number,       // epoch ms
 *   tries: number,
 *   next_at: number,        // epoch ms
 *   sending_since: number|null,
 *   error: string|null,
 *   deferred?: boolean,     // waiting for the host to come back (deferAll), no try spent
 *   bytes?: number,         // size of its stored payload (page text), 0 for visit records
 * }} QueueItem
 * @typedef {{url: string, title: string, at: number}} LastIndexed
 * @typedef {{url: string, title: string, at: number, reason: string}} Dropped
 * @typedef {{items: QueueItem[], failed: QueueItem[], last_indexed: LastIndexed|null,
 *            dropped: number, last_dropped: Dropped|null}} QueueState
 * @typedef {{pending: number, failed: number, sending: number, dropped: number,
 *            last_dropped: Dropped|null, bytes: number, last_indexed: LastIndexed|null,
 *            last_error: string|null, next_at: number|null}} QueueStatus
 */

/** @returns {QueueState} */
export function emptyQueue() {
  return { items: [], failed: [], last_indexed: null, dropped: 0, last_dropped: null };
}

/** @param {unknown} q @returns {QueueState} */
export function normalizeQueue(q) {
  const s = /** @type {any} */ (q);
  if (!s || !Array.isArray(s.items) || !Array.isArray(s.failed)) return emptyQueue();
  return {
    items: s.items,
    failed: s.failed,
    last_indexed: s.last_indexed ?? null,
    dropped: Number.isFinite(s.dropped) ? s.dropped : 0,
    last_dropped: s.last_dropped ?? null,
  };
}

/** @param {QueueItem[]} items */
function pendingBytes(items) {
  return items.reduce((n, it) => n + (it.bytes ?? 0), 0);
}

/**
 * Count items that were let go of without reaching the host.
 * @param {QueueState} q @param {QueueItem[]} gone @param {string} reason @param {number} now
 * @returns {QueueState}
 */
export function countDropped(q, gone, reason, now) {
  if (!gone.length) return q;
  const last = gone[gone.length - 1];
  return {
    ...q,
    dropped: q.dropped + gone.length,
    last_dropped: { url: last.url, title: last.title, at: now, reason },
  };
}

/** Delay before try number `tries + 1`, after `tries` failed ones. @param {number} tries */
export function backoffMs(tries) {
  return BASE_DELAY_MS * 2 ** Math.max(0, tries - 1);
}

/**
 * Add a page read ("page", with a payload stored apart) or a later dwell
 * update of the same visit ("dwell"). For a visit (url + visited_at) that is
 * still waiting, a newer page replaces the older one and a dwell update only
 * raises its dwell; past MAX_PENDING items or MAX_PENDING_BYTES of page text the
 * oldest waiting items are dropped, and counted in `dropped`.
 * @param {QueueState} q
 * @param {Omit<QueueItem, "tries"|"next_at"|"sending_since"|"error"|"added_at">} item
 * @param {number} now
 * @returns {{queue: QueueState, replaced: string[], dropped: string[], merged: boolean}}
 */
export function enqueue(q, item, now) {
  const same = (/** @type {QueueItem} */ it) =>
    it.url === item.url && it.visited_at === item.visited_at && it.sending_since === null;
  const waiting = q.items.find(same);
  if (waiting && item.kind === "dwell") {
    const items = q.items.map((it) =>
      it === waiting ? { ...it, dwell_s: Math.max(it.dwell_s, item.dwell_s) } : it,
    );
    return { queue: { ...q, items }, replaced: [], dropped: [], merged: true };
  }
  const replaced = waiting && waiting.kind === "page" ? [waiting.id] : [];
  const dwell = waiting ? Math.max(waiting.dwell_s, item.dwell_s) : item.dwell_s;
  const items = q.items.filter((it) => it !== waiting);
  items.push({
    ...item, dwell_s: dwell, added_at: now, tries: 0, next_at: now, sending_since: null, error: null,
  });
  /** @type {QueueItem[]} */
  const gone = [];
  while (items.length > MAX_PENDING || pendingBytes(items) > MAX_PENDING_BYTES) {
    const i = items.findIndex((it) => it.sending_since === null);
    if (i === -1 || i === items.length - 1) break; // never the page just added
    gone.push(items[i]);
    items.splice(i, 1);
  }
  const queue = countDropped({ ...q, items }, gone, "the queue was full", now);
  return { queue, replaced, dropped: gone.map((it) => it.id), merged: false };
}

/** @param {QueueItem} it @param {number} now */
function isSending(it, now) {
  return it.sending_since !== null && now - it.sending_since < STALE_SENDING_MS;
}

/**
 * The next item to send at `now`, or null.
 * @param {QueueState} q @param {number} now @returns {QueueItem|null}
 */
export function nextReady(q, now) {
  if (q.items.some((it) => isSending(it, now))) return null; // one at a time
  let best = null;
  for (const it of q.items) {
    if (it.next_at <= now && (best === null || it.next_at < best.next_at)) best = it;
  }
  return best;
}

/** @param {QueueState} q @param {string} id @param {(it: QueueItem) => QueueItem} fn */
function mapItem(q, id, fn) {
  return { ...q, items: q.items.map((it) => (it.id === id ? fn(it) : it)) };
}

/** @param {QueueState} q @param {string} id @param {number} now */
export function markSending(q, id, now) {
  return mapItem(q, id, (it) => ({ ...it, sending_since: now, deferred: false }));
}

/**
 * The host took the item.
 * @param {QueueState} q @param {string} id @param {number} now @param {{indexed: boolean}} info
 */
export function markDone(q, id, now, info) {
  const it = q.items.find((x) => x.id === id);
  const items = q.items.filter((x) => x.id !== id);
  const last_indexed =
    it && info.indexed ? { url: it.url, title: it.title, at: now } : q.last_indexed;
  return { ...q, items, last_indexed };
}

/**
 * A try failed. After MAX_TRIES the item moves to `failed`.
 * @param {QueueState} q @param {string} id @param {number} now @param {string} error
 * @returns {{queue: QueueState, gaveUp: boolean, dropped: string[]}}
 */
export function markFailed(q, id, now, error) {
  const it = q.items.find((x) => x.id === id);
  if (!it) return { queue: q, gaveUp: false, dropped: [] };
  const tries = it.tries + 1;
  const updated = { ...it, tries, sending_since: null, error, next_at: now + backoffMs(tries) };
  if (tries >= MAX_TRIES) {
    const all = [...q.failed, updated];
    const forgotten = all.slice(0, Math.max(0, all.length - MAX_FAILED));
    const rest = { ...q, items: q.items.filter((x) => x.id !== id), failed: all.slice(forgotten.length) };
    return {
      queue: countDropped(rest, forgotten, "too many failed pages", now),
      gaveUp: true,
      dropped: forgotten.map((x) => x.id),
    };
  }
  return { queue: mapItem(q, id, () => updated), gaveUp: false, dropped: [] };
}

/**
 * The host is unreachable: nothing is sent until `until`, and no try is spent.
 * @param {QueueState} q @param {number} until @param {string} error
 */
export function deferAll(q, until, error) {
  return {
    ...q,
    items: q.items.map((it) => ({
      ...it,
      sending_since: null,
      error,
      next_at: Math.max(it.next_at, until),
      deferred: true,
    })),
  };
}

/**
 * The host is reachable again: what was deferred for it is ready now (the
 * deferral only guessed when it would be back).
 * @param {QueueState} q @param {number} now
 */
export function resumeDeferred(q, now) {
  return {
    ...q,
    items: q.items.map((it) =>
      it.deferred ? { ...it, deferred: false, next_at: Math.min(it.next_at, now) } : it,
    ),
  };
}

/**
 * Take an item out of line without sending it (the rules refuse it now); the caller
 * records why for its URL.
 * @param {QueueState} q @param {string} id
 */
export function removeItem(q, id) {
  return { ...q, items: q.items.filter((it) => it.id !== id) };
}

/**
 * What one delivery (delivery.js's Outcome) does to the queue: done, refused, skipped and
 * forgotten items leave the line; lost ones leave it counted; a deferral holds everything
 * until `now + waitMs` without spending a try and stops the drain; a failure spends one
 * try (the third moves the item to `failed`) and the next item goes on.
 * @param {QueueState} q @param {QueueItem} item
 * @param {{outcome: string, indexed?: boolean, error?: string}} r
 * @param {number} now @param {number} waitMs
 * @returns {{queue: QueueState, drop: string[], stop: boolean, gaveUp: boolean}}
 */
export function applyOutcome(q, item, r, now, waitMs) {
  const gone = { drop: [item.id], stop: false, gaveUp: false };
  switch (r.outcome) {
    case "done":
      return { ...gone, queue: markDone(q, item.id, now, { indexed: Boolean(r.indexed) }) };
    case "lost":
      return { ...gone, queue: countDropped(removeItem(q, item.id), [item], r.error ?? "lost", now) };
    case "defer":
      return { queue: deferAll(q, now + waitMs, r.error ?? "the host is away"), drop: [], stop: true, gaveUp: false };
    case "failed": {
      const f = markFailed(q, item.id, now, r.error ?? "failed");
      return { queue: f.queue, drop: f.dropped, stop: false, gaveUp: f.gaveUp };
    }
    default: // refused, skipped, forgotten: on purpose, not a loss
      return { ...gone, queue: removeItem(q, item.id) };
  }
}

/** A new worker life: nothing is in flight any more. @param {QueueState} q */
export function resetSending(q) {
  return { ...q, items: q.items.map((it) => ({ ...it, sending_since: null })) };
}

/** Put failed items back in line with fresh tries. @param {QueueState} q @param {number} now */
export function retryFailed(q, now) {
  const back = q.failed.map((it) => ({ ...it, tries: 0, next_at: now, error: null, sending_since: null }));
  return { ...q, items: [...q.items, ...back], failed: [] };
}

/**
 * Forget items that match (forget / clear on the host): the person asked, nothing is lost.
 * @param {QueueState} q @param {(it: {url: string, visited_at?: number}) => boolean} match
 */
export function dropMatching(q, match) {
  const removed = [...q.items, ...q.failed].filter((it) => match(it)).map((it) => it.id);
  const last = q.last_indexed;
  return {
    queue: {
      ...q,
      items: q.items.filter((it) => !match(it)),
      failed: q.failed.filter((it) => !match(it)),
      last_indexed: last && match({ url: last.url }) ? null : last,
      last_dropped: q.last_dropped && match({ url: q.last_dropped.url }) ? null : q.last_dropped,
    },
    removed,
  };
}

/** When the queue next has something to do, or null. @param {QueueState} q @param {number} now */
export function nextWakeAt(q, now) {
  let at = null;
  for (const it of q.items) {
    const t = isSending(it, now) ? it.sending_since + STALE_SENDING_MS : it.next_at;
    if (at === null || t < at) at = t;
  }
  return at;
}

/** @param {QueueState} q @param {number} now @returns {QueueStatus} */
export function status(q, now) {
  const lastErr = [...q.items, ...q.failed].filter((it) => it.error).at(-1);
  return {
    pending: q.items.length,
    failed: q.failed.length,
    sending: q.items.filter((it) => isSending(it, now)).length,
    dropped: q.dropped,
    last_dropped: q.last_dropped,
    bytes: pendingBytes(q.items),
    last_indexed: q.last_indexed,
    last_error: lastErr ? lastErr.error : null,
    // The helper's disk is full: pages wait (no try spent) until there is room.
    disk_full: q.items.some((it) => it.deferred && String(it.error ?? "").startsWith("disk_full")),
    next_at: nextWakeAt(q, now),
  };
}
