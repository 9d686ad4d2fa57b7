import assert from "node:assert/strict";
import { test } from "node:test";
import { hostMatches, pageKey, patternMatches, shouldRecord, siteOfUrl, whyNotRecord } from "../lib/rules.js";

/** [url, context, expected reason (null = recorded)] */
const CASES = [
  // ordinary pages are recorded
  ["https://vector-notes.example/posts/hnsw-pruning", {}, null],
  ["http://127.0.0.1:8000/library/sqlite3.html", {}, null],
  ["https://en.wikipedia.org/wiki/Author", {}, null],
  ["https://blog.example/blogging-about-logistics", {}, null],
  ["https://example.com/paypal-history-article", {}, null],
  ["https://news.example/world-bank-report", {}, null],
  ["https://docs.example/authoring-guide", {}, null],
  // never: not the web, incognito, paused, credentials
  ["chrome://settings/", {}, "not a web page"],
  ["file:///home/maya/notes.html", {}, "not a web page"],
  ["chrome-extension://abc/popup.html", {}, "not a web page"],
  ["about:blank", {}, "not a web page"],
  ["not a url", {}, "bad url"],
  ["https://example.com/article", { incognito: true }, "incognito"],
  ["https://example.com/article", { paused: true }, "paused"],
  ["https://user:secret@example.com/", {}, "credentials in url"],
  // sensitive defaults
  ["https://example.com/login", {}, "sensitive: login"],
  ["https://example.com/users/sign-in?next=/", {}, "sensitive: login"],
  ["https://example.com/signin", {}, "sensitive: login"],
  ["https://login.example.com/", {}, "sensitive: login"],
  ["https://example.com/account/reset-password", {}, "sensitive: password"],
  ["https://shop.example/checkout/step-2", {}, "sensitive: checkout"],
  ["https://shop.example/payment", {}, "sensitive: payment"],
  ["https://pay.example.com/", {}, "sensitive: payment"],
  ["https://onlinebanking.example.com/overview", {}, "sensitive: banking"],
  ["https://mybank.example/", {}, "sensitive: banking"],
  ["https://example.com/account/security", {}, "sensitive: account security"],
  ["https://accounts.example.com/", {}, "sensitive: account security"],
  ["https://example.com/oauth2/authorize?client_id=1", {}, "sensitive: oauth"],
  ["https://example.com/auth/callback", {}, "sensitive: auth"],
  ["https://id.example.com/2fa", {}, "sensitive: auth"],
  // per-site pauses and user patterns
  ["https://news.example.com/a", { pausedSites: ["example.com"] }, "site paused"],
  ["https://www.example.com/a", { pausedSites: ["example.com"] }, "site paused"],
  ["https://notexample.com/a", { pausedSites: ["example.com"] }, null],
  ["https://mail.example.org/inbox", { blocklist: ["mail.example.org"] }, "excluded: mail.example.org"],
  ["https://example.org/private/x", { blocklist: ["example.org/private"] }, "excluded: example.org/private"],
  ["https://example.org/public/x", { blocklist: ["example.org/private"] }, null],
  ["https://wiki.intranet.example/x", { blocklist: ["*://*.intranet.example/*"] }, "excluded: *://*.intranet.example/*"],
  ["https://example.org/hr/salary-bands", { blocklist: ["salary"] }, "excluded: salary"],
];

for (const [url, ctx, expected] of CASES) {
  test(`${url} ${JSON.stringify(ctx)} -> ${expected ?? "recorded"}`, () => {
    assert.equal(whyNotRecord(url, ctx), expected);
    assert.equal(shouldRecord(url, ctx), expected === null);
  });
}

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
});
