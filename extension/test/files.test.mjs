import assert from "node:assert/strict";
import { test } from "node:test";
import { backupName, fromBase64, pieces, toBase64 } from "../lib/files.js";

test("base64 round trip, larger than one fromCharCode call", () => {
  const bytes = new Uint8Array(100_003);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + 7) & 0xff;
  const text = toBase64(bytes);
  assert.equal(text, Buffer.from(bytes).toString("base64"));
  assert.deepEqual(fromBase64(text), bytes);
});

test("pieces cover the file in order, none over the size", () => {
  const bytes = new Uint8Array(10);
  assert.deepEqual(pieces(bytes, 4).map((p) => [p.offset, p.bytes.length]), [[0, 4], [4, 4], [8, 2]]);
  assert.deepEqual(pieces(new Uint8Array(0), 4).map((p) => p.offset), [0]);
  assert.throws(() => pieces(bytes, 0));
});

test("backup names carry the day", () => {
  assert.equal(backupName("rwb", new Date(Date.UTC(2026, 10, 23, 12))), "rewind-backup-2026-11-23.rwb");
});
