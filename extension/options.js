/**
 * The options page: what Rewind records, how it searches, where the history is, forgetting, export.
 *
 * Job: edit the extension's settings (dwell threshold, pause, masking of personal data,
 * the built-in kinds of pages never recorded, own exclusion rules, paused and always-
 * recorded sites, result count, auto-answer, scores), the host's user settings (drawn
 * from the schema get_settings returns: lib/settings-form.js), say which data folder is
 * in use and switch to another history found on this computer, forget a page / site /
 * the last hour / everything (each confirmed), and export the host's data as a JSON file.
 * Never: render stored titles or URLs as HTML; forget anything without a confirmation.
 */

import { hostBanner } from "./lib/banner.js";
import { call, connectPort, inExtension } from "./lib/client.js";
import { h } from "./lib/dom.js";
import { domainFilter, formatCount, relativeTime } from "./lib/format.js";
import { loadPolicy } from "./lib/load_policy.js";
import { DEFAULTS } from "./lib/settings.js";
import { hostSettingGroups, readField } from "./lib/settings-form.js";

/** @param {string} id */
const $ = (id) => /** @type {any} */ (document.getElementById(id));

const state = {
  settings: { ...DEFAULTS },
  /** @type {import("./lib/settings-form.js").Group[]} */ hostGroups: [],
};

/** @param {string} id @param {string} text @param {boolean} [bad] */
function msg(id, text, bad = false) {
  const el = $(id);
  el.textContent = text;
  el.classList.toggle("bad", bad);
}

/** @param {unknown} err */
function errText(err) {
  const e = /** @type {any} */ (err) ?? {};
  return `${e.message ?? "Something went wrong."}${e.hint ? ` ${e.hint}` : ""}`;
}

async function load() {
  let status;
  try {
    status = await call("status");
    state.settings = status.settings;
  } catch (err) {
    const e = /** @type {any} */ (err);
    status = { host: { state: e?.code === "no_extension" ? "no_extension" : "error", error: e } };
  }
  const banner = hostBanner(status.host, { onRetry: () => call("reconnect").then(load, load) });
  $("banners").replaceChildren(...(banner ? [banner] : []));
  renderLocal();
  renderCategories();
  if (status.host?.state === "connected") {
    try {
      renderHost(await call("get_settings"));
    } catch (err) {
      msg("host-msg", errText(err), true);
    }
    call("profiles").then(renderProfiles, (err) => msg("data-msg", errText(err), true));
  }
}

/** @param {string[]} list @param {string} listId @param {string} key @param {string} verb */
function siteList(list, listId, key, verb) {
  $(listId).replaceChildren(
    ...(list.length
      ? list.map((site) =>
          h("li", null,
            h("span", { text: site }),
            h("button", {
              type: "button", class: "small secondary", text: verb, "aria-label": `${verb}: ${site}`,
              on: { click: () => save({ [key]: list.filter((d) => d !== site) }, "sites-msg") },
            })),
        )
      : [h("li", { class: "muted", text: "None." })]),
  );
}

function renderLocal() {
  const s = state.settings;
  $("dwell").value = String(s.dwellSeconds);
  $("paused").checked = s.paused;
  $("redact").checked = s.redact;
  $("blocklist").value = s.blocklist.join("\n");
  $("result-count").value = String(s.resultCount);
  $("auto-answer").checked = s.autoAnswer;
  $("show-scores").checked = s.showScores;
  siteList(s.pausedSites, "paused-sites", "pausedSites", "Resume");
  siteList(s.alwaysRecord, "always-sites", "alwaysRecord", "Stop");
}

/** The built-in kinds of pages, each with a switch (lib/policy.js's categories). */
async function renderCategories() {
  const policy = await loadPolicy();
  if (!policy) {
    $("categories").replaceChildren(h("li", { class: "bad", text: "The list could not be loaded: nothing is recorded until it is." }));
    return;
  }
  const off = new Set(state.settings.disabledCategories);
  $("categories").replaceChildren(
    ...policy.categories.map((c) =>
      h("li", null,
        h("label", { class: "check" },
          h("input", {
            type: "checkbox", checked: !off.has(c.id), "data-category": c.id,
            on: {
              change: (/** @type {Event} */ ev) => {
                const on = /** @type {HTMLInputElement} */ (ev.target).checked;
                const next = new Set(state.settings.disabledCategories);
                if (on) next.delete(c.id);
                else next.add(c.id);
                save({ disabledCategories: [...next] }, "block-msg");
              },
            },
          }),
          h("span", { text: c.label }),
          h("span", { class: "why", text: ` — ${c.why}` }))),
    ),
  );
}

/** @param {import("./lib/settings-form.js").Field} f */
function hostField(f) {
  const id = `host-${f.name}`;
  let input;
  if (f.type === "choice") {
    input = h("select", { id }, ...(f.choices ?? []).map((c) => h("option", { value: c, text: c, selected: c === f.value })));
  } else if (f.type === "bool") {
    input = h("input", { id, type: "checkbox", checked: f.value === true });
  } else {
    input = h("input", { id, type: "number", min: f.min, max: f.max, step: f.step ?? "any", value: String(f.value) });
  }
  const changed = f.dflt !== undefined && f.dflt !== f.value;
  return h("div", { class: "row", title: f.name },
    h("label", { for: id, text: f.label }),
    input,
    changed ? h("span", { class: "muted small", text: `default ${f.dflt}` }) : null);
}

/** @param {any} reply get_settings' answer */
function renderHost(reply) {
  state.hostGroups = hostSettingGroups(reply);
  if (!state.hostGroups.length) {
    $("host-settings").replaceChildren(h("p", { class: "muted",
      text: "This helper does not describe its settings: update it with python3 build.py install." }));
    return;
  }
  const [first, ...rest] = state.hostGroups;
  $("host-settings").replaceChildren(
    ...(first ? [h("h3", { text: first.title }), ...first.fields.map(hostField)] : []),
    ...rest.map((g) => h("details", null, h("summary", { text: g.title }), ...g.fields.map(hostField))),
  );
  $("save-host").disabled = false;
  $("reset-host").disabled = false;
}

/** @param {any} r the worker's `profiles` answer */
function renderProfiles(r) {
  const here = r.data_dir ?? r.forced_data_dir;
  $("data-dir").replaceChildren(
    document.createTextNode("Data folder in use: "),
    h("code", { text: String(here ?? "unknown") }),
    r.current ? document.createTextNode(` (profile ${r.current})`) : null,
  );
  const o = r.origin;
  $("profile-origin").textContent =
    o?.how === "adopted"
      ? `This browser found the history Rewind already had (${formatCount(Number(o.pages ?? 0))} pages) and goes on with it.`
      : "";
  const others = (r.profiles ?? []).filter((/** @type {any} */ p) => p.profile !== r.current);
  $("profiles").replaceChildren(
    ...others.map((/** @type {any} */ p) =>
      h("li", null,
        h("span", {
          text: `${p.profile}: ${p.pages === null ? `cannot be read (${p.problem})` : `${formatCount(p.pages)} pages`}` +
            (p.last_indexed ? `, last added ${relativeTime(p.last_indexed)}` : ""),
          title: p.data_dir,
        }),
        h("button", {
          type: "button", class: "small secondary", text: "Use this history", disabled: p.pages === null,
          on: {
            click: async () => {
              if (!window.confirm(`Switch to the history ${p.profile}? The current one stays on disk.`)) return;
              try {
                renderProfiles(await call("use_profile", { profile: p.profile }));
                msg("data-msg", `Now using ${p.profile}.`);
              } catch (err) {
                msg("data-msg", errText(err), true);
              }
            },
          },
        })),
    ),
  );
}

/** @param {Partial<import("./lib/settings.js").LocalSettings>} patch @param {string} msgId */
async function save(patch, msgId) {
  try {
    const r = await call("set_local_settings", { settings: patch });
    state.settings = r.settings;
    renderLocal();
    renderCategories();
    msg(msgId, "Saved.");
  } catch (err) {
    msg(msgId, errText(err), true);
  }
}

$("save-recording").addEventListener("click", () => {
  const dwell = Number($("dwell").value);
  if (!Number.isFinite(dwell) || dwell < 1 || dwell > 600) {
    msg("rec-msg", "Choose between 1 and 600 seconds.", true);
    return;
  }
  save({ dwellSeconds: dwell, paused: $("paused").checked, redact: $("redact").checked }, "rec-msg");
});
$("save-blocklist").addEventListener("click", () => {
  const lines = String($("blocklist").value)
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  save({ blocklist: lines }, "block-msg");
});
$("add-site").addEventListener("click", () => {
  const site = domainFilter($("new-site").value);
  if (!site) {
    msg("sites-msg", "Type a site like example.com.", true);
    return;
  }
  $("new-site").value = "";
  call("pause_site", { site }).then(
    (r) => {
      state.settings = r.settings;
      renderLocal();
      msg("sites-msg", `Paused on ${site}.`);
    },
    (err) => msg("sites-msg", errText(err), true),
  );
});
$("save-search").addEventListener("click", () => {
  const n = Number($("result-count").value);
  if (!Number.isInteger(n) || n < 1 || n > 50) {
    msg("search-msg", "Choose between 1 and 50 results.", true);
    return;
  }
  save({ resultCount: n, autoAnswer: $("auto-answer").checked, showScores: $("show-scores").checked }, "search-msg");
});

/** @param {Record<string, any>} settings */
async function saveHost(settings) {
  try {
    renderHost(await call("set_settings", { settings }));
    msg("host-msg", "Saved.");
  } catch (err) {
    msg("host-msg", errText(err), true);
  }
}
$("save-host").addEventListener("click", () => {
  /** @type {Record<string, any>} */
  const changed = {};
  for (const f of state.hostGroups.flatMap((g) => g.fields)) {
    const el = /** @type {HTMLInputElement|null} */ (document.getElementById(`host-${f.name}`));
    if (!el) continue;
    const got = readField(f, f.type === "bool" ? el.checked : el.value);
    if ("error" in got) {
      msg("host-msg", got.error, true);
      return;
    }
    if (got.value !== f.value) changed[f.name] = got.value;
  }
  if (Object.keys(changed).length) saveHost(changed);
  else msg("host-msg", "Nothing changed.");
});
$("reset-host").addEventListener("click", () => {
  /** @type {Record<string, null>} */
  const reset = {};
  for (const f of state.hostGroups.flatMap((g) => g.fields)) reset[f.name] = null; // null: back to the default
  saveHost(reset);
});

// ---- forget ----------------------------------------------------------------------------------

/** @param {Record<string, unknown>} fields @param {string} what */
async function forget(fields, what) {
  if (!window.confirm(`Forget ${what}? This cannot be undone.`)) return;
  try {
    const r = fields.all ? await call("clear") : await call("forget", fields);
    const n = Number(r?.removed);
    msg("forget-msg", Number.isFinite(n) ? `Forgot ${what}: ${formatCount(n)} pages removed.` : `Forgot ${what}.`);
  } catch (err) {
    msg("forget-msg", errText(err), true);
  }
}
$("forget-page").addEventListener("click", () => {
  const url = String($("forget-url").value).trim();
  if (!/^https?:\/\//i.test(url)) {
    msg("forget-msg", "Paste the page's full address (https://…).", true);
    return;
  }
  forget({ url }, "this page");
});
$("forget-site-button").addEventListener("click", () => {
  const domain = domainFilter($("forget-site").value);
  if (!domain) {
    msg("forget-msg", "Type a site like example.com.", true);
    return;
  }
  forget({ domain }, `everything from ${domain}`);
});
$("forget-hour").addEventListener("click", () => {
  const now = Date.now() / 1000;
  forget({ since: now - 3600, until: now + 60 }, "the last hour");
});
$("forget-all").addEventListener("click", () => forget({ all: true }, "everything Rewind remembers"));

// ---- export ----------------------------------------------------------------------------------

$("export").addEventListener("click", () => {
  const port = connectPort("export");
  if (!port) {
    msg("export-msg", "Open this page from the Rewind extension.", true);
    return;
  }
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
  $("export").disabled = true;
  msg("export-msg", "Exporting…");
  port.onMessage.addListener((m) => {
    if (m.type === "frame") add(m.frame?.pages);
    else if (m.type === "done") {
      add(m.frame?.pages);
      const { id: _id, ok: _ok, done: _done, pages: _pages, ...meta } = m.frame ?? {};
      const doc = { ...meta, exported_at: new Date().toISOString(), pages };
      const blob = new Blob([JSON.stringify(doc)], { type: "application/json" });
      const a = h("a", { href: URL.createObjectURL(blob), download: `rewind-export-${new Date().toISOString().slice(0, 10)}.json` });
      document.body.append(a);
      /** @type {HTMLAnchorElement} */ (a).click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(/** @type {HTMLAnchorElement} */ (a).href), 60_000);
      msg("export-msg", `Exported ${formatCount(pages.length)} pages.`);
      $("export").disabled = false;
      port.disconnect();
    } else if (m.type === "error") {
      msg("export-msg", errText(m.error), true);
      $("export").disabled = false;
      port.disconnect();
    }
  });
  port.postMessage({ type: "start" });
});

// ---- start ---------------------------------------------------------------------------------

const params = new URLSearchParams(location.search);
if (params.get("site")) $("forget-site").value = params.get("site");
if (inExtension()) {
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && changes.settings) {
      call("get_local_settings").then((r) => {
        state.settings = r.settings;
        renderLocal();
        renderCategories();
      }, () => {});
    }
  });
}
load();
