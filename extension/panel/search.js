/**
 * The side panel's search: the box, its mode and filters, and the results under it.
 *
 * Job: a search at each keystroke (or at once for `searchFor`, when a question is asked):
 * at most one under way, and the words typed meanwhile searched as soon as it is back, so
 * results follow the typing without queueing stale searches; results as cards in a plain
 * list: the arrow keys in the box move the current one (aria-current, and the box's
 * aria-activedescendant names its link) and Enter opens it at the passage, while Tab reaches
 * each card's link and Forget button; the results the host marks not relevant folded under
 * a closed "Less relevant (N)" section (lib/results.js), opened with the keyboard like
 * any <details>; "Forget" on a result (lib/forget.js) takes it off the list at once.
 * `onSearched` (which may ask the question) waits until the typing has paused.
 * Each search's keystroke-to-paint time is a performance measure (panel/timing.js).
 * Never: render page text as HTML (panel/cards.js), or talk to the host except through
 * the worker (lib/client.js).
 */

import { call } from "../lib/client.js";
import { displayUrl, domainFilter, sinceFor } from "../lib/format.js";
import { foldResults, foldedLabel, searchSummary } from "../lib/results.js";
import { hitUrl, linkId, openUrl, resultCard } from "./cards.js";
import * as timing from "./timing.js";

// A search at every keystroke, not after a 300 ms debounce: after a key a person waits for
// the search alone (docs/benchmarks.md, "Side panel"). What only a finished question
// should start (auto-answer) still waits for this pause in the typing.
const PAUSE_MS = 300;
export const HINT = "Type words you remember from a page, or ask a question and press Ask.";

/**
 * @typedef {{
 *   q: HTMLInputElement, status: HTMLElement,
 *   results: HTMLElement, less: HTMLDetailsElement, lessLabel: HTMLElement,
 *   folded: HTMLElement, range: HTMLSelectElement, domain: HTMLInputElement,
 * }} SearchElements
 * @typedef {{
 *   settings: () => {showScores: boolean},
 *   mode: () => string,
 *   onQuery: (query: string) => void,
 *   onSearched: (query: string, found: number) => void,
 *   onNotice: (notice: string|null) => void,
 *   onError: (err: any) => boolean,
 *   onAsk: () => void,
 * }} SearchHooks
 */

/** @param {SearchElements} els @param {SearchHooks} hooks */
export function createSearch(els, hooks) {
  const state = {
    /** @type {{shown: any[], folded: any[]}} */
    fold: { shown: [], folded: [] },
    selected: -1,
    /** the arrow keys moved the current result since the last search (the box names it) */
    moved: false,
    seq: 0,
    /** @type {ReturnType<typeof setTimeout>|null} */
    timer: null,
    /** a search is under way: words typed meanwhile wait for it (`again`) */
    busy: false,
    again: false,
    /** @type {ReturnType<typeof setTimeout>|null} the typing has not paused yet */
    pause: null,
    /** @type {{query: string, found: number}|null} shown, `onSearched` not yet told */
    searched: null,
    /** the words the results shown (or being fetched) are for */
    query: "",
  };

  /** The results the arrow keys move through: the shown ones, and the folded ones if open. */
  const reachable = () => (els.less.open ? [...state.fold.shown, ...state.fold.folded] : state.fold.shown);

  /** @param {any} hit @param {number} i */
  function card(hit, i) {
    return resultCard(hit, {
      id: `result-${i}`,
      current: i === state.selected,
      showScore: hooks.settings().showScores,
      onOpen: (url) => {
        select(i);
        openUrl(url);
      },
      onForget: (outcome) => forgotten(String(hit.url ?? ""), outcome),
    });
  }

  /** After "Forget" on a result: the page leaves the list (shown or folded) at once. */
  function forgotten(/** @type {string} */ url, /** @type {any} */ outcome) {
    if (!outcome.ok) {
      if (!hooks.onError(outcome.error)) {
        const e = outcome.error ?? {};
        els.status.textContent = `${e.message ?? "Could not forget the page."}${e.hint ? ` ${e.hint}` : ""}`;
      }
      return;
    }
    const keep = (/** @type {any} */ hit) => hit.url !== url;
    state.fold = { shown: state.fold.shown.filter(keep), folded: state.fold.folded.filter(keep) };
    state.selected = Math.min(state.selected, reachable().length - 1);
    render();
    els.status.textContent = `Forgotten: ${displayUrl(url)}. Search will not show it again.`;
  }

  function render() {
    const { shown, folded } = state.fold;
    els.results.replaceChildren(...shown.map((hit, i) => card(hit, i)));
    els.folded.replaceChildren(...folded.map((hit, i) => card(hit, shown.length + i)));
    els.lessLabel.textContent = foldedLabel(folded.length);
    els.less.hidden = folded.length === 0;
    updateActive();
  }

  /** @param {number} i @param {boolean} [moved] by the arrow keys */
  function select(i, moved = state.moved) {
    state.selected = i;
    state.moved = moved;
    for (const li of [...els.results.children, ...els.folded.children]) {
      if (li.id === `result-${i}`) li.setAttribute("aria-current", "true");
      else li.removeAttribute("aria-current");
    }
    updateActive();
  }

  /** The current result in view; named to a screen reader once the arrow keys moved to it
   * (not at each search: the box stays the typing's, its results are told by the status). */
  function updateActive() {
    const on = state.selected >= 0 && state.selected < reachable().length;
    if (on) document.getElementById(`result-${state.selected}`)?.scrollIntoView({ block: "nearest" });
    if (on && state.moved) els.q.setAttribute("aria-activedescendant", linkId(`result-${state.selected}`));
    else els.q.removeAttribute("aria-activedescendant");
  }

  /** The words changed: search them now, or as soon as the search under way is back. */
  function schedule() {
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
    if (state.busy) state.again = true;
    else state.timer = setTimeout(run, 0); // one search for keystrokes of the same task
  }

  function typed() {
    timing.typed();
    if (state.pause) clearTimeout(state.pause);
    state.pause = setTimeout(() => {
      state.pause = null;
      settled();
    }, PAUSE_MS);
    schedule();
  }

  /** Tell `onSearched` about the results shown, once the typing has paused. */
  function settled() {
    if (state.pause || !state.searched) return;
    const { query, found } = state.searched;
    state.searched = null;
    hooks.onSearched(query, found);
  }

  /** @param {{shown: any[], folded: any[]}} fold */
  function show(fold) {
    state.fold = fold;
    state.selected = fold.shown.length ? 0 : -1;
    state.moved = false;
    els.less.open = false; // a new search starts folded
    render();
  }

  async function run() {
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
    state.again = false;
    state.searched = null;
    const query = els.q.value.trim();
    const seq = ++state.seq;
    state.busy = false; // an older search still under way is now stale: not waited for
    state.query = query;
    hooks.onQuery(query);
    if (!query) {
      show({ shown: [], folded: [] });
      hooks.onNotice(null);
      els.status.textContent = HINT;
      return;
    }
    const mode = hooks.mode();
    /** @type {Record<string, unknown>} */
    const fields = { query, mode }; // how many: the helper's "Results to show" (default_limit)
    const since = sinceFor(els.range.value);
    if (since !== null) fields.since = since;
    const domain = domainFilter(els.domain.value);
    if (els.domain.value.trim() && !domain) {
      els.status.textContent = "Type a site like example.com.";
      return;
    }
    if (domain) fields.domain = domain;
    els.status.textContent = "Searching…";
    els.results.setAttribute("aria-busy", "true");
    const timed = timing.started(query);
    state.busy = true;
    try {
      const r = await call("search", fields);
      if (seq !== state.seq) return; // a newer search is under way
      timed.replied(r.took_ms);
      const fold = foldResults(r.results);
      show(fold);
      hooks.onNotice(typeof r.notice === "string" && r.notice ? r.notice : null);
      els.status.textContent = searchSummary(fold, { query, tookMs: r.took_ms, keywordMode: mode === "keyword" });
      timed.rendered(fold.shown.length + fold.folded.length);
      state.searched = { query, found: fold.shown.length };
      settled();
    } catch (err) {
      if (seq !== state.seq) return;
      show({ shown: [], folded: [] });
      if (!hooks.onError(err)) {
        const e = /** @type {any} */ (err) ?? {};
        els.status.textContent = `${e.message ?? "Something went wrong."}${e.hint ? ` ${e.hint}` : ""}`;
      }
    } finally {
      if (seq === state.seq) {
        els.results.removeAttribute("aria-busy");
        state.busy = false;
        if (state.again) run(); // typed while it was under way: those words now
      }
    }
  }

  /** Search for these words now (a question just asked: its results go under the answer). @param {string} query */
  function searchFor(query) {
    els.q.value = query;
    if (state.query === query.trim() && !state.timer && state.seq > 0) return; // shown already
    run();
  }

  els.q.addEventListener("input", typed);
  els.q.addEventListener("keydown", (ev) => {
    const n = reachable().length;
    if (ev.key === "ArrowDown" && n) {
      ev.preventDefault();
      select(Math.min(n - 1, state.selected + 1), true);
    } else if (ev.key === "ArrowUp" && n) {
      ev.preventDefault();
      select(Math.max(0, state.selected - 1), true);
    } else if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      hooks.onAsk();
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      if (state.timer || state.again) run(); // typed and pressed Enter before the search: now
      else if (state.selected >= 0 && state.selected < n) openUrl(hitUrl(reachable()[state.selected]));
    } else if (ev.key === "Escape") {
      ev.preventDefault();
      els.q.value = "";
      run();
    }
  });
  els.less.addEventListener("toggle", () => {
    // Folding the section again takes the selection out of it.
    if (!els.less.open && state.selected >= state.fold.shown.length) select(state.fold.shown.length - 1);
  });
  els.range.addEventListener("change", () => els.q.value.trim() && run());
  els.domain.addEventListener("input", () => els.q.value.trim() && schedule());

  return { run, schedule, searchFor, query: () => els.q.value.trim() };
}
