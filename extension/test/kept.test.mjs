import assert from "node:assert/strict";
import { test } from "node:test";
import { retentionLine, storageLine } from "../lib/kept.js";

const stats = {
  storage: { text_bytes: 5 * 1024 * 1024, vector_bytes: 3 * 1024 * 1024, text_index_bytes: 1536 },
  retention: { max_age_days: 0, max_mb: 0 },
  encryption: { encrypted: true, key: "the system keyring (SecretService)" },
};

test("each part's size and whether it is encrypted", () => {
  assert.equal(storageLine(stats),
    "Text 5.0 MB · vectors 3.0 MB · index 1.5 KB. Encrypted on this computer (key in the system keyring (SecretService)).");
  assert.equal(storageLine(stats, false), "Text 5.0 MB · vectors 3.0 MB · index 1.5 KB. Encrypted on this computer.");
  assert.equal(storageLine({ ...stats, encryption: { encrypted: false } }).endsWith("Not encrypted."), true);
  assert.equal(storageLine({}), "");
});

test("retention in words, off by default", () => {
  assert.equal(retentionLine(stats), "Keeps everything (no limits set)");
  assert.equal(retentionLine({ retention: { max_age_days: 90, max_mb: 500 } }),
    "Keeps pages visited in the last 90 days, up to 500 MB, oldest pages forgotten first");
  assert.equal(retentionLine({ retention: { max_age_days: 1, max_mb: 0 } }), "Keeps pages visited in the last 1 day");
  assert.equal(retentionLine(null), "");
});
