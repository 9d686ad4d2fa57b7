/**
 * One answer on screen: its text with [n] citation badges, each badge's passage in a
 * tooltip on hover or focus, and the sources (or, for "couldn't find", the closest pages
 * as result cards; for a "closest passage" reply, that passage quoted, with its page).
 *
 * Job: build the elements of a turn's answer from lib/answer.js's parts. A badge is a
 * link that opens the page at the passage backing its sentence (a text fragment: at the
 * marked sentence when the host marked one); its tooltip (role="tooltip", tied by
 * aria-describedby) shows that passage as text, the sentence that backs the answer in a
 * <mark>, stays while the pointer is on it, and Escape closes it.
 * Never: put page text or model text into HTML (lib/dom.js builds every element), or
 * link anywhere but the cited page.
 */

import { answerParts, closestPages, sourceHref } from "../lib/answer.js";
import { h } from "../lib/dom.js";
import { displayUrl, visitLine } from "../lib/format.js";
import { openUrl, resultCard } from "./cards.js";

const HIDE_DELAY_MS = 200; // time to move the pointer from a badge onto its tooltip

/**
 * Tooltips of one answer: one shown at a time, placed under its badge's line.
 * @param {HTMLElement} box the tooltips' container (positioned by the turn around it)
 */
function tooltips(box) {
  /** @type {ReturnType<typeof setTimeout>|null} */
  let timer = null;
  const cancel = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  const hideAll = () => {
    cancel();
    for (const tip of box.children) /** @type {HTMLElement} */ (tip).hidden = true;
  };
  return {
    /** @param {HTMLElement} badge @param {HTMLElement} tip */
    bind(badge, tip) {
      const show = () => {
        hideAll();
        tip.hidden = false;
        tip.style.top = `${badge.offsetTop + badge.offsetHeight + 4}px`;
      };
      const hideSoon = () => {
        cancel();
        timer = setTimeout(hideAll, HIDE_DELAY_MS);
      };
      badge.addEventListener("mouseenter", show);
      badge.addEventListener("focus", show);
      badge.addEventListener("mouseleave", hideSoon);
      badge.addEventListener("blur", hideAll);
      badge.addEventListener("keydown", (ev) => {
        if (ev.key === "Escape" && !tip.hidden) {
          ev.preventDefault();
          ev.stopPropagation(); // Escape closes the tooltip, not the answer
          hideAll();
        }
      });
      tip.addEventListener("mouseenter", cancel);
      tip.addEventListener("mouseleave", hideSoon);
    },
  };
}

/**
 * The answer's text and badges, and their tooltips.
 * @param {string} answer @param {any[]} citations @param {any[]} sources
 * @param {string} idPrefix unique per turn (tooltip ids)
 * @returns {{answer: HTMLElement, tips: HTMLElement}}
 */
export function answerBody(answer, citations, sources, idPrefix) {
  const tips = h("div", { class: "tips" });
  const tipper = tooltips(tips);
  const nodes = answerParts(answer, citations, sources).map((part, k) => {
    if ("text" in part) return document.createTextNode(part.text);
    if (!part.source) return h("span", { class: "cite", title: `Source ${part.cite}`, text: String(part.cite) });
    const id = `${idPrefix}-tip-${k}`;
    const badge = h("a", {
      class: "cite",
      href: part.href,
      "aria-label": `Source ${part.cite}: ${part.title}`,
      "aria-describedby": id,
      text: String(part.cite),
      on: {
        click: (/** @type {Event} */ ev) => {
          ev.preventDefault();
          openUrl(part.href);
        },
      },
    });
    const tip = h(
      "div",
      { class: "cite-tip", role: "tooltip", id, hidden: true },
      h("strong", { class: "tip-title", text: `${part.cite} · ${part.title}` }),
      part.tip.length
        ? h("p", { class: "quote" }, ...part.tip.map((t) => (t.mark ? h("mark", { text: t.text }) : t.text)))
        : null,
      h("span", {
        class: "tip-hint muted",
        text: part.marked
          ? "Click the number to open the page at the marked words."
          : "Click the number to open the page at this passage.",
      }),
    );
    tips.append(tip);
    tipper.bind(badge, tip);
    return badge;
  });
  return { answer: h("div", { class: "answer" }, ...nodes), tips };
}

/**
 * The sources listed under an answer, by number, each a link to its passage.
 * @param {any[]} sources
 */
export function sourceList(sources) {
  return h(
    "ol",
    { class: "sources", "aria-label": "Sources" },
    ...sources.map((src, i) => {
      const n = Number(src?.n ?? src?.index ?? i + 1);
      const url = sourceHref(src);
      return h(
        "li",
        { class: "source" },
        h("span", { class: "cite", text: String(n), "aria-hidden": "true" }),
        h(
          "div",
          null,
          h("a", {
            href: url,
            text: String(src?.title || displayUrl(String(src?.url ?? ""))),
            on: {
              click: (/** @type {Event} */ ev) => {
                ev.preventDefault();
                openUrl(url);
              },
            },
          }),
          h("div", {
            class: "muted small",
            text: `${src?.kind === "tab" ? "current tab" : displayUrl(String(src?.url ?? ""))} · ${visitLine(src ?? {})}`,
          }),
        ),
      );
    }),
  );
}

/**
 * No answer is backed, but a page is near: "The closest thing you read — <title>:", the
 * passage quoted, and a badge that opens the page at it. All text nodes.
 * @param {NonNullable<import("../lib/thread.js").Turn["closest"]>} c
 */
export function closestBody(c) {
  const open = (/** @type {Event} */ ev) => {
    ev.preventDefault();
    openUrl(c.href);
  };
  return h(
    "div",
    { class: "answer closest-passage" },
    h("p", { class: "closest-lead" },
      "The closest thing you read — ",
      h("a", { href: c.href, text: c.title, on: { click: open } }),
      ":"),
    h("blockquote", { class: "quote", text: `“${c.quote}”` }),
    h("p", { class: "muted small" },
      "Not an answer: nothing you read backs one. ",
      h("a", { class: "cite", href: c.href, text: String(c.n), "aria-label": `Source ${c.n}: ${c.title}`,
        on: { click: open } }),
      ` ${displayUrl(c.url)}`),
  );
}

/**
 * "Couldn't find": the closest pages of the history, as result cards.
 * @param {any[]} sources
 */
export function closestList(sources) {
  const pages = closestPages(sources);
  if (!pages.length) return null;
  return h(
    "section",
    { class: "closest", "aria-label": "Closest pages" },
    h("h3", { class: "small muted", text: "The closest pages you've read:" }),
    h("ol", { class: "results" }, ...pages.map((p) => resultCard(p))),
  );
}
