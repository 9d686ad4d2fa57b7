/**
 * The side panel: search what you've read, and ask it.
 *
 * Job: a debounced search box with mode and filters, results people can move
 * through with the keyboard, open at the passage (text fragment) or forget, and an
 * Ask box whose answer streams in with [Source N] badges and a Stop button;
 * plus the states around them (loading, empty, helper missing, model missing,
 * paused, not connected).
 * Never: render page text or titles as HTML (everything goes through text
 * nodes: lib/dom.js), or talk to the host except through the worker.
 */

import { hostBanner } from "./lib/banner.js";
import { call, connectPort, inExtension } from "./lib/client.js";
import { h, highlighted } from "./lib/dom.js";
import {
  citationTokens,
  displayUrl,
  domainFilter,
  formatCount,
  looksLikeQuestion,
  modelsInUse,
  sinceFor,
  textFragmentUrl,
  visitLine,
} from "./lib/format.js";
import { forgetButton } from "./lib/forget.js";
import { DEFAULTS, FIX_COMMAND } from "./lib/settings.js";

const DEBOUNCE_MS = 300;
const HINT = "Type words you remember from a page, or ask a question below.";

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const q = /** @type {HTMLInputElement} */ ($("q"));
const resultsEl = $("results");
const question = /** @type {HTMLTextAreaElement} */ ($("question"));
const includeTab = /** @type {HTMLInputElement} */ ($("include-tab"));
const askButton = /** @type {HTMLButtonElement} */ ($("ask-button"));
const stopButton = /** @type {HTMLButtonElement} */ ($("stop-button"));

const state = {
  /** @type {import("./lib/settings.js").LocalSettings} */
  settings: { ...DEFAULTS },
  /** @type {any} */
  host: null,
  /** @type {any} */
  stats: null,
  /** @type {any[]} */
  results: [],
  selected: -1,
  seq: 0,
  /** @type {any} */
  timer: null,
  /** @type {string|null} */
  notice: null,
  /** @type {chrome.runtime.Port|null} */
  askPort: null,
  answer: "",
  /** @type {any[]} */
  sources: [],
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
          on: { click: () => call("resume").then(refreshStatus, showError) },
        }),
      ),
    );
  }
  if (host.state === "connected") {
    const missing = modelsInUse(host.hello?.models, state.stats ?? host.hello?.stats).filter(
      (m) => !m.ready && m.role === "Embeddings",
    );
    for (const m of missing) {
      const what = "Search by meaning is off: the embedding model isn't working. Keyword search still works.";
      banners.push(
        h(
          "section",
          { class: "banner banner-warn", role: "status" },
          h("strong", { text: "A model is missing" }),
          h("p", { text: what }),
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
  const pages = (state.stats ?? host.hello?.stats)?.pages;
  $("status-text").textContent =
    host.state === "connected"
      ? `Connected${Number.isFinite(pages) ? ` — ${formatCount(pages)} pages` : ""}`
      : host.state === "connecting"
        ? "Connecting…"
        : host.state === "no_extension"
          ? "Not connected"
          : "Not connected";

  for (const r of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[name="mode"]'))) {
    r.checked = r.value === state.settings.searchMode;
  }
  includeTab.checked = state.settings.includeTab;
}

/** @param {unknown} err */
function showError(err) {
  const e = /** @type {any} */ (err) ?? {};
  if (["host_missing", "host_forbidden", "incompatible", "no_extension"].includes(e.code)) {
    refreshStatus();
    return;
  }
  $("search-status").textContent = `${e.message ?? "Something went wrong."}${e.hint ? ` ${e.hint}` : ""}`;
}

// ---- search --------------------------------------------------------------------------------

function currentMode() {
  const checked = /** @type {HTMLInputElement|null} */ (document.querySelector('input[name="mode"]:checked'));
  return checked?.value ?? "hybrid";
}

function scheduleSearch() {
  clearTimeout(state.timer);
  state.timer = setTimeout(runSearch, DEBOUNCE_MS);
}

async function runSearch() {
  clearTimeout(state.timer);
  state.timer = null;
  const query = q.value.trim();
  const seq = ++state.seq;
  if (!query) {
    state.results = [];
    state.notice = null;
    renderResults();
    $("search-status").textContent = HINT;
    renderStatus();
    return;
  }
  /** @type {Record<string, unknown>} */
  const fields = { query, mode: currentMode(), limit: state.settings.resultCount };
  const since = sinceFor(/** @type {HTMLSelectElement} */ ($("range")).value);
  if (since !== null) fields.since = since;
  const domainInput = /** @type {HTMLInputElement} */ ($("domain")).value;
  const domain = domainFilter(domainInput);
  if (domainInput.trim() && !domain) {
    $("search-status").textContent = "Type a site like example.com.";
    return;
  }
  if (domain) fields.domain = domain;
  $("search-status").textContent = "Searching…";
  resultsEl.setAttribute("aria-busy", "true");
  try {
    const r = await call("search", fields);
    if (seq !== state.seq) return; // a newer search is under way
    state.results = Array.isArray(r.results) ? r.results : [];
    state.notice = typeof r.notice === "string" && r.notice ? r.notice : null;
    state.selected = state.results.length ? 0 : -1;
    renderResults();
    renderStatus();
    const n = state.results.length;
    $("search-status").textContent = n
      ? `${n} result${n === 1 ? "" : "s"}${Number.isFinite(r.took_ms) ? ` in ${Math.round(r.took_ms)} ms` : ""}`
      : `Nothing you've read matches “${query}”. Try other words${currentMode() === "keyword" ? "" : ", or Keyword mode for exact words"}.`;
    if (n && state.settings.autoAnswer && looksLikeQuestion(query) && !state.askPort) {
      question.value = query;
      startAsk(query);
    }
  } catch (err) {
    if (seq !== state.seq) return;
    state.results = [];
    renderResults();
    showError(err);
  } finally {
    if (seq === state.seq) resultsEl.removeAttribute("aria-busy");
  }
}

/** @param {any} hit */
function resultItem(hit, i) {
  const url = textFragmentUrl(String(hit.url ?? ""), String(hit.passage || hit.snippet || ""));
  const conf = ["high", "medium", "low"].includes(hit.confidence) ? hit.confidence : null;
  const title = String(hit.title || "").trim() || displayUrl(String(hit.url ?? ""));
  const li = h(
    "li",
    {
      id: `result-${i}`,
      role: "option",
      class: "result",
      "aria-selected": i === state.selected ? "true" : "false",
      on: {
        click: (/** @type {MouseEvent} */ ev) => {
          ev.preventDefault();
          select(i);
          openUrl(url);
        },
      },
    },
    h(
      "div",
      { class: "result-head" },
      h("a", { class: "title", href: url, tabindex: "-1", text: title }),
      conf ? h("span", { class: `badge ${conf}`, title: `${conf} confidence`, text: conf }) : null,
      state.settings.showScores && Number.isFinite(hit.score)
        ? h("span", { class: "score muted", text: Number(hit.score).toFixed(3) })
        : null,
    ),
    h("div", { class: "url muted", text: displayUrl(String(hit.url ?? "")) }),
    hit.snippet ? h("p", { class: "snippet" }, highlighted(String(hit.snippet), hit.highlights)) : null,
    h("div", { class: "meta-row" },
      h("span", { class: "meta muted", text: visitLine(hit) }),
      forgetButton(String(hit.url ?? ""), (outcome) => forgotten(String(hit.url ?? ""), outcome))),
  );
  return li;
}

/** After "Forget" on a result (lib/forget.js): it leaves the list at once. */
function forgotten(/** @type {string} */ url, /** @type {any} */ outcome) {
  if (!outcome.ok) {
    showError(outcome.error);
    return;
  }
  state.results = state.results.filter((r) => r.url !== url);
  state.selected = Math.min(state.selected, state.results.length - 1);
  renderResults();
  $("search-status").textContent = `Forgotten: ${displayUrl(url)}. Search will not show it again.`;
}

function renderResults() {
  resultsEl.replaceChildren(...state.results.map(resultItem));
  updateActive();
}

/** @param {number} i */
function select(i) {
  state.selected = i;
  for (const [j, li] of Array.from(resultsEl.children).entries()) {
    li.setAttribute("aria-selected", j === i ? "true" : "false");
  }
  updateActive();
}

function updateActive() {
  if (state.selected >= 0 && state.selected < state.results.length) {
    q.setAttribute("aria-activedescendant", `result-${state.selected}`);
    resultsEl.children[state.selected]?.scrollIntoView({ block: "nearest" });
  } else {
    q.removeAttribute("aria-activedescendant");
  }
}

/** Open a page in a new tab (the side panel stays). @param {string} url */
function openUrl(url) {
  if (inExtension()) chrome.tabs.create({ url, active: true });
  else window.open(url, "_blank", "noopener");
}

q.addEventListener("input", scheduleSearch);
q.addEventListener("keydown", (ev) => {
  const n = state.results.length;
  if (ev.key === "ArrowDown" && n) {
    ev.preventDefault();
    select(Math.min(n - 1, state.selected + 1));
  } else if (ev.key === "ArrowUp" && n) {
    ev.preventDefault();
    select(Math.max(0, state.selected - 1));
  } else if (ev.key === "Enter") {
    ev.preventDefault();
    if (state.timer) {
      runSearch(); // typed and pressed Enter before the debounce: search now
    } else if (n) {
      const hit = state.results[Math.max(0, state.selected)];
      openUrl(textFragmentUrl(String(hit.url), String(hit.passage || hit.snippet || "")));
    }
  } else if (ev.key === "Escape") {
    ev.preventDefault();
    q.value = "";
    runSearch();
  }
});
$("search-form").addEventListener("submit", (ev) => ev.preventDefault());
$("range").addEventListener("change", () => q.value.trim() && runSearch());
$("domain").addEventListener("input", () => q.value.trim() && scheduleSearch());
for (const r of document.querySelectorAll('input[name="mode"]')) {
  r.addEventListener("change", () => {
    if (inExtension()) call("set_local_settings", { settings: { searchMode: currentMode() } }).catch(() => {});
    state.settings.searchMode = /** @type {any} */ (currentMode());
    if (q.value.trim()) runSearch();
  });
}

// ---- ask -----------------------------------------------------------------------------------

/** @param {string} text */
function askStatus(text) {
  $("ask-status").textContent = text;
}

/** Source number n (1-based) -> source. @param {number} n */
function sourceFor(n) {
  const byN = state.sources.find((s) => Number(s?.n ?? s?.index) === n);
  return byN ?? state.sources[n - 1] ?? null;
}

/** @param {any} src */
function sourceUrl(src) {
  return textFragmentUrl(String(src.url ?? ""), String(src.passage || src.snippet || src.text || ""));
}

/** @param {number} n */
function citeBadge(n) {
  const src = sourceFor(n);
  if (!src) return h("span", { class: "cite", text: String(n), title: `Source ${n}` });
  const title = String(src.title || src.url || `Source ${n}`);
  const url = sourceUrl(src);
  return h("a", {
    class: "cite",
    href: url,
    title,
    "aria-label": `Source ${n}: ${title}`,
    text: String(n),
    on: {
      click: (/** @type {Event} */ ev) => {
        ev.preventDefault();
        openUrl(url);
      },
    },
  });
}

function renderAnswer() {
  const nodes = citationTokens(state.answer).map((t) =>
    "cite" in t ? citeBadge(t.cite) : document.createTextNode(t.text),
  );
  $("answer").replaceChildren(...nodes);
  $("sources").replaceChildren(
    ...state.sources.map((src, i) => {
      const n = Number(src?.n ?? src?.index ?? i + 1);
      const url = sourceUrl(src);
      return h(
        "li",
        { class: "source" },
        h("span", { class: "cite", text: String(n), "aria-hidden": "true" }),
        h(
          "div",
          null,
          h("a", {
            href: url,
            text: String(src.title || displayUrl(String(src.url ?? ""))),
            on: {
              click: (/** @type {Event} */ ev) => {
                ev.preventDefault();
                openUrl(url);
              },
            },
          }),
          h("div", { class: "muted small", text: `${displayUrl(String(src.url ?? ""))} · ${visitLine(src)}` }),
        ),
      );
    }),
  );
}

/** @param {boolean} running */
function askRunning(running) {
  askButton.disabled = running;
  stopButton.disabled = !running;
  $("ask").setAttribute("aria-busy", running ? "true" : "false");
}

/** @param {string} text */
function startAsk(text) {
  const asked = text.trim();
  if (!asked) {
    askStatus("Type a question first.");
    return;
  }
  stopAsk(false);
  const port = connectPort("ask");
  if (!port) {
    askStatus("Not connected: open this panel from the Rewind extension.");
    return;
  }
  state.askPort = port;
  state.answer = "";
  state.sources = [];
  renderAnswer();
  askRunning(true);
  askStatus("Thinking…");
  port.onMessage.addListener((m) => {
    if (port !== state.askPort) return;
    if (m.type === "context") {
      askStatus(
        m.used_tab
          ? `Using the current tab (“${m.title || "untitled"}”) and your history…`
          : "The current tab can't be used (Rewind doesn't record it); using your history…",
      );
    } else if (m.type === "chunk") {
      if (!state.answer) askStatus("");
      state.answer += m.text;
      renderAnswer();
    } else if (m.type === "frame") {
      if (Array.isArray(m.frame?.sources)) state.sources = m.frame.sources;
      renderAnswer();
    } else if (m.type === "done") {
      const r = m.reply ?? {};
      if (typeof r.answer === "string" && r.answer) state.answer = r.answer;
      if (Array.isArray(r.sources)) state.sources = r.sources;
      renderAnswer();
      askStatus(typeof r.notice === "string" ? r.notice : "");
      finishAsk();
    } else if (m.type === "error") {
      askStatus(
        m.error?.code === "cancelled"
          ? "Stopped."
          : `${m.error?.message ?? "The answer failed."}${m.error?.hint ? ` ${m.error.hint}` : ""}`,
      );
      if (["host_missing", "host_forbidden"].includes(m.error?.code)) refreshStatus();
      finishAsk();
    }
  });
  port.onDisconnect.addListener(() => {
    if (port === state.askPort) finishAsk();
  });
  port.postMessage({ type: "ask", question: asked, include_tab: includeTab.checked });
}

function finishAsk() {
  const port = state.askPort;
  state.askPort = null;
  askRunning(false);
  try {
    port?.disconnect();
  } catch {
    // already closed
  }
}

/** @param {boolean} announce */
function stopAsk(announce) {
  if (!state.askPort) return;
  try {
    state.askPort.postMessage({ type: "stop" });
  } catch {
    // the worker cancels on disconnect as well
  }
  finishAsk();
  if (announce) askStatus("Stopped.");
}

$("ask-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  startAsk(question.value);
});
question.addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && !ev.shiftKey) {
    ev.preventDefault();
    startAsk(question.value);
  } else if (ev.key === "Escape" && state.askPort) {
    ev.preventDefault();
    stopAsk(true);
  }
});
stopButton.addEventListener("click", () => stopAsk(true));
includeTab.addEventListener("change", () => {
  if (inExtension()) call("set_local_settings", { settings: { includeTab: includeTab.checked } }).catch(() => {});
});

// ---- start -----------------------------------------------------------------------------------

/** @type {any} */
let statusTimer = null;
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
q.focus();
