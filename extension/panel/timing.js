/**
 * Keystroke to results on screen in the side panel, as a performance measure.
 *
 * Job: note when the words being searched were typed, and once their results are painted
 * record one `performance.measure("rewind:search")` from that keystroke to the paint, with
 * where the time went in its `detail` (ms): `wait` before the request left (an earlier
 * search still under way), `roundTrip` to the host and back through the worker, `host`
 * (the host's own search, its `took_ms`), `render` (the DOM update), `paint` (to the frame
 * after it). bench/perf/panel.py reads these; DevTools' Performance panel shows them.
 * Never: change what is searched or shown, hold page text or the query (only its length),
 * or keep more than the last measure (the timeline would grow while the panel is open).
 */

const NAME = "rewind:search";

let typedAt = 0;

/** A keystroke in the box: the words searched next were typed now. */
export function typed() {
  typedAt = performance.now();
}

/**
 * One search, from the keystroke that gave its words (or now, when nothing was typed:
 * Enter, a filter, an asked question).
 * @param {string} query
 */
export function started(query) {
  const sent = performance.now();
  const start = typedAt && typedAt <= sent ? typedAt : sent;
  typedAt = 0;
  let replied = 0;
  let hostMs = NaN;
  return {
    /** @param {unknown} tookMs the host's `took_ms` */
    replied(tookMs) {
      replied = performance.now();
      hostMs = Number(tookMs);
    },
    /** The results are in the DOM: measure at the frame after this one is painted. */
    rendered(/** @type {number} */ results) {
      const rendered = performance.now();
      requestAnimationFrame(() =>
        setTimeout(() => {
          const end = performance.now();
          const r2 = (/** @type {number} */ ms) => Math.round(ms * 100) / 100;
          performance.clearMeasures(NAME);
          performance.measure(NAME, {
            start,
            end,
            detail: {
              chars: query.length,
              results,
              wait: r2(sent - start),
              roundTrip: r2((replied || rendered) - sent),
              host: Number.isFinite(hostMs) ? r2(hostMs) : null,
              render: r2(rendered - (replied || sent)),
              paint: r2(end - rendered),
            },
          });
        }, 0),
      );
    },
  };
}
