/**
 * Run async read-modify-write steps one after another.
 *
 * Job: chrome.storage has no transactions; events arrive in bursts (tab
 * activated + navigation committed + focus changed). Each stored document is
 * updated through one `serial()` lane so no update overwrites another.
 * Never: hold state beyond the lane itself (losing it with the worker is fine).
 */

/**
 * @returns {<T>(fn: () => Promise<T>|T) => Promise<T>}
 */
export function serial() {
  /** @type {Promise<unknown>} */
  let tail = Promise.resolve();
  return (fn) => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => {});
    return run;
  };
}
