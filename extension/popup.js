/**
 * The toolbar popup: is Rewind working, what does it hold, pause it.
 *
 * Job: "Connected — N pages remembered", passages, storage, queue, the last
 * indexed page and the models in use; pause/resume everything or this site;
 * open the side panel (from the click itself: sidePanel.open needs a user
 * gesture) or the options; the helper-missing state with its command.
 * Never: render page titles as HTML, or talk to the host except through the worker.
 */

import { hostBanner } from "./lib/banner.js";
import { call, inExtension } from "./lib/client.js";
import { h } from "./lib/dom.js";
import { formatBytes, formatCount, modelsInUse, relativeTime } from "./lib/format.js";

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const state = {
  /** @type {any} */ status: null,
  /** @type {any} */ stats: null,
  /** @type {any} */ tab: null,
  /** @type {number|undefined} */ windowId: undefined,
};

/** @param {boolean} [force] */
async function load(force = false) {
  try {
    state.status = await call("status", { force });
  } catch (err) {
    const e = /** @type {any} */ (err);
    state.status = { host: { state: e?.code === "no_extension" ? "no_extension" : "error", error: e } };
  }
  state.stats = state.status.stats ?? null;
  state.tab = (await call("current_tab").catch(() => null))?.tab ?? null;
  render();
}

function render() {
  const st = state.status ?? {};
  const host = st.host ?? { state: "connecting" };
  const settings = st.settings ?? {};
  const stats = state.stats ?? host.hello?.stats ?? null;
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
  if (settings.paused) {
    banners.push(
      h("section", { class: "banner banner-paused", role: "status" },
        h("strong", { text: "Paused" }),
        h("p", { text: "Pages you read are not remembered until you resume." })),
    );
  }
  $("banners").replaceChildren(...banners);

  $("facts").classList.toggle("hidden", !connected);
  if (connected) {
    $("f-passages").textContent = formatCount(Number(stats?.passages ?? 0));
    $("f-storage").textContent = Number.isFinite(Number(stats?.storage_bytes))
      ? formatBytes(Number(stats.storage_bytes))
      : "–";
    const q = st.queue ?? {};
    $("f-queue").textContent = `${q.pending ?? 0} waiting, ${q.failed ?? 0} failed`;
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
    const models = modelsInUse(host.hello?.models, stats);
    $("f-models").replaceChildren(
      ...(models.length
        ? models.map((m) =>
            h("span", { class: `model${m.ready ? "" : " bad"}`, text: `${m.role}: ${m.name}${m.ready || m.role === "Answers" ? "" : " (not working)"}`, title: m.problem || undefined }),
          )
        : [document.createTextNode("–")]),
    );
    $("retry").classList.toggle("hidden", !(q.failed > 0));
  }

  const pause = /** @type {HTMLButtonElement} */ ($("pause"));
  pause.textContent = settings.paused ? "Resume Rewind" : "Pause Rewind";
  pause.setAttribute("aria-pressed", settings.paused ? "true" : "false");
  pause.disabled = !inExtension();

  const site = state.tab?.site;
  const siteButton = /** @type {HTMLButtonElement} */ ($("pause-site"));
  const sitePaused = Boolean(site && (settings.pausedSites ?? []).includes(site));
  siteButton.classList.toggle("hidden", !site);
  siteButton.textContent = sitePaused ? `Resume on ${site}` : `Pause on ${site}`;
  siteButton.setAttribute("aria-pressed", sitePaused ? "true" : "false");
  const reason = state.tab?.not_recorded;
  $("site-note").textContent =
    reason && !sitePaused && !settings.paused ? notRecordedText(String(reason)) : "";
}

/** Why this page is not recorded, for people (rules.js says why in words). @param {string} reason */
function notRecordedText(reason) {
  return `Not recorded: ${reason}.`;
}

$("pause").addEventListener("click", async () => {
  const paused = state.status?.settings?.paused;
  await call(paused ? "resume" : "pause").catch(() => {});
  load();
});
$("pause-site").addEventListener("click", async () => {
  const site = state.tab?.site;
  if (!site) return;
  const paused = (state.status?.settings?.pausedSites ?? []).includes(site);
  await call(paused ? "resume_site" : "pause_site", { site }).catch(() => {});
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
  chrome.runtime.openOptionsPage();
  window.close();
});

if (inExtension()) {
  chrome.windows.getCurrent().then((w) => (state.windowId = w.id), () => {});
  chrome.storage.onChanged.addListener((changes, area) => {
    if ((area === "session" && changes.host) || (area === "local" && (changes.settings || changes.queue))) load();
  });
}
load();
