/**
 * The options page's navigation: a few sections, one shown at a time, each with an address.
 *
 * Job: `resolve(doc, hash, search)` says which pane an address points at — a pane by name
 * (options.html#records, #search, #models, #data, #ai-tools), a card by its data-section
 * (#forget, #backup…) or any element by id (#blocklist, #held-section, #mcp-log), then the
 * element to bring into view; no hash is the first pane, or the Forget card for the popup's
 * "?site=". `show(doc, where)` shows that pane alone, marks its link aria-current="page"
 * and names it in the title; `mountNav(win)` follows the address (the nav's links, Back and
 * Forward, a link from the popup or the welcome page) and, when the person moves, puts the
 * focus on what they asked for.
 * Never: take a control out of the page (a hidden pane's controls are mounted and keep
 * their state), or read the address as HTML.
 */

export const PANES = ["records", "search", "models", "data", "ai-tools"];
export const DEFAULT_PANE = PANES[0];
const TITLE = "Rewind options";
const FOCUSABLE = "input, select, textarea, button, summary, a[href], [tabindex]";

/** @typedef {{pane: string, target: HTMLElement|null}} Where */

/** @param {Document} doc @returns {HTMLElement[]} */
const panes = (doc) => /** @type {HTMLElement[]} */ ([...doc.querySelectorAll("section.pane[data-pane]")]);

/** @param {HTMLElement|null} el */
const paneOf = (el) => /** @type {HTMLElement|null} */ (el?.closest("section.pane[data-pane]") ?? null);

/** @param {string} hash */
function nameOf(hash) {
  const raw = String(hash ?? "").replace(/^#/, "");
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The pane (and element) an address points at.
 * @param {Document} doc @param {string} hash location.hash @param {string} [search] location.search
 * @returns {Where}
 */
export function resolve(doc, hash, search = "") {
  const name = nameOf(hash);
  const all = panes(doc);
  if (all.some((p) => p.dataset.pane === name)) return { pane: name, target: null };
  if (name) {
    const card = [...doc.querySelectorAll("[data-section]")].find((el) => /** @type {HTMLElement} */ (el).dataset.section === name);
    const el = /** @type {HTMLElement|null} */ (card ?? doc.getElementById(name));
    const pane = paneOf(el);
    if (el && pane) return { pane: pane.dataset.pane ?? DEFAULT_PANE, target: el };
  } else if (new URLSearchParams(search).get("site")) {
    const forget = /** @type {HTMLElement|null} */ (doc.querySelector("[data-section='forget']"));
    const pane = paneOf(forget);
    if (pane) return { pane: pane.dataset.pane ?? DEFAULT_PANE, target: forget };
  }
  return { pane: all[0]?.dataset.pane ?? DEFAULT_PANE, target: null };
}

/**
 * Show `where.pane` alone and mark its link; returns the pane shown.
 * @param {Document} doc @param {Where} where @returns {HTMLElement|null}
 */
export function show(doc, where) {
  let shown = null;
  for (const pane of panes(doc)) {
    const on = pane.dataset.pane === where.pane;
    pane.hidden = !on;
    if (on) shown = pane;
  }
  for (const link of doc.querySelectorAll("nav a[data-pane]")) {
    if (/** @type {HTMLElement} */ (link).dataset.pane === where.pane) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  const heading = shown?.querySelector("h2")?.textContent?.trim();
  doc.title = heading ? `${TITLE}: ${heading}` : TITLE;
  return shown;
}

/**
 * Follow the address: now, and whenever it changes (then the focus goes to the element
 * asked for when it takes focus, else to the pane's heading).
 * @param {Window} [win]
 */
export function mountNav(win = window) {
  const doc = win.document;
  /** @param {boolean} moved the person went somewhere (not the page's first load) */
  const follow = (moved) => {
    const where = resolve(doc, win.location.hash, win.location.search);
    const pane = show(doc, where);
    if (where.target) where.target.scrollIntoView({ block: "start" });
    else if (moved) win.scrollTo(0, 0);
    if (!moved) return;
    const focus = where.target?.matches(FOCUSABLE) ? where.target : pane?.querySelector("h2");
    /** @type {HTMLElement|null|undefined} */ (focus)?.focus({ preventScroll: true });
  };
  follow(false);
  win.addEventListener("hashchange", () => follow(true));
}
