import assert from "node:assert/strict";
import { test } from "node:test";

/** @type {any} */ (globalThis).chrome = { runtime: { id: "ext-id" } };
const relay = await import("../background/handlers/relay.js");

function recorder() {
  const sent = /** @type {any[]} */ ([]);
  return {
    sent,
    native: /** @type {any} */ ({
      async request(/** @type {string} */ type, /** @type {any} */ fields = {}) {
        sent.push({ type, fields });
        return {};
      },
    }),
  };
}

test("search passes the page's fields through: the host's schema is the one list", async () => {
  const { native, sent } = recorder();
  await relay.search(/** @type {any} */ ({ native }), {
    action: "search", query: "lens", mode: "keyword", since: 5, domain: "", until: null,
    some_new_field: 3,
  });
  // Not `action` (the worker's), nor what the page left empty; a field the host does not
  // take goes on, for the host to refuse by name.
  assert.deepEqual(sent, [{ type: "search", fields: { query: "lens", mode: "keyword", since: 5,
                                                        some_new_field: 3 } }]);
});

test("reindex names the host's action from the page's `job`", async () => {
  const { native, sent } = recorder();
  await relay.reindex(/** @type {any} */ ({ native }), { action: "reindex", job: "start", model: "m", dim: 256 });
  await relay.reindex(/** @type {any} */ ({ native }), { action: "reindex" });
  assert.deepEqual(sent.map((s) => s.fields), [
    { action: "start", model: "m", dim: 256 },
    { action: "status" },
  ]);
});
