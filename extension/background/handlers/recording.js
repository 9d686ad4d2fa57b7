/**
 * Actions on what the extension records: its settings, pausing, per-site choices, the queue.
 *
 * Job: one named handler per action, each `(deps, msg) => result`: read and change the
 * extension's own settings, pause or resume everything or a site, always record a site
 * (over the built-in patterns and page signals, never over incognito: the rules see to
 * that), retry failed pages. After each change the dwell tracker re-reads what is in front.
 * Never: keep a site both paused and always recorded (the last choice wins). The settings
 * live in chrome.storage; the host gets a copy of the rules (`set_rules`) to screen pages
 * that come another way.
 */

import { Code, RewindError } from "../../lib/errors.js";
import { hostMatches, hostRules } from "../../lib/rules.js";
import { clearVerdicts } from "../pages.js";
import { getSettings, patchSettings } from "../storage.js";

/** @typedef {import("../dispatch.js").Deps} Deps */

/** @param {any} msg */
function siteOf(msg) {
  const site = String(msg.site ?? "").trim().toLowerCase();
  if (!site) throw new RewindError(Code.BAD_REQUEST, "No site given.");
  return site;
}

/** @param {string[]} list @param {string} site */
function without(list, site) {
  return list.filter((d) => d !== site && !hostMatches(site, d));
}

/** @param {Deps} deps @param {Partial<import("../../lib/settings.js").LocalSettings>} patch */
async function change(deps, patch) {
  const settings = await patchSettings(patch);
  await deps.tracker.refresh();
  await sendRules(deps.native, settings);
  return { settings };
}

/**
 * Tell the host the rules as they are now (when it is connected; the next hello sends
 * them otherwise). A host that refuses them does not undo the person's change.
 * @param {import("../native.js").NativeClient} native
 * @param {import("../../lib/settings.js").LocalSettings} settings
 */
export async function sendRules(native, settings) {
  if (native.info.state !== "connected") return;
  await native.request("set_rules", hostRules(settings)).catch((err) => {
    console.warn("rewind: the host did not take the recording rules", err);
  });
}

export async function getLocalSettings() {
  return { settings: await getSettings() };
}

/** @param {Deps} deps @param {any} msg */
export function setLocalSettings(deps, msg) {
  return change(deps, msg.settings ?? {});
}

/** @param {Deps} deps */
export function pause(deps) {
  return change(deps, { paused: true });
}

/** @param {Deps} deps */
export async function resume(deps) {
  const r = await change(deps, { paused: false });
  deps.indexer.kick();
  return r;
}

/** @param {Deps} deps @param {any} msg */
export async function pauseSite(deps, msg) {
  const site = siteOf(msg);
  const s = await getSettings();
  return change(deps, { pausedSites: [...without(s.pausedSites, site), site], alwaysRecord: without(s.alwaysRecord, site) });
}

/** @param {Deps} deps @param {any} msg */
export async function resumeSite(deps, msg) {
  const site = siteOf(msg);
  return change(deps, { pausedSites: without((await getSettings()).pausedSites, site) });
}

/**
 * Record this site although it looks sensitive: what was judged about its pages is
 * forgotten, so the page in front is read again. @param {Deps} deps @param {any} msg
 */
export async function alwaysRecordSite(deps, msg) {
  const site = siteOf(msg);
  const s = await getSettings();
  await clearVerdicts((url) => {
    try {
      return hostMatches(new URL(url).hostname, site);
    } catch {
      return false;
    }
  });
  return change(deps, { alwaysRecord: [...without(s.alwaysRecord, site), site], pausedSites: without(s.pausedSites, site) });
}

/** @param {Deps} deps @param {any} msg */
export async function stopAlwaysRecording(deps, msg) {
  const site = siteOf(msg);
  return change(deps, { alwaysRecord: without((await getSettings()).alwaysRecord, site) });
}

/** @param {Deps} deps */
export async function retryFailed(deps) {
  await deps.indexer.retryFailed();
  return { queue: await deps.indexer.status() };
}
