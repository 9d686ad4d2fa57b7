/**
 * What Rewind keeps, in words: the size of each part of the store, the retention
 * settings, and whether it is encrypted (from the host's `stats`).
 *
 * Job: `storageLine(stats)` and `retentionLine(stats)` for the popup and options page.
 * Never: guess a number the host did not send (a missing part is left out).
 */

import { formatBytes } from "./format.js";

/**
 * "Text 5.1 MB · vectors 3.3 MB · index 3.8 MB. Encrypted on this computer (key in …)."
 * @param {any} stats @param {boolean} [withKey] say where the key is (the options page)
 */
export function storageLine(stats, withKey = true) {
  const s = stats?.storage;
  if (!s) return "";
  /** @type {[string, unknown][]} */
  const parts = [["Text", s.text_bytes], ["vectors", s.vector_bytes], ["index", s.text_index_bytes]];
  const shown = parts.filter(([, n]) => Number.isFinite(Number(n))).map(([k, n]) => `${k} ${formatBytes(Number(n))}`);
  const enc = stats.encryption;
  const where = withKey && enc?.key ? ` (key in ${enc.key})` : "";
  const sealed = enc ? (enc.encrypted ? `Encrypted on this computer${where}.` : "Not encrypted.") : "";
  return [shown.length ? `${shown.join(" · ")}.` : "", sealed].filter(Boolean).join(" ");
}

/** "Keeps pages 90 days, up to 500 MB" or "Keeps everything (no limits)" @param {any} stats */
export function retentionLine(stats) {
  const r = stats?.retention;
  if (!r) return "";
  const age = Number(r.max_age_days);
  const mb = Number(r.max_mb);
  const limits = [];
  if (age > 0) limits.push(`pages visited in the last ${age} day${age === 1 ? "" : "s"}`);
  if (mb > 0) limits.push(`up to ${mb} MB, oldest pages forgotten first`);
  return limits.length ? `Keeps ${limits.join(", ")}` : "Keeps everything (no limits set)";
}
