import assert from "node:assert/strict";
import { test } from "node:test";
import { cutShort } from "../options/backup.js";

test("a download cut short says no file was saved and how to try again", () => {
  const gone = { code: "disconnected", message: "Rewind's helper went away before it finished." };
  const text = String(cutShort(gone, "backup", "Download a backup"));
  assert.match(text, /^The backup stopped before it was complete/);
  assert.match(text, /no file was saved/);
  assert.match(text, /Click “Download a backup” to try again\.$/);
  assert.equal(cutShort({ code: "disk_full", message: "full" }, "backup", "Download a backup"), null,
    "other errors keep their own words");
  assert.equal(cutShort(undefined, "export", "Export portable JSON"), null);
});
