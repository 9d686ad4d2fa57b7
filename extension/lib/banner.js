/**
 * The host-state banner shared by the side panel and the popup.
 *
 * Job: turn the worker's host info ({state, error}) into a short message a
 * person can act on — "Rewind's helper isn't installed" plus the one command,
 * with a copy button and a "Try again" button.
 * Never: show stack traces or raw host output beyond the error message.
 */

import { h } from "./dom.js";
import { FIX_COMMAND, FIX_FROM_SOURCE } from "./settings.js";

/** @type {Record<string, {title: string, text: string, command: boolean}>} */
const STATES = {
  host_missing: {
    title: "Rewind's helper isn't installed",
    text: "Rewind keeps your history in a small program on this computer. Install it with:",
    command: true,
  },
  host_forbidden: {
    title: "Rewind's helper is set up for another copy of the extension",
    text: "Register it again for this one:",
    command: true,
  },
  incompatible: {
    title: "Rewind's helper and extension are different versions",
    text: "", // the error says which side is older, and how to update it
    command: false,
  },
  disconnected: {
    title: "Rewind's helper stopped",
    text: "It restarts by itself. If this keeps happening, run rewind doctor.",
    command: false,
  },
  error: { title: "Rewind's helper reported a problem", text: "", command: false },
  no_extension: {
    title: "Not connected",
    text: "This page is a preview outside the extension. Open it from Rewind's toolbar button.",
    command: false,
  },
};

/**
 * @param {{state: string, error?: {message?: string, hint?: string}|null}} info
 * @param {{onRetry?: () => void}} [opts]
 * @returns {HTMLElement|null} null when connected (or connecting)
 */
export function hostBanner(info, opts = {}) {
  const s = STATES[info.state];
  if (!s) return null;
  const detail = ["error", "disconnected", "incompatible"].includes(info.state)
    ? [info.error?.message, info.state === "incompatible" ? info.error?.hint : ""].filter(Boolean).join(" ")
    : "";
  const cmd = s.command
    ? h(
        "div",
        { class: "command" },
        h("code", { text: FIX_COMMAND }),
        h("button", {
          type: "button",
          class: "small",
          text: "Copy",
          "aria-label": "Copy the command",
          on: {
            click: (/** @type {Event} */ ev) => {
              const btn = /** @type {HTMLButtonElement} */ (ev.currentTarget);
              navigator.clipboard?.writeText(FIX_COMMAND).then(
                () => (btn.textContent = "Copied"),
                () => (btn.textContent = "Select and copy"),
              );
            },
          },
        }),
      )
    : null;
  const retry =
    opts.onRetry && info.state !== "no_extension"
      ? h("button", { type: "button", class: "small secondary", text: "Try again", on: { click: opts.onRetry } })
      : null;
  return h(
    "section",
    { class: `banner banner-${info.state === "disconnected" ? "warn" : "error"}`, role: "alert" },
    h("strong", { text: s.title }),
    s.text ? h("p", { text: s.text }) : null,
    cmd,
    cmd ? h("p", { class: "detail", text: `(From Rewind's source folder: ${FIX_FROM_SOURCE}.)` }) : null,
    detail ? h("p", { class: "detail", text: detail }) : null,
    retry,
  );
}
