/**
 * Options section "Search model": which embedding model search uses, and switching to
 * another (a re-embedding job, lib/reembed.js) with its progress.
 *
 * Job: show the installed models and their dimensions, the offer of the multilingual
 * model when the history's languages call for it, start a switch on the person's click,
 * and follow the job every second while there is one (paused too: the popup may resume
 * it), through the worker's restarts (lib/job-follow.js).
 * Never: start a job without a click, or take a status that did not come for the job's end.
 */

import { jobFollower } from "../lib/job-follow.js";
import { modelChooser, reembedView } from "../lib/reembed.js";
import { mount as mountLanguageOffer } from "./languages.js";

/** @param {HTMLElement} _root @param {import("./page.js").Page} page */
export function mount(_root, page) {
  const { $ } = page;
  // Followed through the worker's restarts: a status that does not come keeps the job shown.
  const reembed = jobFollower({
    ask: () => page.call("reindex", { job: "status" }),
    show: (job, reply) => {
      if (reply) {
        $("model-choose").replaceChildren(modelChooser(reply, (model, dim) => {
          page.msg("model-msg", "");
          reindex("start", { model, dim });
        }));
      }
      const view = reembedView(job, (a) => reindex(a));
      $("reembed").replaceChildren(...(view ? [view] : []));
    },
  });

  /** The first look, or a click (start, pause, resume, cancel): its error is said. */
  async function reindex(action = "status", fields = {}) {
    let reply;
    try {
      reply = await page.call("reindex", { job: action, ...fields });
    } catch (err) {
      page.msg("model-msg", page.errText(err), true);
      return;
    }
    reembed.set(reply.reembed, reply);
  }

  page.onLoad(() => {
    if (!page.connected) return;
    reindex();
    // the multilingual model, offered when many pages are not in English (options/languages.js)
    mountLanguageOffer($("language-offer"), () => reindex());
  });
}
