#!/usr/bin/env node
/**
 * Build the extension: vendor Readability in, copy the sources out.
 *
 *   node build.mjs            fill extension/vendor/ (load extension/ unpacked as it is)
 *   node build.mjs OUT_DIR    also write the loadable extension to OUT_DIR (build.py zips it)
 *
 * Job: copy the pinned @mozilla/readability scripts (installed by `npm ci`)
 * into vendor/, the sensitive-page policy (host/rewind/capture/policy.json,
 * one file for host and extension) to policy.json, and the extension's own
 * files (no tests, no node_modules, no package files) plus both into OUT_DIR.
 * Never: download anything (npm installs, this only copies), or copy
 * third-party code into the repository (vendor/ is gitignored).
 * Node's standard library only.
 */

import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const READABILITY = join(HERE, "node_modules", "@mozilla", "readability");
const VENDOR = join(HERE, "vendor");
const VENDORED = ["Readability.js", "Readability-readerable.js", "LICENSE.md"];
const POLICY_SOURCE = join(HERE, "..", "host", "rewind", "capture", "policy.json");

// What goes into the built extension (relative to extension/).
const INCLUDE = [
  "manifest.json",
  "background.js",
  "background",
  "content",
  "lib",
  "icons",
  "vendor",
  "policy.json",
  "panel",
  "sidepanel.html",
  "sidepanel.js",
  "sidepanel.css",
  "popup.html",
  "popup.js",
  "popup.css",
  "options.html",
  "options.js",
  "options",
  "options.css",
  "ui.css",
];

function fail(message) {
  console.error(`build.mjs: ${message}`);
  process.exit(1);
}

function vendor() {
  if (!existsSync(join(READABILITY, "Readability.js"))) {
    fail("@mozilla/readability is not installed. Run `npm ci` in extension/ first (build.py does it).");
  }
  const pkg = JSON.parse(readFileSync(join(READABILITY, "package.json"), "utf8"));
  const wanted = JSON.parse(readFileSync(join(HERE, "package.json"), "utf8")).dependencies["@mozilla/readability"];
  if (pkg.version !== wanted) fail(`@mozilla/readability ${pkg.version} is installed, package.json pins ${wanted}: run npm ci.`);
  mkdirSync(VENDOR, { recursive: true });
  for (const name of VENDORED) {
    const src = join(READABILITY, name);
    if (existsSync(src)) cpSync(src, join(VENDOR, name));
  }
  writeFileSync(join(VENDOR, "VERSION"), `@mozilla/readability ${pkg.version}\n`);
  if (!existsSync(POLICY_SOURCE)) fail(`missing ${POLICY_SOURCE}: the extension needs the host's policy.json`);
  JSON.parse(readFileSync(POLICY_SOURCE, "utf8")); // a broken file fails the build, not the worker
  cpSync(POLICY_SOURCE, join(HERE, "policy.json"));
}

/** @param {string} dir @returns {string[]} */
function files(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else out.push(p);
  }
  return out;
}

function copyOut(outDir) {
  const out = resolve(outDir);
  if (out === HERE || HERE.startsWith(out + "/")) fail("the output folder must not contain the sources");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const item of INCLUDE) {
    const src = join(HERE, item);
    if (!existsSync(src)) fail(`missing ${item}`);
    cpSync(src, join(out, item), { recursive: true });
  }
  // A manifest of what was built, for checking a zip against its sources.
  const listing = files(out)
    .map((p) => {
      const rel = relative(out, p);
      const sum = createHash("sha256").update(readFileSync(p)).digest("hex");
      return `${sum}  ${rel}`;
    })
    .sort((a, b) => a.slice(66).localeCompare(b.slice(66)));
  writeFileSync(join(out, "BUILD-SHA256SUMS"), `${listing.join("\n")}\n`);
  console.log(`build.mjs: extension written to ${out} (${listing.length} files)`);
}

vendor();
if (process.argv[2]) copyOut(process.argv[2]);
else console.log(`build.mjs: vendor/ and policy.json filled; load ${HERE} unpacked`);
