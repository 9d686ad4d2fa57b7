/**
 * Delivering one queued item to the host, and what came of it.
 *
 * Job: for one queue item, re-apply the rules as they are now (a site paused, blocked or
 * forgotten after the page was read never reaches the host), then send `index_page` for
 * new or changed content or only `record_visit` for an unchanged revisit, and classify
 * the result: done, refused before sending, skipped by the host (its content check: the
 * reason is kept, the page is never sent again), held by the host for the person's
 * decision (its content check was unsure), lost (its text is gone), deferred (the
 * host could not be reached at connect: no try spent) or failed (a try spent: a timeout or
 * the host exiting while it had the page counts, so one bad page cannot stall the queue).
 * Never: touch `chrome.*` (everything comes in through `deps`, so tests fake it), or send
 * a page the rules refuse.
 */

/** Host error codes that mean "not now", not "this page": wait without spending a try
 * (another writer; a full disk, which the person frees: the pages wait, none is lost). */
const WAIT_CODES = new Set(["store_locked", "disk_full"]);

/**
 * @typedef {{text: string, position: number, quality: number}} Passage
 * @typedef {{category: string, why: string}} Refusal
 * @typedef {{
 *   request: (type: string, fields: object) => Promise<any>,
 *   payload: (id: string) => Promise<Passage[]|null>,
 *   signals?: (id: string) => Promise<object|null>,
 *   knownHash: (url: string) => Promise<string|null>,
 *   refusal: (item: import("./queue.js").QueueItem) => Promise<Refusal|null>,
 *   forgotten: (url: string, visitedAt: number) => Promise<boolean>,
 * }} DeliveryDeps
 * @typedef {{outcome: "done", indexed: boolean, hash: string}
 *   | {outcome: "refused", refusal: Refusal}
 *   | {outcome: "forgotten"}
 *   | {outcome: "skipped", refusal: Refusal}
 *   | {outcome: "held", refusal: Refusal, heldId: string}
 *   | {outcome: "lost", error: string}
 *   | {outcome: "defer", error: string}
 *   | {outcome: "failed", error: string, code: string}} Outcome
 */

/** @param {unknown} err */
function describe(err) {
  const e = /** @type {any} */ (err);
  const code = String(e?.code ?? "internal");
  return { code, error: `${code}: ${String(e?.message ?? e).slice(0, 300)}` };
}

/**
 * The host's refusal in an index_page reply, if it refused.
 * @param {any} reply @returns {Refusal|null}
 */
export function hostRefusal(reply) {
  const r = reply && typeof reply === "object" ? reply.result : null;
  if (!r || r.status !== "skipped") return null;
  return {
    category: typeof r.category === "string" && r.category ? r.category : "host-check",
    why: typeof r.why === "string" && r.why ? r.why.slice(0, 300) : "Rewind's helper judged it private",
  };
}

/**
 * The host's hold in an index_page reply: the page waits for the person's decision.
 * @param {any} reply @returns {{refusal: Refusal, heldId: string}|null}
 */
export function hostHold(reply) {
  const r = reply && typeof reply === "object" ? reply.result : null;
  if (!r || r.status !== "held") return null;
  return {
    refusal: {
      category: typeof r.category === "string" && r.category ? r.category : "private",
      why: typeof r.why === "string" && r.why ? r.why.slice(0, 300) : "looked private",
    },
    heldId: typeof r.held_id === "string" ? r.held_id : "",
  };
}

/**
 * Deliver one item. Never throws: every end is an Outcome.
 * @param {import("./queue.js").QueueItem} item @param {DeliveryDeps} deps
 * @returns {Promise<Outcome>}
 */
export async function deliver(item, deps) {
  try {
    if (await deps.forgotten(item.url, item.visited_at)) return { outcome: "forgotten" };
    const refusal = await deps.refusal(item);
    if (refusal) return { outcome: "refused", refusal };
    const passages = item.kind === "page" ? await deps.payload(item.id) : null;
    if (item.kind === "page" && !passages) {
      return { outcome: "lost", error: "its text was no longer in the extension's storage" };
    }
    let needIndex = item.kind === "page" && (await deps.knownHash(item.url)) !== item.hash;
    if (!needIndex) {
      const reply = await deps.request("record_visit", {
        url: item.url,
        visited_at: item.visited_at,
        dwell_s: item.dwell_s,
      });
      // The host may have lost or forgotten the page: send it whole if we still have it.
      needIndex = reply?.known === false && Boolean(passages);
    }
    if (!needIndex || !passages) return { outcome: "done", indexed: false, hash: item.hash };
    const signals = deps.signals ? await deps.signals(item.id) : null;
    const reply = await deps.request("index_page", {
      page: {
        url: item.url,
        title: item.title,
        passages,
        content_hash: item.hash,
        visited_at: item.visited_at,
        dwell_s: item.dwell_s,
        ...(signals ? { signals } : {}),
      },
    });
    const held = hostHold(reply);
    if (held) return { outcome: "held", ...held };
    const refused = hostRefusal(reply);
    // Forgotten (e.g. by `rewind forget` while this copy waited): like a forget mark here,
    // nothing to remember for the URL, so a later visit is recorded as usual.
    if (refused?.category === "forgotten") return { outcome: "forgotten" };
    if (refused) return { outcome: "skipped", refusal: refused };
    return { outcome: "done", indexed: true, hash: item.hash };
  } catch (err) {
    const { code, error } = describe(err);
    if (/** @type {any} */ (err)?.unsent || WAIT_CODES.has(code)) return { outcome: "defer", error };
    return { outcome: "failed", error, code };
  }
}
