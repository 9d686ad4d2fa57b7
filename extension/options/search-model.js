/**
 * Options section "Search model": which embedding model search uses, and switching to
 * another (a re-embedding job, lib/reembed.js) with its progress.
 *
 * Job: show the installed models and their dimensions, the offer of the multilingual
 * model when the history's languages call for it, start a switch on the person's click, and follow the job every second while there is one (paused too: the popup may
 * resume it).
 * Never: start a job without a click.
 */

import { modelChooser, reembedView } from "../lib/reembed.js";
import { mount as mountLanguageOffer } from "./languages.js";

/** @param {HTMLElement} _root @param {import("./page.js").Page} page */
export function mount(_root, page) {
  const { $ } = page;
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let jobTimer;

  async function loadModels(action = "status", fields = {}) {
    let reply;
    try {
      reply = await page.call("reindex", { job: action, ...fields });
    } catch (err) {
      page.msg("model-msg", page.errText(err), true);
      return;
    }
    $("model-choose").replaceChildren(modelChooser(reply, (model, dim) => {
      page.msg("model-msg", "");
      loadModels("start", { model, dim });
    }));
    const job = reply.reembed;
    const view = reembedView(job, (a) => loadModels(a));
    $("reembed").replaceChildren(...(view ? [view] : []));
    clearTimeout(jobTimer);
    if (job) jobTimer = setTimeout(loadModels, 1000);
  }

  page.onLoad(() => {
    if (!page.connected) return;
    loadModels();
    // the multilingual model, offered when many pages are not in English (options/languages.js)
    mountLanguageOffer($("language-offer"), () => loadModels());
  });
}
