import assert from "node:assert/strict";
import { test } from "node:test";
import * as B from "../lib/backfill.js";

const page = (/** @type {string} */ url) => ({ url, last_visit: 1_760_000_000 });

test("pages an import left are added once, and a finished job the person agreed to runs again", () => {
  let s = B.addPending(B.emptyState(), [page("https://a.example/1"), page("https://a.example/1"), page("https://b.example/")]);
  assert.deepEqual(s.pending.map((p) => p.url), ["https://a.example/1", "https://b.example/"]);
  assert.equal(s.total, 2);
  assert.equal(B.addPending(s, [page("https://b.example/")]), s);
  s = { ...s, consented: true, state: "done", pending: [] };
  assert.equal(B.addPending(s, [page("https://c.example/")]).state, "running");
  assert.equal(B.addPending({ ...s, consented: false }, [page("https://c.example/")]).state, "done");
});

test("at most one request per site per second: another site goes first, else it waits", () => {
  const s = B.addPending(B.emptyState(), [page("https://a.example/1"), page("https://a.example/2"), page("https://b.example/")]);
  assert.equal(B.nextPage(s, {}, 5000).page?.url, "https://a.example/1");
  const asked = { "a.example": 4500 };
  assert.equal(B.nextPage(s, asked, 5000).page?.url, "https://b.example/");
  const onlyA = { ...s, pending: s.pending.slice(0, 2) };
  assert.deepEqual(B.nextPage(onlyA, asked, 5000), { page: null, waitMs: 500 });
  assert.equal(B.nextPage(onlyA, asked, 5500).page?.url, "https://a.example/1");
  assert.deepEqual(B.nextPage(B.emptyState(), {}, 0), { page: null, waitMs: 0 });
});

test("each page ends loaded or skipped with its reason; the last one finishes the job", () => {
  let s = { ...B.addPending(B.emptyState(), [page("https://a.example/1"), page("https://b.example/")]), consented: true, state: /** @type {const} */ ("running") };
  s = B.settle(s, "https://a.example/1", { loaded: true }, 800, 10);
  assert.equal(s.loaded, 1);
  assert.equal(s.state, "running");
  s = B.settle(s, "https://b.example/", { loaded: false, reason: "it needs you to sign in (the site answered 401)" }, 400, 11);
  assert.deepEqual([s.state, s.skippedCount, s.pending.length, s.finishedAt], ["done", 1, 0, 11]);
  assert.equal(s.skipped[0].reason, "it needs you to sign in (the site answered 401)");
});

test("progress and time left follow the recent pace, and the per-site gap when few sites are left", () => {
  let s = B.addPending(B.emptyState(), Array.from({ length: 10 }, (_, i) => page(`https://site${i}.example/`)));
  assert.deepEqual(B.progress(s), { done: 0, total: 10, percent: 0, etaS: null });
  s = B.settle(s, "https://site0.example/", { loaded: true }, 2000, 1);
  assert.deepEqual(B.progress(s), { done: 1, total: 10, percent: 10, etaS: 18 });
  const oneSite = B.addPending(B.emptyState(), Array.from({ length: 30 }, (_, i) => page(`https://one.example/${i}`)));
  const paced = B.settle(oneSite, "https://one.example/0", { loaded: true }, 100, 1);
  assert.equal(B.progress(paced).etaS, 29); // 29 pages, one a second: the gap, not the 0.1 s fetch
});

test("what a stored state cannot be is not believed", () => {
  const s = B.normalize({ state: "exploding", pending: [{ url: 5 }, { url: "https://a.example/", last_visit: -3 }], loaded: "x", consented: "yes" });
  assert.deepEqual([s.state, s.pending, s.loaded, s.consented], ["idle", [{ url: "https://a.example/", last_visit: 0 }], 0, false]);
});

test("an answer that needs a sign-in, fails or is not HTML is a reason; a page is not", () => {
  const ok = { status: 200, redirected: false, url: "https://a.example/p", contentType: "text/html; charset=utf-8" };
  assert.equal(B.responseProblem(ok, ok.url), null);
  assert.match(B.responseProblem({ ...ok, status: 401 }, ok.url) ?? "", /sign in.*401/);
  assert.match(B.responseProblem({ ...ok, status: 403 }, ok.url) ?? "", /sign in/);
  assert.match(B.responseProblem({ ...ok, redirected: true, url: "https://accounts.a.example/login?next=/p" }, ok.url) ?? "", /sign-in page/);
  assert.match(B.responseProblem({ ...ok, redirected: true, url: "https://id.a.example/oauth2/authorize?x=1" }, ok.url) ?? "", /sign-in page/);
  assert.equal(B.responseProblem({ ...ok, redirected: true, url: "https://a.example/p/" }, ok.url), null);
  assert.equal(B.responseProblem({ ...ok, status: 404 }, ok.url), "the site answered 404");
  assert.match(B.responseProblem({ ...ok, contentType: "application/pdf" }, ok.url) ?? "", /not a web page \(application\/pdf\)/);
});
