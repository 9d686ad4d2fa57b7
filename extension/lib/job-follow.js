/**
 * Following the embedding job from a page (the popup, the options page): its status every
 * second while there is one, through the worker's and its helper's restarts.
 *
 * Job: keep the job that is shown, ask for its status each second, and end the following
 * only when the helper itself says there is no job. A status that does not come (the call
 * failed, or never settled: Chrome stopped the worker while it waited for its helper) or a
 * page load that could not reach the helper says nothing about the job — it goes on in the
 * helper —, so the job stays shown and is asked for again a second later.
 * Never: decide from a missing answer that the job ended (the page would stop asking, and
 * with nothing asking no worker starts again to restart the helper), or talk to the worker
 * itself (`ask` does).
 */

/**
 * @typedef {{
 *   ask: () => Promise<any>,                  // the `reindex` status reply ({reembed, ...})
 *   show: (job: any, reply: any|null) => void, // reply: null when only the job is known
 *   everyMs?: number, lateMs?: number,
 *   setTimer?: (fn: () => void, ms: number) => any, clearTimer?: (t: any) => void,
 * }} FollowOptions
 */

/** @param {FollowOptions} o */
export function jobFollower(o) {
  const everyMs = o.everyMs ?? 1000;
  const lateMs = o.lateMs ?? 10_000; // a worker stopped mid-call may never answer
  const setTimer = o.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = o.clearTimer ?? ((t) => clearTimeout(t));
  /** @type {any} */
  let shown = null;
  /** @type {any} */
  let timer;

  function schedule() {
    clearTimer(timer);
    timer = shown ? setTimer(refresh, everyMs) : undefined;
  }

  /** The helper's answer: `job` null means there is none (the following ends). */
  function set(/** @type {any} */ job, /** @type {any} */ reply = null) {
    shown = job ?? null;
    o.show(shown, reply);
    schedule();
  }

  /** The status now; no answer in time keeps the job shown and asks again. */
  async function refresh() {
    /** @type {any} */
    let late;
    const answer = await Promise.race([
      o.ask().catch(() => null),
      new Promise((resolve) => (late = setTimer(() => resolve(null), lateMs))),
    ]);
    clearTimer(late);
    if (answer && typeof answer === "object") set(answer.reembed, answer);
    else schedule();
  }

  return {
    set,
    refresh,
    /**
     * What a page load learnt of the job: the job (or null: none) when the helper
     * answered, `undefined` when it could not (keep the one shown, keep asking).
     * @param {any} job
     */
    known(job) {
      if (job === undefined) {
        if (shown && timer === undefined) schedule();
        return;
      }
      set(job);
    },
    get shown() {
      return shown;
    },
  };
}

/**
 * The job a status load knows of: the fresh stats' job (null: none) when the helper is
 * connected and answered, else undefined (not known).
 * @param {any} status the worker's `status` reply
 */
export function jobOfStatus(status) {
  const stats = status?.host?.state === "connected" ? status?.stats : null;
  if (!stats || typeof stats !== "object") return undefined;
  return stats.reembed ?? null;
}
