// Shared by the extension's node tests: fixtures parsed with linkedom, and the
// content scripts (classic scripts that define globals) loaded once.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseHTML } from "linkedom";

const HERE = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

await import("../content/units.js");
await import("../content/quality.js");
await import("../content/chunker.js");
await import("../content/extract.js");

/** @type {any} */
export const RewindChunker = globalThis.RewindChunker;
/** @type {any} */
export const RewindExtract = globalThis.RewindExtract;
export const Readability = require("@mozilla/readability").Readability;
export const isProbablyReaderable = require("@mozilla/readability").isProbablyReaderable;

/** @param {string} name */
export function fixture(name) {
  return readFileSync(join(HERE, "fixtures", name), "utf8");
}

/** @param {string} html @returns {Document} */
export function parse(html) {
  return /** @type {any} */ (parseHTML(html)).document;
}

/** @param {string} text */
export function words(text) {
  return text.split(/\s+/).filter(Boolean).length;
}
