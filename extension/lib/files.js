/**
 * Files the person saves or picks on the extension's pages: backups.
 *
 * Job: `saveBlob(blob, name)` makes the browser download a file the page built (a link
 * to its own blob: URL, clicked); `toBase64` / `fromBase64` move bytes through JSON
 * frames (the host speaks JSON only); `pieces(bytes, size)` cuts a file for import_chunk.
 * Never: link to a URL that came from data (only blob: URLs this page just made, which
 * lib/dom.js's link sanitiser would otherwise turn into "#"), or read a file the person did
 * not pick.
 */

const CHUNK = 0x8000; // characters per String.fromCharCode call (its argument limit)

/** @param {Blob} blob @param {string} name */
export function saveBlob(blob, name) {
  const href = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = href; // our own blob: URL, not page data: set directly, not through dom.js's h()
  a.download = name;
  a.style.display = "none";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}

/** @param {Uint8Array} bytes @returns {string} */
export function toBase64(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    bin += String.fromCharCode.apply(null, /** @type {any} */ (bytes.subarray(i, i + CHUNK)));
  }
  return btoa(bin);
}

/** @param {string} text @returns {Uint8Array} */
export function fromBase64(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Offsets and slices of `bytes`, `size` bytes each (the last may be shorter).
 * @param {Uint8Array} bytes @param {number} size @returns {{offset: number, bytes: Uint8Array}[]}
 */
export function pieces(bytes, size) {
  if (!(size > 0)) throw new RangeError("size must be positive");
  const out = [];
  for (let off = 0; off < bytes.length; off += size) out.push({ offset: off, bytes: bytes.subarray(off, off + size) });
  return out.length ? out : [{ offset: 0, bytes: new Uint8Array(0) }];
}

/** "rewind-backup-2026-11-23.rwb" @param {string} ext @param {Date} [when] */
export function backupName(ext, when = new Date()) {
  return `rewind-backup-${when.toISOString().slice(0, 10)}.${ext}`;
}
