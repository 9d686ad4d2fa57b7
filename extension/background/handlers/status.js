/**
 * Status actions: is the host connected, what does the queue hold, and what about the
 * page in front.
 *
 * Job: `status` (connect if needed; host state, queue counts — shown also while the host
 * is away —, settings, fresh stats), `reconnect`, and `page_status`: everything the popup
 * needs to say in words what happens to the page in front (the rules' verdict, a reason
 * remembered for the URL, the queue, the host's record of it, the dwell clock).
 * Never: extract or send page text, or let a host failure hide the queue's counts.
 */

import { hostMatches, pageKey, siteOfUrl } from "../../lib/rules.js";
import { refusal } from "../gate.js";
import { verdictFor } from "../pages.js";
import { getSettings, profileInfo } from "../storage.js";
import { frontTab } from "../tabs.js";

/** @typedef {import("../dispatch.js").Deps} Deps */

/** @param {Deps} deps @param {any} msg */
export async function status(deps, msg) {
  if (msg.connect !== false) {
    try {
      await deps.native.connect({ force: msg.force === true });
    } catch {
      // the state says what went wrong
    }
  }
  const [queue, settings, profile, backfill] = await Promise.all([
    deps.indexer.status(), getSettings(), profileInfo(), deps.backfill.status()]);
  // Fresh counts for "N pages remembered" (hello's are from connect time).
  const stats =
    deps.native.info.state === "connected"
      ? ((await deps.native.request("stats").catch(() => null))?.stats ?? null)
      : null;
  return { host: deps.native.info, queue, settings, stats, profile, backfill };
}

/** @param {Deps} deps */
export async function reconnect(deps) {
  try {
    await deps.native.connect({ force: true });
  } catch {
    // reported through the state
  }
  if (deps.native.info.state === "connected") deps.indexer.kick();
  return { host: deps.native.info };
}

/**
 * What happens to the page in front, as data (lib/status.js words it).
 * @param {Deps} deps
 */
export async function pageStatus(deps) {
  const tab = await frontTab();
  if (!tab?.url || tab.id === undefined) return { tab: null };
  const url = pageKey(tab.url);
  const site = siteOfUrl(url);
  const [settings, rule, verdict, queued, dwell] = await Promise.all([
    getSettings(),
    refusal(url, { incognito: tab.incognito }),
    verdictFor(url),
    deps.indexer.itemFor(url),
    deps.tracker.snapshot(),
  ]);
  const visit = dwell.visits[String(tab.id)];
  let page = null;
  if (site && deps.native.info.state === "connected") {
    page = (await deps.native.request("page_info", { url }).catch(() => null))?.page ?? null;
  }
  return {
    tab: { url, title: tab.title ?? "", site, incognito: Boolean(tab.incognito) },
    rule,
    verdict,
    queued,
    page,
    connected: deps.native.info.state === "connected",
    dwell:
      visit && visit.url === url
        ? { elapsed_ms: dwell.elapsed[String(tab.id)] ?? 0, reported: visit.reported }
        : null,
    threshold_s: settings.dwellSeconds,
    paused: settings.paused,
    site_paused: Boolean(site) && settings.pausedSites.some((d) => hostMatches(site, d)),
    always: Boolean(site) && settings.alwaysRecord.some((d) => hostMatches(site, d)),
  };
}
