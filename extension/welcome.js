/**
 * The welcome page, opened once when Rewind is installed.
 *
 * Job: say what Rewind records and never records (the categories as switches), whether
 * its helper answers — with the exact command to run when it does not, and a button to
 * check again —, how to open the search panel (the shortcut Chrome has now) and the
 * address bar keyword, and offer to import the recent history (lib/history-view.js),
 * then, with consent, to load those pages' text.
 * Never: start an import or a backfill without the person's click, or render a stored
 * title or address as HTML.
 */

import { hostBanner } from "./lib/banner.js";
import { categoryItems, toggled } from "./lib/categories.js";
import { call } from "./lib/client.js";
import { formatCount, modelsInUse } from "./lib/format.js";
import { mountHistory } from "./lib/history-view.js";
import { loadPolicy } from "./lib/load_policy.js";

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {unknown} err */
function errText(err) {
  const e = /** @type {any} */ (err) ?? {};
  return `${e.message ?? "Something went wrong."}${e.hint ? ` ${e.hint}` : ""}`;
}

/** @param {boolean} [force] */
async function load(force = false) {
  let st;
  try {
    st = await call("status", { force });
  } catch (err) {
    const e = /** @type {any} */ (err);
    st = { host: { state: e?.code === "no_extension" ? "no_extension" : "error", error: e } };
  }
  const host = st.host ?? { state: "connecting" };
  const connected = host.state === "connected";
  const stats = st.stats ?? host.hello?.stats ?? null;
  $("helper-status").textContent = connected
    ? `Connected: Rewind's helper is running (${formatCount(Number(stats?.pages ?? 0))} pages remembered${modelsLine(host, stats)}).`
    : host.state === "connecting" ? "Connecting…" : "Rewind's helper does not answer yet.";
  $("helper-status").dataset.state = String(host.state);
  const banner = connected ? null : hostBanner(host, { onRetry: () => load(true) });
  $("helper-fix").replaceChildren(...(banner ? [banner] : []));
  if (st.settings) {
    $("dwell").textContent = String(st.settings.dwellSeconds);
    renderCategories(st.settings.disabledCategories ?? []);
  }
  await renderHistory(connected);
}

/** "; models: all-minilm-l6-v2-int8 (search), smollm2 (answers)" @param {any} host @param {any} stats */
function modelsLine(host, stats) {
  const m = modelsInUse(host.hello?.models, stats);
  return m.length ? `; models: ${m.map((x) => `${x.name} (${x.role.toLowerCase()})`).join(", ")}` : "";
}

/** @param {string[]} disabled */
async function renderCategories(disabled) {
  const policy = await loadPolicy();
  if (!policy) {
    $("categories").replaceChildren(Object.assign(document.createElement("li"), {
      className: "bad", textContent: "The list could not be loaded: nothing is recorded until it is." }));
    return;
  }
  $("categories").replaceChildren(...categoryItems(policy, disabled, async (id, on) => {
    try {
      const next = toggled(disabled, id, on);
      await call("set_local_settings", { settings: { disabledCategories: next } });
      disabled = next;
      $("categories-msg").textContent = "Saved.";
    } catch (err) {
      $("categories-msg").textContent = errText(err);
    }
  }));
}

/** The shortcut Chrome has for the side panel, or how to set one. @param {any} st */
function showShortcut(st) {
  $("shortcut-line").textContent = st.shortcut
    ? `Press ${st.shortcut} to open the search panel, or use Rewind's toolbar button.`
    : "Open the search panel with Rewind's toolbar button. Chrome has no keyboard shortcut for " +
      `it yet: set one at chrome://extensions/shortcuts (Rewind suggests ${st.suggested || "Alt+Shift+R"}).`;
}

let mounted = false; // the history's controls keep themselves fresh once drawn

/** @param {boolean} connected */
async function renderHistory(connected) {
  if (connected && !mounted) {
    mounted = true;
    return mountHistory($("history"), $("history-msg"), showShortcut);
  }
  if (connected) return undefined;
  $("history").replaceChildren(Object.assign(document.createElement("p"), {
    className: "muted", textContent: "Rewind's helper must be running to import your history." }));
  showShortcut(await call("history_status").catch(() => ({})));
}

$("recheck").addEventListener("click", () => load(true));
load();
