/**
 * Options section "Forget": a page, a site, the last hour, or everything, each confirmed.
 *
 * Job: check what was typed, ask for a confirmation, forget through the worker (which
 * also drops what it still holds of it), and say how many pages went.
 * Never: forget anything without a confirmation.
 */

import { domainFilter, formatCount } from "../lib/format.js";

/** @param {HTMLElement} _root @param {import("./page.js").Page} page */
export function mount(_root, page) {
  const { $ } = page;

  /** @param {Record<string, unknown>} fields @param {string} what */
  async function forget(fields, what) {
    if (!window.confirm(`Forget ${what}? This cannot be undone.`)) return;
    try {
      const r = fields.all ? await page.call("clear") : await page.call("forget", fields);
      const n = Number(r?.removed);
      page.msg("forget-msg", Number.isFinite(n) ? `Forgot ${what}: ${formatCount(n)} pages removed.` : `Forgot ${what}.`);
    } catch (err) {
      page.msg("forget-msg", page.errText(err), true);
    }
  }

  const site = new URLSearchParams(location.search).get("site"); // the popup's "forget this site"
  if (site) $("forget-site").value = site;
  $("forget-page").addEventListener("click", () => {
    const url = String($("forget-url").value).trim();
    if (!/^https?:\/\//i.test(url)) {
      page.msg("forget-msg", "Paste the page's full address (https://…).", true);
      return;
    }
    forget({ url }, "this page");
  });
  $("forget-site-button").addEventListener("click", () => {
    const domain = domainFilter($("forget-site").value);
    if (!domain) {
      page.msg("forget-msg", "Type a site like example.com.", true);
      return;
    }
    forget({ domain }, `everything from ${domain}`);
  });
  $("forget-hour").addEventListener("click", () => {
    const now = Date.now() / 1000;
    forget({ since: now - 3600, until: now + 60 }, "the last hour");
  });
  $("forget-all").addEventListener("click", () => forget({ all: true }, "everything Rewind remembers"));
}
