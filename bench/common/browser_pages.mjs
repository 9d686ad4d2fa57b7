// Turn HTML files into pages as the extension would send them, for bench/common/real_pages.py.
//
// Job: read file paths (one a line) on stdin; for each, parse it with linkedom and run the
// extension's own content code on it — RewindExtract.extractFrom (Readability, else the
// main-content fallback, then the chunker: title + at most 29 passages of <= 200 words,
// blocks kept apart by line breaks) and RewindExtract.redactAll (the extension's masking) —
// and the page's own signals (RewindExtract.pageSignals: declared app, controls, composer),
// and write one JSON line {file, title, passages, method, signals} to stdout.
// Not reproduced: the live page's computed styles (the visible copy); documentation pages
// hide nothing that matters here.
// Never: fetch anything a page links to, run page scripts (linkedom runs none), or write files.
//
// Run: node bench/common/browser_pages.mjs < list-of-files

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const EXT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "extension");
const require = createRequire(join(EXT, "package.json")); // the extension's node_modules
const { parseHTML } = require("linkedom");
const { Readability, isProbablyReaderable } = require("@mozilla/readability");
await import(join(EXT, "content", "units.js"));
await import(join(EXT, "content", "quality.js"));
await import(join(EXT, "content", "chunker.js"));
await import(join(EXT, "content", "redact.js"));
await import(join(EXT, "content", "signals.js"));
await import(join(EXT, "content", "extract.js"));

const g = /** @type {any} */ (globalThis);
const env = { Readability, isProbablyReaderable, owned: true };
const maxChars = g.RewindChunker.LIMITS.maxPassageChars;

for await (const line of createInterface({ input: process.stdin })) {
  const file = line.trim();
  if (!file) continue;
  let out;
  try {
    const doc = parseHTML(readFileSync(file, "utf8")).document;
    const r = g.RewindExtract.extractFrom(doc, env);
    const masked = g.RewindExtract.redactAll(r.passages, g.RewindRedact, maxChars).passages;
    const title = String(g.RewindRedact.redact(r.title).text);
    // Position 0 is the title: the host gets it apart from the passages.
    const passages = masked.filter((/** @type {any} */ p) => p.position > 0).map((/** @type {any} */ p) => p.text);
    const signals = g.RewindExtract.pageSignals(doc, g.RewindRedact);
    out = { file, title, passages, method: r.method, signals };
  } catch (err) {
    out = { file, error: String(err && err.message ? err.message : err).slice(0, 300) };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
