/**
 * The options page: what Rewind records, how it searches and answers, its models, your data
 * (where the history is, forgetting, backup and restore) and the AI tools that may read it.
 *
 * Job: wire the page. Its panes (one shown at a time, each with an address:
 * options.html#records, #search, #models, #data, #ai-tools) are options/nav.js's. Each
 * `data-section="NAME"` card of options.html has a module `options/NAME.js` exporting
 * `mount(root, page)`; this file mounts each with the shared page (options/page.js:
 * settings, status, messages, streams), then loads the worker's status once, which every
 * section is told of. To add a section: its card in a pane of options.html, its module in
 * options/, one line in SECTIONS.
 * Never: hold a section's state or render anything itself.
 */

import * as answerModel from "./options/answer-model.js";
import * as backup from "./options/backup.js";
import * as browserHistory from "./options/browser-history.js";
import * as forget from "./options/forget.js";
import * as held from "./options/held.js";
import * as history from "./options/history.js";
import * as mcp from "./options/mcp.js";
import { mountNav } from "./options/nav.js";
import * as neverRecord from "./options/never-record.js";
import { createPage, followLocalChanges } from "./options/page.js";
import * as recording from "./options/recording.js";
import * as search from "./options/search.js";
import * as searchModel from "./options/search-model.js";
import * as sites from "./options/sites.js";

/** @type {Record<string, {mount: (root: HTMLElement, page: import("./options/page.js").Page) => void}>} */
const SECTIONS = {
  recording,
  held,
  "never-record": neverRecord,
  sites,
  search,
  "answer-model": answerModel,
  "search-model": searchModel,
  "browser-history": browserHistory,
  history,
  forget,
  mcp,
  backup,
};

mountNav(window); // the pane the address names, before the sections fill in
const page = createPage();
for (const root of document.querySelectorAll("[data-section]")) {
  const name = /** @type {HTMLElement} */ (root).dataset.section ?? "";
  const section = Object.prototype.hasOwnProperty.call(SECTIONS, name) ? SECTIONS[name] : null;
  if (!section) {
    console.error(`options: no module for section "${name}"`);
    continue;
  }
  try {
    section.mount(/** @type {HTMLElement} */ (root), page);
  } catch (err) {
    console.error(`options: section "${name}" failed to start`, err); // the others still work
  }
}
followLocalChanges(page);
page.load();
