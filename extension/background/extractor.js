/**
 * Running the content scripts in a tab and getting its passages back.
 *
 * Job: inject the extraction files into a tab's top frame (`scripting.executeScript`),
 * call `RewindExtract.run` with the chunking limits the host gave in hello (defaults
 * before the first hello) and the redaction setting, and return its result: passages, or
 * the page's own reason not to be recorded (a visible password or payment field), or the
 * reason it was skipped: it used up its reading budget (hello's `capture.extract_budget_ms`)
 * with nothing read, or never let the script run at all (a page whose thread is blocked:
 * the worker stops waiting after the budget and a grace period).
 * Never: run anything in a page's own world (the isolated world only), or take text from
 * a frame other than the top one (same-origin frames are read by the extractor itself).
 */

import { Code, RewindError } from "../lib/errors.js";
import { chunkerLimits, extractBudget } from "../lib/settings.js";
import { getCaptureLimits } from "./storage.js";

/** Injected in order; the vendor files define Readability (filled by build.mjs). */
export const EXTRACT_FILES = Object.freeze([
  "vendor/Readability-readerable.js",
  "vendor/Readability.js",
  "content/redact.js",
  "content/units.js",
  "content/quality.js",
  "content/chunker.js",
  "content/visible.js",
  "content/signals.js",
  "content/extract.js",
]);
const VENDORED = 2; // the first files; without them extraction falls back to heuristics
const DEFAULT_BUDGET_MS = 4000; // visible.js's, before the first hello
// After the budget: injecting the scripts, Readability and the chunker on a page whose own
// tasks run between ours. A page that has not answered by then never lets us run.
const GRACE_MS = 8000;
const STALLED = Symbol("stalled");

/**
 * @typedef {{text: string, position: number, quality: number}} Passage
 * @typedef {{category: string, why: string, signal: string}} PageSignal
 * @typedef {{
 *   url: string, title: string, passages: Passage[], method: string, stats: object,
 *   refused: PageSignal|null, took_ms: number, redacted?: Record<string, number>,
 *   skipped?: PageSignal,
 * }} Extraction
 */

/**
 * @param {number} tabId @param {{redact: boolean, honourSignals?: boolean}} opts
 * @returns {Promise<Extraction>}
 */
export async function extractTab(tabId, opts) {
  const capture = await getCaptureLimits();
  const budget = extractBudget(capture);
  const waitMs = (budget.budgetMs ?? DEFAULT_BUDGET_MS) + GRACE_MS;
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  const stalled = new Promise((resolve) => {
    timer = setTimeout(() => resolve(STALLED), waitMs);
  });
  const reading = readTab(tabId, { ...opts, limits: chunkerLimits(capture), budget });
  const res = await Promise.race([reading, stalled]).finally(() => clearTimeout(timer));
  if (res === STALLED) {
    // Injection and reading both wait for the page's thread: it never gave it to us.
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    const s = Math.round(waitMs / 1000);
    return {
      url: tab?.url ?? "", title: "", passages: [], method: "skipped", stats: {}, refused: null, took_ms: waitMs,
      skipped: { category: "unreadable", signal: "stalled",
                 why: `kept its thread blocked: its text could not be read within ${s} s (Rewind tries again on your next visit)` },
    };
  }
  return /** @type {Extraction} */ (res);
}

/**
 * Inject the extraction files and run them.
 * @param {number} tabId
 * @param {{redact: boolean, honourSignals?: boolean, limits: Record<string, number>, budget: object}} opts
 * @returns {Promise<Extraction>}
 */
async function readTab(tabId, opts) {
  const target = { tabId, frameIds: [0] };
  try {
    await chrome.scripting.executeScript({ target, files: [...EXTRACT_FILES] });
  } catch (err) {
    // vendor/ is filled by `node build.mjs`; without it, extract with the fallback only.
    console.warn("rewind: injecting with Readability failed, trying without", err);
    await chrome.scripting.executeScript({ target, files: EXTRACT_FILES.slice(VENDORED) });
  }
  const [res] = await chrome.scripting.executeScript({
    target,
    func: (/** @type {any} */ o) => /** @type {any} */ (globalThis).RewindExtract.run(o),
    args: [{ limits: opts.limits, ...opts.budget, redact: opts.redact, honourSignals: opts.honourSignals !== false }],
  });
  const r = /** @type {any} */ (res)?.result;
  if (!r || !Array.isArray(r.passages)) {
    throw new RewindError(Code.EXTRACTION_FAILED, "The page's text could not be read.");
  }
  return r;
}
