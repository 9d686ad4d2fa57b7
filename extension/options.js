/**
 * The options page: what Rewind records, how it searches, where the history is, forgetting,
 * backup and restore.
 *
 * Job: edit the extension's settings (dwell threshold, pause, masking of personal data,
 * the built-in kinds of pages never recorded, own exclusion rules, paused and always-
 * recorded sites, result count, auto-answer, scores), the host's user settings (drawn
 * from the schema get_settings returns: lib/settings-form.js), say which data folder is
 * in use and switch to another history found on this computer, forget a page / site /
 * the last hour / everything (each confirmed), show what each part of the store takes, and
 * back up (a file that really downloads, optionally encrypted with a passphrase), export
 * portable JSON, and import a file the person picks (sent in pieces under the host's limit).
 * Never: render stored titles or URLs as HTML; forget anything without a confirmation.
 */

import { hostBanner } from "./lib/banner.js";
import { categoryItems, toggled } from "./lib/categories.js";
import { call, connectPort, inExtension } from "./lib/client.js";
import { h } from "./lib/dom.js";
import { backupName, fromBase64, pieces, saveBlob, toBase64 } from "./lib/files.js";
import { domainFilter, formatBytes, formatCount, relativeTime } from "./lib/format.js";
import { retentionLine, storageLine } from "./lib/kept.js";
import { modelChooser, reembedView } from "./lib/reembed.js";
import { mountHistory } from "./options/history.js";
import { loadPolicy } from "./lib/load_policy.js";
import { DEFAULTS, FIX_COMMAND, FIX_FROM_SOURCE } from "./lib/settings.js";
import { hostSettingGroups, readField } from "./lib/settings-form.js";
import { mount as mountLanguages } from "./options/languages.js";
import { mount as mountMcp } from "./options/mcp.js";

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
    loadModels();
    mountHistory($("history"), $("history-msg"));
    renderStorage(status.stats);
  }
}

/** @type {ReturnType<typeof setTimeout>|undefined} */
let jobTimer;

/** The search model and its job (lib/reembed.js); while there is a job, fresh every second. */
async function loadModels(action = "status", fields = {}) {
  let reply;
  try {
    reply = await call("reindex", { job: action, ...fields });
  } catch (err) {
    msg("model-msg", errText(err), true);
    return;
  }
  $("model-choose").replaceChildren(modelChooser(reply, (model, dim) => {
    msg("model-msg", "");
    loadModels("start", { model, dim });
  }));
  const job = reply.reembed;
  const view = reembedView(job, (a) => loadModels(a));
  $("reembed").replaceChildren(...(view ? [view] : []));
  clearTimeout(jobTimer);
  if (job) jobTimer = setTimeout(loadModels, 1000); // paused too: the popup may resume it
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
  $("categories").replaceChildren(...categoryItems(policy, state.settings.disabledCategories, (id, on) =>
    save({ disabledCategories: toggled(state.settings.disabledCategories, id, on) }, "block-msg")));
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
      text: `This helper does not describe its settings: update it with ${FIX_COMMAND} (from the source folder: ${FIX_FROM_SOURCE}).` }));
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

// ---- backup, export, import -------------------------------------------------------------

/**
 * Run a streamed port ("backup", "export", "import") to its end.
 * @param {string} name @param {Record<string, unknown>} start @param {(frame: any) => void} onFrame
 * @returns {Promise<any>} the last frame
 */
function streamed(name, start, onFrame) {
  return new Promise((resolve, reject) => {
    const port = connectPort(name);
    if (!port) {
      reject({ message: "Open this page from the Rewind extension." });
      return;
    }
    port.onMessage.addListener((m) => {
      if (m.type === "frame") onFrame(m.frame);
      else if (m.type === "done") {
        port.disconnect();
        resolve(m.frame);
      } else if (m.type === "error") {
        port.disconnect();
        reject(m.error);
      }
    });
    port.postMessage({ type: "start", ...start });
  });
}

/** @param {boolean} busy */
function dataBusy(busy) {
  for (const id of ["backup", "export", "import"]) $(id).disabled = busy;
}

$("backup").addEventListener("click", async () => {
  const passphrase = String($("backup-passphrase").value);
  /** @type {Uint8Array[]} */
  const parts = [];
  let bytes = 0;
  const add = (/** @type {any} */ frame) => {
    if (typeof frame?.data !== "string") return;
    const b = fromBase64(frame.data);
    parts.push(b);
    bytes += b.length;
    msg("export-msg", `Backing up… ${formatBytes(bytes)}`);
  };
  dataBusy(true);
  msg("export-msg", "Backing up…");
  try {
    const last = await streamed("backup", passphrase ? { passphrase } : {}, add);
    add(last);
    saveBlob(new Blob(/** @type {BlobPart[]} */ (parts), { type: "application/octet-stream" }), backupName("rwb"));
    msg("export-msg", `Saved a backup of ${formatCount(Number(last.pages ?? 0))} pages (${formatBytes(bytes)})` +
      (last.encrypted ? ", encrypted with your passphrase." : "."));
  } catch (err) {
    msg("export-msg", errText(err), true);
  } finally {
    dataBusy(false);
  }
});

$("export").addEventListener("click", async () => {
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
  dataBusy(true);
  msg("export-msg", "Exporting…");
  try {
    const last = await streamed("export", {}, (f) => add(f?.pages));
    add(last?.pages);
    const { id: _id, ok: _ok, done: _done, pages: _pages, ...meta } = last ?? {};
    const doc = { ...meta, exported_at: new Date().toISOString(), pages_total: pages.length, pages };
    saveBlob(new Blob([JSON.stringify(doc)], { type: "application/json" }), backupName("json"));
    msg("export-msg", `Exported ${formatCount(pages.length)} pages.`);
  } catch (err) {
    msg("export-msg", errText(err), true);
  } finally {
    dataBusy(false);
  }
});

const PIECE_BYTES = 3 * 1024 * 1024; // base64: 4 MiB, the host's import_chunk limit

$("import").addEventListener("click", async () => {
  const file = /** @type {HTMLInputElement} */ ($("import-file")).files?.[0];
  if (!file) {
    msg("import-msg", "Choose a backup file first.", true);
    return;
  }
  const passphrase = String($("backup-passphrase").value);
  const upload = `u${Date.now()}`;
  dataBusy(true);
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    for (const piece of pieces(bytes, PIECE_BYTES)) {
      msg("import-msg", `Sending ${file.name}… ${formatBytes(piece.offset)} of ${formatBytes(bytes.length)}`);
      await call("import_chunk", { upload, offset: piece.offset, data: toBase64(piece.bytes) });
    }
    msg("import-msg", "Checking the file…");
    const last = await streamed("import", { upload, ...(passphrase ? { passphrase } : {}) }, (f) => {
      const p = f?.progress;
      if (p) msg("import-msg", `Importing… ${formatCount(p.done)} of ${formatCount(p.total)} pages`);
    });
    const r = last?.result ?? {};
    msg("import-msg", `Imported ${formatCount(Number(r.pages ?? 0))} pages: ${formatCount(Number(r.new ?? 0))} new, ` +
      `${formatCount(Number(r.merged ?? 0))} merged, ${formatCount(Number(r.unchanged ?? 0))} already here, ` +
      `${formatCount(Number(r.skipped ?? 0))} not recorded by your rules.`);
  } catch (err) {
    msg("import-msg", errText(err), true);
  } finally {
    dataBusy(false);
  }
});

/** Sizes of each part, the retention settings, encryption (stats). @param {any} stats */
function renderStorage(stats) {
  if (!stats?.storage) return;
  $("storage").textContent = `${storageLine(stats)} ${retentionLine(stats)} (Retention, under “Kept by Rewind's helper”).`;
}

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
mountMcp($("mcp")); // the AI tools' section (options/mcp.js)
mountLanguages($("language-offer"), () => loadModels()); // the multilingual model's offer
