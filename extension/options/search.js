/**
 * Options section "Search and answers": how many results to show, answering while typing,
 * scores; the helper's other everyday settings; and, collapsed under "Advanced", how
 * results are ranked and answers are made.
 *
 * Job: "Results to show" is the host's `default_limit` (one setting: the side panel asks
 * for no count of its own, so the helper's applies everywhere, the CLI too); the two
 * switches are the extension's own. The host's settings are drawn from get_settings'
 * schema with their plain-language labels (lib/settings-form.js): the everyday ones in
 * the section, the advanced ones (fusion, ranking, answer budgets) in a closed
 * <details>. One Save sends what changed to each side; "Back to defaults" resets the
 * advanced ones.
 * Never: offer a host setting the host did not describe, or show a developer's name for
 * one (the host's labels say it in words).
 */

import { h } from "../lib/dom.js";
import { hostSettingGroups, readField } from "../lib/settings-form.js";
import { FIX_COMMAND, FIX_FROM_SOURCE } from "../lib/settings.js";
import { groupRows, readChanges } from "./host-fields.js";

const RESULTS = "default_limit"; // the one "Results to show"

/** @param {HTMLElement} _root @param {import("./page.js").Page} page */
export function mount(_root, page) {
  const { $ } = page;
  /** @type {any} */ let reply = null; // get_settings' answer
  /** @type {import("../lib/settings-form.js").Field[]} */ let everyday = [];
  /** @type {import("../lib/settings-form.js").Field[]} */ let advanced = [];
  /** @type {import("../lib/settings-form.js").Field|null} */ let results = null;

  /** @param {any} r */
  function renderHost(r) {
    reply = r;
    const all = hostSettingGroups(r).flatMap((g) => g.fields);
    results = all.find((f) => f.name === RESULTS) ?? null;
    const main = hostSettingGroups(r, { advanced: false, skip: [RESULTS] });
    const extra = hostSettingGroups(r, { advanced: true });
    everyday = main.flatMap((g) => g.fields);
    advanced = extra.flatMap((g) => g.fields);
    if (!all.length) {
      $("host-settings").replaceChildren(h("p", { class: "muted",
        text: `This helper does not describe its settings: update it with ${FIX_COMMAND} (from the source folder: ${FIX_FROM_SOURCE}).` }));
      return;
    }
    const count = $("result-count");
    count.disabled = !results;
    if (results) {
      count.value = String(results.value);
      count.min = String(results.min ?? 1);
      count.max = String(results.max ?? 100);
    }
    $("result-count-note").textContent = results && results.dflt !== results.value ? `default ${results.dflt}` : "";
    $("host-settings").replaceChildren(
      ...(everyday.length ? [h("p", { class: "help", text: "Kept by Rewind's helper for this history:" }), ...groupRows(main)] : []),
    );
    $("advanced-settings").replaceChildren(...groupRows(extra));
    $("reset-host").disabled = !advanced.length;
  }

  async function loadHost() {
    try {
      renderHost(await page.call("get_settings"));
    } catch (err) {
      page.msg("search-msg", page.errText(err), true);
    }
  }

  page.onLocal((s) => {
    $("auto-answer").checked = s.autoAnswer;
    $("show-scores").checked = s.showScores;
  });
  page.onLoad(() => {
    if (page.connected) loadHost();
  });

  $("save-search").addEventListener("click", async () => {
    /** @type {Record<string, unknown>} */
    let changed = {};
    if (reply) {
      const got = readChanges([...everyday, ...advanced]);
      if ("error" in got) {
        page.msg("search-msg", got.error, true);
        return;
      }
      changed = got.changed;
      if (results) {
        const n = readField(results, $("result-count").value);
        if ("error" in n) {
          page.msg("search-msg", `Results to show: ${n.error.replace(/^[^:]*: /, "")}`, true);
          return;
        }
        if (n.value !== results.value) changed[RESULTS] = n.value;
      }
    }
    const local = { autoAnswer: $("auto-answer").checked, showScores: $("show-scores").checked };
    const hostToo = Object.keys(changed).length > 0;
    // "Saved." only once both sides have it: the host's part is the slower one.
    if (!(await page.saveLocal(local, "search-msg", { more: hostToo }))) return;
    if (!hostToo) return;
    try {
      renderHost(await page.call("set_settings", { settings: changed }));
      page.msg("search-msg", "Saved.");
    } catch (err) {
      page.msg("search-msg", page.errText(err), true);
    }
  });
  $("reset-host").addEventListener("click", async () => {
    /** @type {Record<string, null>} */
    const reset = {};
    for (const f of advanced) reset[f.name] = null; // null: back to the default
    try {
      renderHost(await page.call("set_settings", { settings: reset }));
      page.msg("search-msg", "The advanced settings are back to their defaults.");
    } catch (err) {
      page.msg("search-msg", page.errText(err), true);
    }
  });
}
