/**
 * The options page: what Rewind records, how it searches, forgetting, export.
 *
 * Job: edit the extension's settings (dwell threshold, pause, own exclusion
 * rules, paused sites, result count, auto-answer, scores), the host's ranking
 * settings (whatever get_settings returns, through set_settings), forget a
 * page / site / the last hour / everything (each confirmed), and export the
 * host's data as a JSON file.
 * Never: render stored titles or URLs as HTML; forget anything without a
 * confirmation.
 */

import { hostBanner } from "./lib/banner.js";
import { call, connectPort, inExtension } from "./lib/client.js";
import { h } from "./lib/dom.js";
import { domainFilter, formatCount } from "./lib/format.js";
import { loadPolicy } from "./lib/load_policy.js";
import { DEFAULTS } from "./lib/settings.js";

/** @param {string} id */
const $ = (id) => /** @type {any} */ (document.getElementById(id));

/**
 * Host settings people may change, with labels; others the host reports go
 * under "More" with their own names.
 * @type {Record<string, {label: string, min?: number, max?: number, step?: number, choices?: string[], main?: boolean}>}
 */
const HOST_FIELDS = {
  fusion: { label: "How meaning and words are combined", choices: ["adaptive", "rrf"], main: true },
  rrf_alpha: { label: "Weight of meaning over exact words (alpha)", min: 0, max: 1, step: 0.05, main: true },
  mmr_lambda: { label: "Relevance over variety (MMR lambda)", min: 0, max: 1, step: 0.05, main: true },
  max_pages_per_domain: { label: "Pages per site before others come first", min: 1, max: 100, step: 1, main: true },
  rrf_k: { label: "RRF k", min: 1, max: 1000, step: 1 },
  multi_passage_bonus: { label: "Bonus for several matching passages", min: 0, max: 1, step: 0.01 },
  default_limit: { label: "Results when none is asked for", min: 1, max: 100, step: 1 },
  answer_token_budget: {
    label: "Text of your pages given to the answering model (tokens; more: better answers, slower start)",
    min: 50,
    max: 32768,
    step: 50,
  },
  answer_max_tokens: { label: "Longest answer (tokens)", min: 16, max: 2048, step: 8 },
  answer_facets: { label: "Split a complex question into parts first (best with a larger model)" },
  facet_count: { label: "Parts at most, the question included", min: 1, max: 8, step: 1 },
};

const state = {
  settings: { ...DEFAULTS },
  /** @type {Record<string, any>} */ host: {},
  /** @type {Record<string, any>} */ hostDefaults: {},
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
  if (status.host?.state === "connected") {
    try {
      const r = await call("get_settings");
      state.host = r.settings ?? {};
      state.hostDefaults = r.defaults ?? {};
      renderHost();
    } catch (err) {
      msg("host-msg", errText(err), true);
    }
  }
}

function renderLocal() {
  const s = state.settings;
  $("dwell").value = String(s.dwellSeconds);
  $("paused").checked = s.paused;
  $("blocklist").value = s.blocklist.join("\n");
  $("result-count").value = String(s.resultCount);
  $("auto-answer").checked = s.autoAnswer;
  $("show-scores").checked = s.showScores;
  loadPolicy().then((policy) => {
    $("builtin").textContent = policy
      ? policy.categories.map((c) => c.label.toLowerCase()).join("; ")
      : "(the list could not be loaded: nothing is recorded until it is)";
  });
  $("paused-sites").replaceChildren(
    ...(s.pausedSites.length
      ? s.pausedSites.map((site) =>
          h(
            "li",
            null,
            h("span", { text: site }),
            h("button", {
              type: "button",
              class: "small secondary",
              text: "Resume",
              "aria-label": `Resume recording on ${site}`,
              on: { click: () => save({ pausedSites: s.pausedSites.filter((d) => d !== site) }, "sites-msg") },
            }),
          ),
        )
      : [h("li", { class: "muted", text: "No paused sites." })]),
  );
}

/** @param {string} key @param {any} value */
function hostField(key, value) {
  const meta = HOST_FIELDS[key] ?? { label: key };
  const id = `host-${key}`;
  let input;
  if (meta.choices) {
    input = h("select", { id }, ...meta.choices.map((c) => h("option", { value: c, text: c, selected: c === value })));
  } else if (typeof value === "boolean") {
    input = h("input", { id, type: "checkbox", checked: value });
  } else if (typeof value === "number") {
    input = h("input", {
      id,
      type: "number",
      min: meta.min,
      max: meta.max,
      step: meta.step ?? "any",
      value: String(value),
    });
  } else {
    return null; // a kind of setting this page does not know how to edit
  }
  const dflt = state.hostDefaults[key];
  return h(
    "div",
    { class: "row" },
    h("label", { for: id, text: meta.label }),
    input,
    dflt !== undefined && dflt !== value ? h("span", { class: "muted small", text: `default ${dflt}` }) : null,
  );
}

function renderHost() {
  const keys = Object.keys(state.host);
  const main = keys.filter((k) => HOST_FIELDS[k]?.main).map((k) => hostField(k, state.host[k]));
  const more = keys.filter((k) => !HOST_FIELDS[k]?.main).map((k) => hostField(k, state.host[k]));
  $("host-settings").replaceChildren(
    ...main.filter(Boolean),
    more.some(Boolean) ? h("details", null, h("summary", { text: "More" }), ...more.filter(Boolean)) : null,
  );
  $("save-host").disabled = false;
  $("reset-host").disabled = false;
}

/** @param {Partial<import("./lib/settings.js").LocalSettings>} patch @param {string} msgId */
async function save(patch, msgId) {
  try {
    const r = await call("set_local_settings", { settings: patch });
    state.settings = r.settings;
    renderLocal();
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
  save({ dwellSeconds: dwell, paused: $("paused").checked }, "rec-msg");
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
  save({ pausedSites: [...state.settings.pausedSites, site] }, "sites-msg");
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
    const r = await call("set_settings", { settings });
    state.host = r.settings ?? state.host;
    state.hostDefaults = r.defaults ?? state.hostDefaults;
    renderHost();
    msg("host-msg", "Saved.");
  } catch (err) {
    msg("host-msg", errText(err), true);
  }
}
$("save-host").addEventListener("click", () => {
  /** @type {Record<string, any>} */
  const changed = {};
  for (const [key, old] of Object.entries(state.host)) {
    const el = /** @type {HTMLInputElement|HTMLSelectElement|null} */ (document.getElementById(`host-${key}`));
    if (!el) continue;
    const value =
      typeof old === "boolean"
        ? /** @type {HTMLInputElement} */ (el).checked
        : typeof old === "number"
          ? Number(el.value)
          : el.value;
    if (typeof value === "number" && !Number.isFinite(value)) {
      msg("host-msg", `${HOST_FIELDS[key]?.label ?? key}: not a number.`, true);
      return;
    }
    if (value !== old) changed[key] = value;
  }
  if (Object.keys(changed).length) saveHost(changed);
  else msg("host-msg", "Nothing changed.");
});
$("reset-host").addEventListener("click", () => {
  /** @type {Record<string, null>} */
  const reset = {};
  for (const key of Object.keys(state.host)) reset[key] = null; // null: back to the default
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
      }, () => {});
    }
  });
}
load();
