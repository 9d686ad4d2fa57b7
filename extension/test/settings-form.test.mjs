import assert from "node:assert/strict";
import { test } from "node:test";
import { hostSettingGroups, readField } from "../lib/settings-form.js";

/** A get_settings reply as the host will send it (the schema of Settings' metadata). */
const REPLY = {
  settings: { rrf_alpha: 0.5, fusion: "rrf", default_limit: 10, answer_facets: true, answer_max_tokens: 120, secret_thing: 3 },
  defaults: { rrf_alpha: 0.7, fusion: "adaptive", default_limit: 10, answer_facets: false, answer_max_tokens: 120, secret_thing: 3 },
  schema: {
    answer_max_tokens: { type: "int", min: 16, max: 2048, doc: "Longest answer (tokens)", group: "answers" },
    fusion: { type: "choice", choices: ["adaptive", "rrf"], doc: "How meaning and words are combined", group: "search" },
    rrf_alpha: { type: "float", min: 0, max: 1, doc: "Weight of meaning over exact words", group: "search" },
    answer_facets: { type: "bool", doc: "Split a question into parts first", group: "answers" },
    default_limit: { type: "int", min: 1, max: 100, doc: "Results when none is asked for", group: "search" },
    not_reported: { type: "int", min: 1, max: 2, doc: "described, but the host sent no value", group: "search" },
    weird: { type: "json", doc: "a kind the page cannot edit", group: "search" },
    cache_size: { type: "int", min: 1, max: 9, doc: "An odd group", group: "zz_engine" },
  },
};
REPLY.settings.weird = {};
REPLY.settings.cache_size = 4;

test("fields are drawn from the schema: its groups (search, answers first), types, bounds and docs", () => {
  const groups = hostSettingGroups(REPLY);
  assert.deepEqual(groups.map((g) => [g.group, g.title]), [["search", "Search results"], ["answers", "Answers"], ["zz_engine", "Zz engine"]]);
  const search = groups[0].fields;
  assert.deepEqual(search.map((f) => f.name), ["fusion", "rrf_alpha", "default_limit"], "schema order kept");
  assert.deepEqual(search[0], {
    name: "fusion", type: "choice", label: "How meaning and words are combined",
    value: "rrf", dflt: "adaptive", choices: ["adaptive", "rrf"], advanced: false,
  });
  assert.deepEqual(search[1], {
    name: "rrf_alpha", type: "float", label: "Weight of meaning over exact words",
    value: 0.5, dflt: 0.7, min: 0, max: 1, step: 0.01, advanced: false,
  });
  assert.equal(search[2].step, 1);
  const answers = groups[1].fields;
  assert.deepEqual(answers.map((f) => [f.name, f.type]), [["answer_max_tokens", "int"], ["answer_facets", "bool"]]);
  const all = groups.flatMap((g) => g.fields.map((f) => f.name));
  assert.ok(!all.includes("secret_thing"), "a setting without a schema entry is not offered when a schema exists");
  assert.ok(!all.includes("not_reported") && !all.includes("weird"));
});

test("without a schema nothing is offered: the settings are defined in the host only", () => {
  assert.deepEqual(hostSettingGroups({ settings: { rrf_alpha: 0.7 }, defaults: {} }), []);
});

test("readField checks what was typed against the field", () => {
  const [search] = hostSettingGroups(REPLY);
  const [fusion, alpha, limit] = search.fields;
  assert.deepEqual(readField(alpha, "0.25"), { value: 0.25 });
  assert.match(/** @type {any} */ (readField(alpha, "2")).error, /between 0 and 1/);
  assert.match(/** @type {any} */ (readField(alpha, "")).error, /not a number/);
  assert.match(/** @type {any} */ (readField(limit, "2.5")).error, /whole number/);
  assert.deepEqual(readField(fusion, "adaptive"), { value: "adaptive" });
  assert.ok("error" in readField(fusion, "magic"));
  const facets = hostSettingGroups(REPLY)[1].fields[1];
  assert.deepEqual(readField(facets, true), { value: true });
});

test("plain labels win over docs; advanced settings apart from everyday ones; a section's own skipped", () => {
  const reply = {
    settings: { rrf_k: 60, default_limit: 10, content_check: true, llm_model: "" },
    defaults: { rrf_k: 60, default_limit: 10, content_check: true, llm_model: "" },
    schema: {
      rrf_k: { type: "int", min: 1, max: 1000, doc: "the k of reciprocal rank fusion", group: "search",
        label: "How much lower-ranked pages still count", advanced: true },
      default_limit: { type: "int", min: 1, max: 100, doc: "results", label: "Results to show", group: "search" },
      content_check: { type: "bool", doc: "refuse account pages", group: "capture" },
      llm_model: { type: "str", doc: "the answering model", group: "answers", pattern: "[a-z]*" },
    },
  };
  const names = (/** @type {any} */ which) => hostSettingGroups(reply, which).flatMap((g) => g.fields.map((f) => f.name));
  assert.deepEqual(names({ advanced: true }), ["rrf_k"]);
  assert.deepEqual(names({ advanced: false }), ["default_limit", "content_check"], "text settings are not drawn");
  assert.deepEqual(names({ advanced: false, skip: ["default_limit"] }), ["content_check"]);
  const [rrf] = hostSettingGroups(reply, { advanced: true })[0].fields;
  assert.equal(rrf.label, "How much lower-ranked pages still count");
  assert.ok(!rrf.label.includes("reciprocal rank fusion"), "the developer's words stay out of the page");
  assert.equal(hostSettingGroups(reply, { advanced: false })[1].title, "Recording");
});
