import assert from "node:assert/strict";
import { test } from "node:test";
import { pageStatusLine } from "../lib/status.js";

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const tab = { url: "https://example.com/a", title: "A", site: "example.com", incognito: false };
/** @param {object} over */
const line = (over) => pageStatusLine({ tab, connected: true, threshold_s: 5, ...over }, NOW);

test("remembered pages say when", () => {
  const r = line({ page: { last_visit: NOW / 1000 - 120, indexed_at: NOW / 1000 - 3600 } });
  assert.equal(r.text, "Remembered 2 minutes ago.");
  assert.equal(r.tone, "ok");
  assert.ok(r.actions.forget && r.actions.pauseSite && !r.actions.alwaysRecord);
});

test("not recorded: the rule's or the page's reason, with 'always record' where it can apply", () => {
  const pay = line({ rule: { category: "finance", why: "looks like a bank, payment or investment account" } });
  assert.equal(pay.text, "Not recorded: looks like a bank, payment or investment account.");
  assert.ok(pay.actions.alwaysRecord);
  const signal = line({ verdict: { category: "account", why: "looks like a sign-in page (it shows a password field)", by: "page" } });
  assert.equal(signal.text, "Not recorded: looks like a sign-in page (it shows a password field).");
  assert.ok(signal.actions.alwaysRecord);
  const host = line({ verdict: { category: "finance", why: "looks like a payment page", by: "host" } });
  assert.equal(host.text, "Not recorded: looks like a payment page (Rewind's helper checked its text).");
  const own = line({ rule: { category: "excluded", why: "matches your exclusion “salary”" } });
  assert.ok(!own.actions.alwaysRecord, "the person's own rule is not overridden from here");
  const incognito = line({ rule: { category: "incognito", why: "incognito windows are never recorded" } });
  assert.equal(incognito.text, "Not recorded: incognito windows are never recorded.");
  assert.ok(!incognito.actions.alwaysRecord);
});

test("paused: everything, or this site (with the way back)", () => {
  assert.equal(line({ paused: true, rule: { category: "paused-all", why: "Rewind is paused" } }).text, "Rewind is paused.");
  const site = line({ site_paused: true, rule: { category: "paused", why: "you paused recording on example.com" } });
  assert.equal(site.text, "Paused on this site.");
  assert.ok(site.actions.resumeSite && !site.actions.pauseSite);
});

test("before the threshold: how much more reading it takes", () => {
  assert.equal(line({ dwell: { elapsed_ms: 0, reported: false } }).text, "Will be remembered after 5 s of reading.");
  assert.equal(line({ dwell: { elapsed_ms: 3200, reported: false } }).text, "Will be remembered after 2 s of reading.");
  assert.equal(line({}).text, "Will be remembered after 5 s of reading.");
});

test("in the queue: waiting (also while the host is away) or failed with its reason", () => {
  assert.equal(line({ queued: { state: "waiting", ahead: 2 } }).text, "Waiting to be remembered.");
  assert.equal(
    line({ connected: false, queued: { state: "waiting" } }).text,
    "Waiting to be remembered (Rewind's helper isn't connected).",
  );
  const failed = line({ queued: { state: "failed", error: "timeout: no answer" } });
  assert.equal(failed.text, "Could not be remembered (timeout: no answer).");
  assert.equal(failed.tone, "bad");
});

test("non-web pages and no tab", () => {
  assert.equal(pageStatusLine({ tab: null }).text, "No page in front.");
  assert.equal(line({ tab: { ...tab, site: "" } }).text, "Rewind records web pages only.");
});

test("held for the person's decision, or not kept by them", () => {
  const held = line({ verdict: { category: "private", why: "looks like a private page", by: "held" } });
  assert.equal(held.text, "Held for your decision: it looks like a private page — keep it or not in the list below.");
  assert.equal(held.tone, "wait");
  const declined = line({ verdict: { category: "private", why: "you chose not to keep it", by: "declined" } });
  assert.equal(declined.text, "Not recorded: you chose not to keep it.");
});
