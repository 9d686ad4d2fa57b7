// Tables of cases the host's Python and the extension share, so the two never disagree.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { relativeTime } from "../lib/format.js";

const ago = JSON.parse(readFileSync(new URL("../../tests/data/ago_cases.json", import.meta.url), "utf8"));

test("relativeTime says what the host's humanize.ago says (tests/data/ago_cases.json)", () => {
  for (const { seconds_ago, says } of ago.cases) {
    assert.equal(relativeTime(ago.now - seconds_ago, ago.now * 1000), says, `${seconds_ago} s ago`);
  }
});
