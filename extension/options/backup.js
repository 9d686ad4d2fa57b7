/**
 * Options section "Backup and restore": a backup file that really downloads (optionally
 * encrypted with a passphrase), a portable JSON export, and importing a file the person
 * picks (sent in pieces under the host's request limit).
 *
 * Job: stream the host's backup / export frames into a file, send an upload piece by
 * piece and run its import with progress, and say what came of each.
 * Never: keep the passphrase, hold the buttons enabled while a transfer runs, or save a
 * file from a stream that did not reach its last frame.
 */

import { backupName, fromBase64, pieces, saveBlob, toBase64 } from "../lib/files.js";
import { formatBytes, formatCount } from "../lib/format.js";

const PIECE_BYTES = 3 * 1024 * 1024; // base64: 4 MiB, the host's import_chunk limit

/**
 * A download whose stream closed before its last frame (Chrome stopped the extension's
 * worker, or the helper went away): nothing was saved, never part of a file; say so and
 * how to try again. Null for any other error.
 * @param {any} err @param {string} what @param {string} button
 */
export function cutShort(err, what, button) {
  if (err?.code !== "disconnected") return null;
  return `The ${what} stopped before it was complete (Rewind's background worker or its helper ` +
    `went away), so no file was saved. Click “${button}” to try again.`;
}

/** @param {HTMLElement} _root @param {import("./page.js").Page} page */
export function mount(_root, page) {
  const { $ } = page;
  const msg = page.msg;

  /** @param {boolean} busy */
  function dataBusy(busy) {
    for (const id of ["backup", "export", "import"]) $(id).disabled = busy;
  }

  $("backup").addEventListener("click", async () => {
    const passphrase = String($("backup-passphrase").value);
    /** @type {Uint8Array[]} */
    const parts = [];
    let bytes = 0;
    const add = (/** @type {any} */ frame) => {
      if (typeof frame?.data !== "string") return;
      const b = fromBase64(frame.data);
      parts.push(b);
      bytes += b.length;
      msg("export-msg", `Backing up… ${formatBytes(bytes)}`);
    };
    dataBusy(true);
    msg("export-msg", "Backing up…");
    try {
      const last = await page.stream("backup", passphrase ? { passphrase } : {}, add).done;
      add(last);
      saveBlob(new Blob(/** @type {BlobPart[]} */ (parts), { type: "application/octet-stream" }), backupName("rwb"));
      msg("export-msg", `Saved a backup of ${formatCount(Number(last.pages ?? 0))} pages (${formatBytes(bytes)})` +
        (last.encrypted ? ", encrypted with your passphrase." : "."));
    } catch (err) {
      msg("export-msg", cutShort(err, "backup", "Download a backup") ?? page.errText(err), true);
    } finally {
      dataBusy(false);
    }
  });

  $("export").addEventListener("click", async () => {
    /** @type {any[]} */
    const pages = [];
    /** @param {any[]} list */
    const add = (list) => {
      for (const p of list ?? []) {
        const last = pages[pages.length - 1];
        // A page too big for one frame arrives in parts: {url, continued: true, passages}.
        if (p && p.continued && last && last.url === p.url) last.passages.push(...(p.passages ?? []));
        else pages.push(p);
      }
      msg("export-msg", `Exporting… ${formatCount(pages.length)} pages`);
    };
    dataBusy(true);
    msg("export-msg", "Exporting…");
    try {
      const last = await page.stream("export", {}, (f) => add(f?.pages)).done;
      add(last?.pages);
      const { id: _id, ok: _ok, done: _done, pages: _pages, ...meta } = last ?? {};
      const doc = { ...meta, exported_at: new Date().toISOString(), pages_total: pages.length, pages };
      saveBlob(new Blob([JSON.stringify(doc)], { type: "application/json" }), backupName("json"));
      msg("export-msg", `Exported ${formatCount(pages.length)} pages.`);
    } catch (err) {
      msg("export-msg", cutShort(err, "export", "Export portable JSON") ?? page.errText(err), true);
    } finally {
      dataBusy(false);
    }
  });

  $("import").addEventListener("click", async () => {
    const file = /** @type {HTMLInputElement} */ ($("import-file")).files?.[0];
    if (!file) {
      msg("import-msg", "Choose a backup file first.", true);
      return;
    }
    const passphrase = String($("backup-passphrase").value);
    const upload = `u${Date.now()}`;
    dataBusy(true);
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      for (const piece of pieces(bytes, PIECE_BYTES)) {
        msg("import-msg", `Sending ${file.name}… ${formatBytes(piece.offset)} of ${formatBytes(bytes.length)}`);
        await page.call("import_chunk", { upload, offset: piece.offset, data: toBase64(piece.bytes) });
      }
      msg("import-msg", "Checking the file…");
      const last = await page.stream("import", { upload, ...(passphrase ? { passphrase } : {}) }, (f) => {
        const p = f?.progress;
        if (p) msg("import-msg", `Importing… ${formatCount(p.done)} of ${formatCount(p.total)} pages`);
      }).done;
      const r = last?.result ?? {};
      msg("import-msg", `Imported ${formatCount(Number(r.pages ?? 0))} pages: ${formatCount(Number(r.new ?? 0))} new, ` +
        `${formatCount(Number(r.merged ?? 0))} merged, ${formatCount(Number(r.unchanged ?? 0))} already here, ` +
        `${formatCount(Number(r.skipped ?? 0))} not recorded by your rules.`);
    } catch (err) {
      msg("import-msg", page.errText(err), true);
    } finally {
      dataBusy(false);
    }
  });
}
