/**
 * The side panel: search what you've read, and ask it.
 *
 * Job: wire the page together — the host's status and banners (loading, helper missing,
 * model missing, paused, not connected), the search (panel/search.js) and the thread of
 * answers above its results (panel/thread.js). Asking runs the search for the same words,
 * so the answer sits above the pages it came from; searching other words closes the
 * thread. Opening it asks the helper to load its models (`warm`), so the first question
 * does not wait for them.
 * Never: render page text or titles as HTML (everything goes through text nodes:
 * lib/dom.js), or talk to the host except through the worker.
 */

import { hostBanner } from "./lib/banner.js";
import { call, inExtension } from "./lib/client.js";
import { h } from "./lib/dom.js";
import { formatCount, modelsInUse } from "./lib/format.js";
import { looksLikeQuestion } from "./lib/query-form.js";
import { DEFAULTS, FIX_COMMAND } from "./lib/settings.js";
import { HINT, createSearch } from "./panel/search.js";
import { createThread } from "./panel/thread.js";

/** @template {HTMLElement} T @param {string} id @returns {T} */
const $ = (id) => /** @type {T} */ (document.getElementById(id));
const includeTab = /** @type {HTMLInputElement} */ ($("include-tab"));

const state = {
  /** @type {import("./lib/settings.js").LocalSettings} */
  settings: { ...DEFAULTS },
  /** @type {any} */
  host: null,
  /** @type {any} */
  stats: null,
  /** @type {string|null} */
  notice: null,
};

// ---- status and banners -------------------------------------------------------------------

/** @param {boolean} [force] */
async function refreshStatus(force = false) {
  try {
    const st = await call("status", { force });
    state.settings = st.settings;
    state.host = st.host;
    state.stats = st.stats ?? null;
  } catch (err) {
    const e = /** @type {any} */ (err);
    state.host = { state: e?.code === "no_extension" ? "no_extension" : "error", error: e };
  }
  renderStatus();
}

function renderStatus() {
  const host = state.host ?? { state: "connecting" };
  const banners = [];
  const hb = hostBanner(host, { onRetry: () => refreshStatus(true) });
  if (hb) banners.push(hb);
  if (state.settings.paused) {
    banners.push(
      h(
        "section",
        { class: "banner banner-paused", role: "status" },
        h("strong", { text: "Rewind is paused" }),
        h("p", { text: "Pages you read now are not remembered. Search still works." }),
        h("button", {
          type: "button",
          class: "small",
          text: "Resume",
          on: { click: () => call("resume").then(() => refreshStatus(), showError) },
        }),
      ),
    );
  }
  if (host.state === "connected") {
    const missing = modelsInUse(host.hello?.models, state.stats ?? host.hello?.stats).filter(
      (m) => !m.ready && m.role === "Embeddings",
    );
    for (const m of missing) {
      banners.push(
        h(
          "section",
          { class: "banner banner-warn", role: "status" },
          h("strong", { text: "A model is missing" }),
          h("p", {
            text: "Search by meaning is off: the embedding model isn't working. Keyword search still works.",
          }),
          h("div", { class: "command" }, h("code", { text: FIX_COMMAND })),
          m.problem ? h("p", { class: "detail", text: m.problem }) : null,
        ),
      );
    }
  }
  if (state.notice) {
    banners.push(h("section", { class: "banner banner-info", role: "status" }, h("p", { text: state.notice })));
  }
  $("banners").replaceChildren(...banners);

  const dot = /** @type {HTMLElement} */ ($("status").querySelector(".dot"));
  dot.className = `dot ${host.state === "connected" ? "connected" : host.state === "connecting" ? "" : "error"}`;
  const stats = state.stats ?? host.hello?.stats;
  const pages = stats?.pages;
  // The host loads the search model while it says hello: the first time, that is the wait.
  const load = Number(stats?.embedder_load_s);
  $("status-text").textContent =
    host.state === "connected"
      ? `Connected${Number.isFinite(pages) ? ` — ${formatCount(pages)} pages` : ""}` +
        (Number.isFinite(load) && load >= 1 ? ` · search model loaded in ${load.toFixed(1)} s` : "")
      : host.state === "connecting"
        ? "Connecting… (loading the search model)"
        : "Not connected";

  for (const r of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[name="mode"]'))) {
    r.checked = r.value === state.settings.searchMode;
  }
  includeTab.checked = state.settings.includeTab;
}

/**
 * Errors about the helper itself become the banner; others are the caller's to show.
 * @param {unknown} err @returns {boolean} handled
 */
function showError(err) {
  const e = /** @type {any} */ (err) ?? {};
  if (["host_missing", "host_forbidden", "incompatible", "no_extension"].includes(e.code)) {
    refreshStatus();
    return true;
  }
  return false;
}

// ---- search and answers ----------------------------------------------------------------------

function currentMode() {
  const checked = /** @type {HTMLInputElement|null} */ (document.querySelector('input[name="mode"]:checked'));
  return checked?.value ?? "hybrid";
}

const thread = createThread(
  {
    section: $("ask"),
    turns: $("turns"),
    status: $("ask-status"),
    announce: $("ask-announce"),
    followForm: $("follow-form"),
    followBox: $("follow-up"),
    followButton: $("follow-button"),
    stopButton: $("stop-button"),
    askButton: $("ask-button"),
    includeTab,
  },
  { onHostError: () => refreshStatus() },
);

const search = createSearch(
  {
    q: $("q"),
    status: $("search-status"),
    results: $("results"),
    less: $("less-relevant"),
    lessLabel: $("less-label"),
    folded: $("results-folded"),
    range: $("range"),
    domain: $("domain"),
  },
  {
    settings: () => state.settings,
    mode: currentMode,
    // The answer above belongs to the words searched: other words close it.
    onQuery: (query) => {
      if (thread.question() && query !== thread.question()) thread.clear();
    },
    onSearched: (query, found) => {
      if (found && state.settings.autoAnswer && looksLikeQuestion(query) && !thread.question()) askNow();
    },
    onNotice: (notice) => {
      state.notice = notice;
      renderStatus();
    },
    onError: showError,
    onAsk: () => askNow(),
  },
);

/** Ask what is in the box: the answer above, the search for the same words under it. */
function askNow() {
  const question = search.query();
  if (!question) {
    $("ask-status").textContent = "";
    $("search-status").textContent = "Type a question first.";
    return;
  }
  thread.start(question);
  search.searchFor(question);
}

$("search-form").addEventListener("submit", (ev) => ev.preventDefault()); // Enter is the box's
$("ask-button").addEventListener("click", askNow);
for (const r of document.querySelectorAll('input[name="mode"]')) {
  r.addEventListener("change", () => {
    if (inExtension()) call("set_local_settings", { settings: { searchMode: currentMode() } }).catch(() => {});
    state.settings.searchMode = /** @type {any} */ (currentMode());
    if (search.query()) search.run();
  });
}
includeTab.addEventListener("change", () => {
  if (inExtension()) call("set_local_settings", { settings: { includeTab: includeTab.checked } }).catch(() => {});
});

// ---- start -----------------------------------------------------------------------------------

/** @type {ReturnType<typeof setTimeout>|undefined} */
let statusTimer;
if (inExtension()) {
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === "session" && changes.host) {
      state.host = changes.host.newValue;
      renderStatus();
    }
    // New settings, or a page just indexed (the page count changes): refresh, calmly.
    if (area === "local" && (changes.settings || changes.queue)) {
      clearTimeout(statusTimer);
      statusTimer = setTimeout(() => refreshStatus(), 500);
    }
  });
}
$("search-status").textContent = HINT;
refreshStatus();
// The side panel is where people search and ask: the helper loads its models now rather
// than at the first question (it lets them go when unused). Only here: a waking worker
// never warms them.
if (inExtension()) call("warm").catch(() => {});
$("q").focus();
// Opened from the address bar ("rw" + words + Enter): search them at once.
const asked = new URLSearchParams(location.search).get("q");
if (asked) search.searchFor(asked.slice(0, 2000));
