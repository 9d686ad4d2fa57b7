import assert from "node:assert/strict";
import { test } from "node:test";

/** chrome.storage.local in memory (get/set/remove with the callback-free promise API). */
const mem = new Map();
/** @type {any} */ (globalThis).chrome = {
  storage: {
    local: {
      get: async (/** @type {string|string[]} */ keys) =>
        Object.fromEntries([keys].flat().filter((k) => mem.has(k)).map((k) => [k, structuredClone(mem.get(k))])),
      set: async (/** @type {object} */ o) => Object.entries(o).forEach(([k, v]) => mem.set(k, structuredClone(v))),
      remove: async (/** @type {string|string[]} */ keys) => [keys].flat().forEach((k) => mem.delete(k)),
    },
  },
};
const { getProfileId, profileInfo, setProfileId } = await import("../background/storage.js");

test("a new install adopts the host's most recently used store", async () => {
  mem.clear();
  const id = await getProfileId(async () => [
    { profile: "precent", pages: 120, last_indexed: 5, data_dir: "/d/precent" },
    { profile: "pold", pages: 3, last_indexed: 1, data_dir: "/d/pold" },
  ]);
  assert.equal(id, "precent");
  const info = await profileInfo();
  assert.equal(info.id, "precent");
  assert.equal(info.origin?.how, "adopted");
  assert.equal(info.origin?.pages, 120);
  assert.equal(info.origin?.others, 1);
  assert.equal(await getProfileId(async () => { throw new Error("not asked again"); }), "precent");
});

test("no store on the host: a new id; the host could not say: nothing is made up", async () => {
  mem.clear();
  await assert.rejects(getProfileId(async () => { throw new Error("host gone"); }));
  assert.equal((await profileInfo()).id, null, "no id stored while the answer is unknown");
  const id = await getProfileId(async () => []);
  assert.match(id, /^p[0-9a-f]{16}$/);
  assert.equal((await profileInfo()).origin?.how, "new");
});

test("the person may switch to another store; ids are checked", async () => {
  mem.clear();
  await setProfileId("pother");
  assert.equal(await getProfileId(async () => []), "pother");
  await assert.rejects(setProfileId("../etc"));
});
