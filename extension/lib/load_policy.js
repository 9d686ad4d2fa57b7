/**
 * The sensitive-page policy as shipped in the extension (policy.json, copied
 * from host/rewind/capture/policy.json by build.mjs).
 *
 * Job: fetch and compile it once per worker or page life. The file is part of
 * the extension and never changes while it runs, so the compiled copy is kept.
 * Never: fetch anything but the extension's own file; on failure it answers
 * null, which makes rules.js refuse every page (fail closed) and say why.
 */

import { compilePolicy } from "./policy.js";

/** @type {Promise<import("./policy.js").Policy|null>|null} */
let loading = null;

/** @returns {Promise<import("./policy.js").Policy|null>} */
export function loadPolicy() {
  loading ??= fetch(chrome.runtime.getURL("policy.json"))
    .then((r) => {
      if (!r.ok) throw new Error(`policy.json: HTTP ${r.status}`);
      return r.json();
    })
    .then(compilePolicy)
    .catch((err) => {
      console.error("Rewind: the sensitive-page policy could not be loaded:", err);
      loading = null; // try again next time
      return null;
    });
  return loading;
}
