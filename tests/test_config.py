"""Settings (config.py): every field says what it is, user settings carry their range, and
one check decides whether a value fits (set_settings and the saved overrides use it)."""

import dataclasses

import pytest
from rewind import config
from rewind.config import Settings


def test_every_setting_has_a_knob_with_a_doc():
    for f in dataclasses.fields(Settings):
        knob = f.metadata.get("knob")
        assert knob is not None and knob.doc.strip(), f"{f.name} has no knob/doc"


def test_user_settings_have_a_range_or_choices_and_a_group():
    schema = config.user_schema()
    assert {"default_limit", "fusion", "answer_token_budget", "answer_facets"} <= set(schema)
    for name, entry in schema.items():
        assert entry["group"], name
        if entry["type"] in ("int", "float"):
            assert entry["min"] <= entry["default"] <= entry["max"], name
        if entry["type"] == "choice":
            assert entry["default"] in entry["choices"], name


def test_internal_settings_are_not_offered_to_people():
    schema = config.user_schema()
    assert "max_request_bytes" not in schema and "llm_threads" not in schema


@pytest.mark.parametrize("name,value,ok", [
    ("default_limit", 7, 7), ("default_limit", 7.0, 7), ("rrf_alpha", 1, 1.0),
    ("fusion", "rrf", "rrf"), ("answer_facets", True, True)])
def test_values_that_fit(name, value, ok):
    got = config.check_user_value(name, value)
    assert got == ok and type(got) is type(ok)


@pytest.mark.parametrize("name,value,words", [
    ("default_limit", 0, "outside"), ("default_limit", 7.5, "integer"),
    ("default_limit", "7", "number"), ("default_limit", True, "number"),
    ("rrf_alpha", float("nan"), "outside"), ("fusion", "best", "one of"),
    ("answer_facets", 1, "true or false"), ("max_request_bytes", 1, "not a setting"),
    ("no_such_setting", 1, "not a setting")])
def test_values_that_do_not_fit_say_why(name, value, words):
    with pytest.raises(ValueError, match=words):
        config.check_user_value(name, value)


def test_the_extension_and_host_cut_passages_with_one_set_of_limits():
    s = Settings()
    assert s.capture_limits() == {
        "max_passage_words": s.max_passage_words, "min_passage_words": s.min_passage_words,
        "max_passages_per_page": s.max_passages_per_page,
        "max_passage_chars": s.max_passage_chars, "max_title_chars": s.max_title_chars,
        "extract_budget_ms": s.extract_budget_ms, "extract_slice_ms": s.extract_slice_ms}
    assert s.max_request_passage_chars > s.max_passage_chars


def test_answer_budget_and_length_scale_with_a_larger_context_only():
    s = Settings()
    # The offline default (4,096 tokens) keeps the measured 200 / 120.
    assert (s.answer_budget(4096), s.answer_length(4096)) == (200, 120)
    assert (s.answer_budget(None), s.answer_length(2048)) == (200, 120)  # never less
    assert (s.answer_budget(8192), s.answer_length(8192)) == (400, 240)
    assert s.answer_budget(32_768) == 1600  # a 32k-context model gets 8x, not a fixed 200
    mine = Settings(answer_token_budget=500, answer_max_tokens=100)  # a person's choice
    assert (mine.answer_budget(8192), mine.answer_length(8192)) == (1000, 200)
