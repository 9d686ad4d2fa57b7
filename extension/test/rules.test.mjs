import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { compilePolicy } from "../lib/policy.js";
import { hostMatches, pageKey, patternMatches, recordVerdict, siteOfUrl, whyNotRecord } from "../lib/rules.js";

const policy = compilePolicy(
  JSON.parse(readFileSync(new URL("../../host/rewind/capture/policy.json", import.meta.url), "utf8")),
);

/** [url, context, expected category (null = recorded)] */
const CASES = [
  ["https://vector-notes.example/posts/hnsw-pruning", {}, null],
  ["http://127.0.0.1:8000/library/sqlite3.html", {}, null],
  ["https://en.wikipedia.org/wiki/Author", {}, null],
  // never: not the web, incognito, paused, credentials
  ["chrome://settings/", {}, "not-web"],
  ["file:///home/maya/notes.html", {}, "not-web"],
  ["chrome-extension://abc/popup.html", {}, "not-web"],
  ["about:blank", {}, "not-web"],
  ["not a url", {}, "bad-url"],
  ["https://example.com/article", { incognito: true }, "incognito"],
  ["https://example.com/article", { paused: true }, "paused-all"],
  ["https://user:secret@example.com/", {}, "credentials"],
  // incognito wins over "always record"
  ["https://example.com/article", { incognito: true, alwaysRecord: ["example.com"] }, "incognito"],
  // the policy and the person's rules (the shared cases in policy.test.mjs cover the rest)
  ["https://www.paypal.com/myaccount/summary", {}, "finance"],
  ["https://www.paypal.com/myaccount/summary", { alwaysRecord: ["paypal.com"] }, null],
  ["https://www.google.com/search?q=x", { disabledCategories: ["search"] }, null],
  ["https://news.example.com/a", { pausedSites: ["example.com"] }, "paused"],
  ["https://example.org/hr/salary-bands", { blocklist: ["salary"] }, "excluded"],
];

for (const [url, ctx, expected] of CASES) {
  test(`${url} ${JSON.stringify(ctx)} -> ${expected ?? "recorded"}`, () => {
    const v = recordVerdict(String(url), { policy, ...Object(ctx) });
    assert.equal(v ? v.category : null, expected);
    assert.equal(whyNotRecord(String(url), { policy, ...Object(ctx) }), v ? v.why : null);
  });
}

test("whyNotRecord says why in words", () => {
  assert.equal(whyNotRecord("https://www.chase.com/", { policy }), "looks like a bank, payment or investment account");
  assert.equal(whyNotRecord("https://example.org/x", { policy, blocklist: ["example.org"] }), "matches your exclusion “example.org”");
});

test("without a policy nothing is recorded (fail closed)", () => {
  assert.equal(recordVerdict("https://example.com/article", {})?.category, "no-policy");
  assert.equal(recordVerdict("https://example.com/article", { policy: null })?.category, "no-policy");
});

test("hostMatches: a domain covers its subdomains, not look-alikes", () => {
  assert.ok(hostMatches("a.b.example.com", "example.com"));
  assert.ok(hostMatches("example.com", "*.example.com"));
  assert.ok(!hostMatches("badexample.com", "example.com"));
  assert.ok(!hostMatches("example.com", ""));
});

test("patternMatches ignores empty patterns", () => {
  assert.ok(!patternMatches("  ", new URL("https://example.com/")));
});

test("pageKey drops the fragment only; siteOfUrl gives the host", () => {
  assert.equal(pageKey("https://a.example/x?y=1#frag"), "https://a.example/x?y=1");
  assert.equal(siteOfUrl("https://www.Example.com/x"), "example.com");
  assert.equal(siteOfUrl("chrome://settings"), "");
  assert.equal(siteOfUrl("not a url"), "");
});

test("the host gets the person's rules under the names set_rules takes", async () => {
  const { hostRules } = await import("../lib/rules.js");
  const { normalizeSettings } = await import("../lib/settings.js");
  const s = normalizeSettings({ blocklist: ["intranet"], pausedSites: ["news.example"],
    alwaysRecord: ["a.example"], disabledCategories: ["search"], redact: false });
  assert.deepEqual(hostRules(s), {
    rules: { disabled_categories: ["search"], always_record: ["a.example"],
      paused_sites: ["news.example"], blocklist: ["intranet"] },
    redact: false,
  });
});
