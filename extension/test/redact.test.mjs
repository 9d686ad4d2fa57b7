import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

await import("../content/redact.js");
/** @type {any} */
const { redact, findPii, MASKS } = globalThis.RewindRedact;

const CASES = JSON.parse(readFileSync(new URL("../../tests/data/redaction_cases.json", import.meta.url), "utf8"));

// The same cases run in tests/capture/test_redact.py against redact.py: the two agree.
CASES.forEach((c, i) => {
  test(`case ${i}: ${c.note ?? c.text.slice(0, 50)}`, () => {
    assert.equal(redact(c.text).text, c.expect);
  });
});

test("counts by kind", () => {
  const r = redact("a@b.io and c@d.io, (555) 234-5678, IBAN GB82WEST12345698765432");
  assert.deepEqual(r.counts, { email: 2, phone: 1, iban: 1 });
  assert.deepEqual(redact("nothing").counts, {});
});

test("findings are in order, never overlapping, with the Python kinds", () => {
  const f = findPii("x@y.com 4111 1111 1111 1111 +44 20 7946 0958 SSN 123-45-6789");
  assert.deepEqual(
    f.map((/** @type {any} */ x) => x.kind),
    ["email", "card", "phone", "national_id"],
  );
  for (let i = 1; i < f.length; i++) assert.ok(f[i - 1].end <= f[i].start);
  assert.deepEqual(Object.keys(MASKS), ["email", "card", "iban", "national_id", "phone"]);
});

test("loading the script twice keeps one frozen RewindRedact", async () => {
  const first = globalThis.RewindRedact;
  await import(`../content/redact.js?again=${Date.now()}`);
  assert.ok(Object.isFrozen(globalThis.RewindRedact));
  assert.equal(globalThis.RewindRedact.redact("a@b.io").text, first.redact("a@b.io").text);
});

test("large text: every fragment masked", () => {
  const text = "call 020 7946 0958 now. ".repeat(40_000);
  assert.deepEqual(redact(text).counts, { phone: 40_000 });
});
