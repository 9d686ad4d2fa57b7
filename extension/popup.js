/**
 * The toolbar popup: is Rewind working, what happens to this page, what does it hold.
 *
 * Job: "Connected — N pages remembered"; the page in front in words ("Remembered 2
 * minutes ago", "Not recorded: looks like a payment page", "Paused on this site", "Will
 * be remembered after 5 s of reading") with one click to pause or resume the site,
 * always record it, or forget the page; the queue's waiting, failed and dropped counts
 * (also while the helper is away); passages, storage and each part's size, what is kept
 * (retention) and whether it is encrypted, the last indexed page, the models and the
 * helper's memory; pause everything; open the side panel (from the click itself:
 * sidePanel.open needs a user gesture) or the options (at what the popup is about: what
 * Rewind records); the helper-missing state with its command; the pages held because
 * they looked private, each to keep or not (lib/held.js).
 * Never: render page titles as HTML, or talk to the host except through the worker.
 */

import { hostBanner } from "./lib/banner.js";
import { call, inExtension } from "./lib/client.js";
import { h } from "./lib/dom.js";
import { formatBytes, formatCount, modelsInUse, relativeTime } from "./lib/format.js";
import { backfillView } from "./lib/history-view.js";
import { heldView } from "./lib/held.js";
import { retentionLine, storageLine } from "./lib/kept.js";
import { jobFollower, jobOfStatus } from "./lib/job-follow.js";
import { languageOffer } from "./lib/language-offer.js";
import { openOptions, optionsSection } from "./lib/options-link.js";
import { reembedView } from "./lib/reembed.js";
import { pageStatusLine } from "./lib/status.js";

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const state = {
  /** @type {any} */ status: null,
  /** @type {any} */ page: null,
  /** @type {number|undefined} */ windowId: undefined,
  /** @type {any[]} */ held: [],
};

/** @param {boolean} [force] */
async function load(force = false) {
  try {
    state.status = await call("status", { force });
  } catch (err) {
    const e = /** @type {any} */ (err);
    state.status = { host: { state: e?.code === "no_extension" ? "no_extension" : "error", error: e } };
  }
  state.page = await call("page_status").catch(() => null);
  const connected = state.status?.host?.state === "connected";
  state.held = connected ? ((await call("held_list").catch(() => null))?.held ?? []) : [];
  render();
}

/** @param {import("./lib/held.js").HeldPage} page @param {boolean} keep */
async function decideHeld(page, keep) {
  try {
    await call("held_decide", { id: page.id, keep, url: page.url });
    $("site-note").textContent = keep ? `Kept: ${page.title || page.url}.` : "Not kept: it was wiped.";
  } catch (err) {
    const e = /** @type {any} */ (err) ?? {};
    $("site-note").textContent = `${e.message ?? "Something went wrong."}${e.hint ? ` ${e.hint}` : ""}`;
  }
  load();
}

/** @param {any} q */
function queueText(q) {
  const parts = [`${formatCount(q.pending ?? 0)} waiting`, `${formatCount(q.failed ?? 0)} failed`];
  if (q.dropped > 0) parts.push(`${formatCount(q.dropped)} dropped`);
  return `Queue: ${parts.join(", ")}`;
}

function render() {
  const st = state.status ?? {};
  const host = st.host ?? { state: "connecting" };
  const settings = st.settings ?? {};
  const stats = st.stats ?? host.hello?.stats ?? null;
  const connected = host.state === "connected";

  const pages = Number(stats?.pages);
  $("headline").textContent = connected
    ? `Connected — ${formatCount(Number.isFinite(pages) ? pages : 0)} pages remembered`
    : host.state === "connecting"
      ? "Connecting…"
      : "Not connected";

  const banners = [];
  const hb = hostBanner(host, { onRetry: () => load(true) });
  if (hb) banners.push(hb);
  if (st.queue?.disk_full) {
    banners.push(
      h("section", { class: "banner banner-warn", role: "status" },
        h("strong", { text: "Rewind's disk is full" }),
        h("p", { text: `${formatCount(st.queue.pending)} pages are waiting, none is lost: free some space and Rewind goes on by itself.` })),
    );
  }
  if (settings.paused) {
    banners.push(
      h("section", { class: "banner banner-paused", role: "status" },
        h("strong", { text: "Paused" }),
        h("p", { text: "Pages you read are not remembered until you resume." })),
    );
  }
  $("banners").replaceChildren(...banners);
  const held = heldView(state.held, decideHeld);
  $("held").replaceChildren(...(held ? [held] : []));

  renderPage();

  // The queue's counts come from the extension: shown whether or not the helper is there.
  const q = st.queue ?? {};
  $("queue-line").textContent = st.queue ? queueText(q) : "";
  $("queue-line").title = q.last_dropped ? `Last dropped: ${q.last_dropped.title || q.last_dropped.url} (${q.last_dropped.reason})` : "";
  $("retry").classList.toggle("hidden", !(q.failed > 0));

  $("facts").classList.toggle("hidden", !connected);
  if (connected) {
    $("f-passages").textContent = formatCount(Number(stats?.passages ?? 0));
    $("f-storage").textContent = Number.isFinite(Number(stats?.storage_bytes))
      ? formatBytes(Number(stats.storage_bytes))
      : "–";
    $("f-parts").textContent = storageLine(stats, false) || "–";
    $("f-retention").textContent = retentionLine(stats) || "–";
    const last = stats?.last_indexed ?? q.last_indexed;
    if (last && last.url) {
      const when = Number(last.at);
      $("f-last").replaceChildren(
        h("a", { href: last.url, target: "_blank", rel: "noopener", text: String(last.title || last.url) }),
        Number.isFinite(when) ? h("span", { class: "muted", text: ` · ${relativeTime(when > 1e12 ? when / 1000 : when)}` }) : null,
      );
    } else {
      $("f-last").textContent = "nothing yet";
    }
    // The helper's resident memory now (it lets its models go when unused): "180 MB".
    const mb = stats?.memory_mb == null ? NaN : Number(stats.memory_mb);
    $("f-memory").textContent = Number.isFinite(mb) ? `${formatCount(Math.round(mb))} MB` : "–";
    const models = modelsInUse(host.hello?.models, stats);
    $("f-models").replaceChildren(
      ...(models.length
        ? models.map((m) =>
            h("span", { class: `model${m.ready ? "" : " bad"}`, text: `${m.role}: ${m.name}${m.ready || m.role === "Answers" ? "" : " (not working)"}`, title: m.problem || undefined }),
          )
        : [document.createTextNode("–")]),
    );
  }

  reembed.known(jobOfStatus(st)); // not known while the helper restarts: keep following
  renderOffer(connected ? stats?.languages : null, stats?.reembed);
  renderBackfill(st.backfill);

  const pause = /** @type {HTMLButtonElement} */ ($("pause"));
  pause.textContent = settings.paused ? "Resume Rewind" : "Pause Rewind";
  pause.setAttribute("aria-pressed", settings.paused ? "true" : "false");
  pause.disabled = !inExtension();
}

/** The embedding job's line and buttons, followed every second while there is one (paused
 * too: options may resume it), through the worker's restarts (lib/job-follow.js). */
const reembed = jobFollower({
  ask: () => call("reindex", { job: "status" }),
  show: (j) => {
    const view = reembedView(j, async (action) => {
      await call("reindex", { job: action }).catch((err) => ($("site-note").textContent = String(err?.message ?? err)));
      reembed.refresh();
    });
    $("reembed").replaceChildren(...(view ? [view] : []));
  },
});

/** @type {ReturnType<typeof setTimeout>|undefined} */
let backfillTimer;

/** Loading the history's text: its line and buttons, fresh every second while it runs. @param {any} b */
function renderBackfill(b) {
  const started = b && b.consented && b.total;
  $("backfill").replaceChildren(...(started ? [backfillView(b, async (action, fields) => {
    await call(action, fields).catch((err) => ($("site-note").textContent = String(err?.message ?? err)));
    renderBackfill(await call("history_status").then((r) => r.backfill).catch(() => null));
  })] : []));
  clearTimeout(backfillTimer);
  if (b?.state === "running") {
    backfillTimer = setTimeout(async () => renderBackfill(await call("history_status").then((r) => r.backfill).catch(() => null)), 1000);
  }
}

/** The multilingual model's offer (lib/language-offer.js); nothing starts without a click. */
async function renderOffer(languages, job) {
  const key = "languageOfferDismissed";
  const dismissed = inExtension() ? String((await chrome.storage.local.get(key))[key] ?? "") : "";
  const card = languageOffer(languages, {
    job, dismissed,
    start: async (model, dim) => {
      await call("reindex", { job: "start", model, dim }).catch((err) => ($("site-note").textContent = String(err?.message ?? err)));
      $("language-offer").replaceChildren();
      reembed.refresh();
    },
    dismiss: async (k) => {
      if (inExtension()) await chrome.storage.local.set({ [key]: k });
      $("language-offer").replaceChildren();
    },
  });
  $("language-offer").replaceChildren(...(card ? [card] : []));
}

function renderPage() {
  const p = state.page;
  const line = p ? pageStatusLine(p) : null;
  const status = $("page-status");
  status.textContent = line ? line.text : "…";
  status.dataset.tone = line ? line.tone : "";
  const site = p?.tab?.site ?? "";
  /** @type {[string, boolean, string][]} */
  const buttons = [
    ["pause-site", Boolean(line?.actions.pauseSite), `Pause on ${site}`],
    ["resume-site", Boolean(line?.actions.resumeSite), `Resume on ${site}`],
    ["always-record", Boolean(line?.actions.alwaysRecord), `Always record ${site}`],
    ["stop-always", Boolean(line?.actions.stopAlways), `Stop always recording ${site}`],
    ["forget-page", Boolean(line?.actions.forget), "Forget this page"],
  ];
  for (const [id, shown, text] of buttons) {
    $(id).classList.toggle("hidden", !shown);
    $(id).textContent = text;
  }
}

/** @param {string} action @param {Record<string, unknown>} fields @param {string} done */
async function act(action, fields, done) {
  try {
    await call(action, fields);
    $("site-note").textContent = done;
  } catch (err) {
    const e = /** @type {any} */ (err) ?? {};
    $("site-note").textContent = `${e.message ?? "Something went wrong."}${e.hint ? ` ${e.hint}` : ""}`;
  }
  load();
}

const site = () => state.page?.tab?.site ?? "";
$("pause-site").addEventListener("click", () => act("pause_site", { site: site() }, `Paused on ${site()}.`));
$("resume-site").addEventListener("click", () => act("resume_site", { site: site() }, `Recording ${site()} again.`));
$("always-record").addEventListener("click", () =>
  act("always_record_site", { site: site() }, `${site()} will be recorded although it looks private.`));
$("stop-always").addEventListener("click", () => act("stop_always_recording", { site: site() }, "Back to the built-in rules."));
$("forget-page").addEventListener("click", () => act("forget", { url: state.page?.tab?.url }, "Forgotten."));
$("pause").addEventListener("click", async () => {
  const paused = state.status?.settings?.paused;
  await call(paused ? "resume" : "pause").catch(() => {});
  load();
});
$("retry").addEventListener("click", async () => {
  await call("queue_retry").catch(() => {});
  load();
});
$("open-panel").addEventListener("click", () => {
  if (!inExtension()) return;
  // Straight from the click: a user gesture is required, and an await first would lose it.
  const opening =
    state.windowId !== undefined
      ? chrome.sidePanel.open({ windowId: state.windowId })
      : chrome.windows.getCurrent().then((w) => chrome.sidePanel.open({ windowId: /** @type {number} */ (w.id) }));
  opening.then(() => window.close(), (err) => ($("site-note").textContent = String(err?.message ?? err)));
});
$("options").addEventListener("click", (ev) => {
  if (!inExtension()) return;
  ev.preventDefault();
  // At the section the link names (the tab already open, if there is one), then close.
  const section = optionsSection($("options").getAttribute("href"));
  openOptions(section).catch(() => chrome.runtime.openOptionsPage()).finally(() => window.close());
});

if (inExtension()) {
  chrome.windows.getCurrent().then((w) => (state.windowId = w.id), () => {});
  chrome.storage.onChanged.addListener((changes, area) => {
    const local = area === "local" && (changes.settings || changes.queue || changes.page_verdicts);
    if ((area === "session" && changes.host) || local) load();
  });
}
load();
