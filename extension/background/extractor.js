/**
 * Running the content scripts in a tab and getting its passages back.
 *
 * Job: inject the extraction files into a tab's top frame (`scripting.executeScript`),
 * call `RewindExtract.run` with the chunking limits the host gave in hello (defaults
 * before the first hello) and the redaction setting, and return its result: passages, or
 * the page's own reason not to be recorded (a visible password or payment field).
 * Never: run anything in a page's own world (the isolated world only), or take text from
 * a frame other than the top one (same-origin frames are read by the extractor itself).
 */

import { Code, RewindError } from "../lib/errors.js";
import { chunkerLimits } from "../lib/settings.js";
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

/**
 * @typedef {{text: string, position: number, quality: number}} Passage
 * @typedef {{category: string, why: string, signal: string}} PageSignal
 * @typedef {{
 *   url: string, title: string, passages: Passage[], method: string, stats: object,
 *   refused: PageSignal|null, took_ms: number, redacted?: Record<string, number>,
 * }} Extraction
 */

/**
 * @param {number} tabId @param {{redact: boolean, honourSignals?: boolean}} opts
 * @returns {Promise<Extraction>}
 */
export async function extractTab(tabId, opts) {
  const target = { tabId, frameIds: [0] };
  try {
    await chrome.scripting.executeScript({ target, files: [...EXTRACT_FILES] });
  } catch (err) {
    // vendor/ is filled by `node build.mjs`; without it, extract with the fallback only.
    console.warn("rewind: injecting with Readability failed, trying without", err);
    await chrome.scripting.executeScript({ target, files: EXTRACT_FILES.slice(VENDORED) });
  }
  const limits = chunkerLimits(await getCaptureLimits());
  const [res] = await chrome.scripting.executeScript({
    target,
    func: (/** @type {any} */ o) => /** @type {any} */ (globalThis).RewindExtract.run(o),
    args: [{ limits, redact: opts.redact, honourSignals: opts.honourSignals !== false }],
  });
  const r = res && res.result;
  if (!r || !Array.isArray(r.passages)) {
    throw new RewindError(Code.EXTRACTION_FAILED, "The page's text could not be read.");
  }
  return r;
}
