/**
 * Pages the host held for the person's decision: list them, keep or don't keep one.
 *
 * Job: `held_list` relays `list_held` (title, site, why, when it expires — never text);
 * `held_decide` relays `decide_held` and then updates what the worker remembers of the
 * page's URL: kept → its reason is dropped and its content hash remembered (a revisit sends a
 * visit, not the page again); not kept → the reason says the person did not keep it, so the
 * page is not read and sent again, and the page's site joins the person's exclusions ("Never
 * record" in the options, where they can take it out again): a site whose page they did not
 * want kept is one whose other pages they would not want either.
 * Never: decide for the person, or touch a URL other than the one decided on (but for the
 * exclusion of its site).
 */

import { Code, RewindError } from "../../lib/errors.js";
import { siteOfUrl } from "../../lib/rules.js";
import * as P from "../pages.js";
import { getSettings, patchSettings } from "../storage.js";

/** @typedef {import("../dispatch.js").Deps} Deps */

/** @param {Deps} deps */
export function heldList(deps) {
  return deps.native.request("list_held");
}

/** @param {Deps} deps @param {any} msg */
export async function heldDecide(deps, msg) {
  if (typeof msg.id !== "string" || !msg.id || typeof msg.keep !== "boolean") {
    throw new RewindError(Code.BAD_REQUEST, "held_decide needs a held page's id and keep: true or false.");
  }
  const reply = await deps.native.request("decide_held", { held_id: msg.id, keep: msg.keep });
  const url = typeof msg.url === "string" ? msg.url : "";
  if (url) {
    const now = Date.now();
    const verdict = await P.verdictFor(url);
    if (msg.keep) {
      await P.clearVerdicts((u) => u === url);
      if (verdict?.hash && reply?.result?.page_id != null) await P.rememberHash(url, verdict.hash, now);
    } else {
      await P.noteVerdict(url, { category: verdict?.category ?? "private", why: "you chose not to keep it", by: "declined" }, now);
      const site = siteOfUrl(url);
      const { blocklist } = await getSettings();
      if (site && !blocklist.includes(site)) await patchSettings({ blocklist: [...blocklist, site] });
    }
  }
  return reply;
}
