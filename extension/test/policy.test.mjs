import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { PolicyError, classifyUrl, compilePolicy } from "../lib/policy.js";

const ROOT = new URL("../../", import.meta.url);
const RAW = JSON.parse(readFileSync(new URL("host/rewind/capture/policy.json", ROOT), "utf8"));
const CASES = JSON.parse(readFileSync(new URL("tests/data/policy_cases.json", ROOT), "utf8"));
const POLICY = compilePolicy(RAW);

/** The shared cases spell the person's rules as the protocol does (snake_case). @param {any} r */
function personRules(r = {}) {
  return {
    disabledCategories: r.disabled_categories,
    alwaysRecord: r.always_record,
    pausedSites: r.paused_sites,
    blocklist: r.blocklist,
  };
}

// The same cases run in tests/capture/test_policy.py against policy.py: the two agree.
CASES.forEach((c, i) => {
  test(`case ${i}: ${c.url} -> ${c.expect ?? "recorded"}`, () => {
    const v = classifyUrl(c.url, POLICY, personRules(c.rules));
    assert.equal(v ? v.category : null, c.expect, JSON.stringify(v));
    if (c.rule) assert.equal(v?.rule, c.rule);
  });
});

test("a verdict carries the category's label and why", () => {
  assert.deepEqual(classifyUrl("https://www.paypal.com/myaccount/summary", POLICY), {
    category: "finance",
    label: "Banking, payments and investing",
    why: "looks like a bank, payment or investment account",
    rule: "domain paypal.com",
  });
});

test("compilePolicy names the bad entry", () => {
  const one = (/** @type {object} */ extra) => ({
    version: 1,
    categories: [{ id: "x", label: "X", why: "is x", default: true, domains: ["x.example"], ...extra }],
  });
  assert.throws(() => compilePolicy(one({ hosts: ["(a"] })), (e) => e instanceof PolicyError && /categories\[0\] \(x\)\.hosts\[0\]/.test(e.message));
  assert.throws(() => compilePolicy(one({ colour: "red" })), /unknown key colour/);
  assert.throws(() => compilePolicy(one({ id: "Bad" })), /id matching/);
  assert.throws(() => compilePolicy({ version: 2, categories: [] }), /version: 1/);
});
