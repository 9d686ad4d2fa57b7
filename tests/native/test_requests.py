"""Request checks (native/requests.py, native/schema.py): every type, defaults, refusals with
reasons, fuzzed."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_cases import (
    VALID,
    S,
    json_leaf,
    json_value,
    parse,
    refused,
)
from rewind.errors import Code
from rewind.native import framing, requests, schema
from rewind.native.handlers import HANDLERS, schemas
from rewind.native.requests import ProtocolError
from rewind.native.settings_requests import settings_schema

# ---- requests --------------------------------------------------------------------------------



def test_every_handler_has_a_schema_and_an_example():
    assert set(HANDLERS) == set(schemas(S)) == set(VALID)


@pytest.mark.parametrize("rtype", sorted(VALID))
def test_valid_requests_parse(rtype):
    req = parse({"id": 1, "type": rtype, **VALID[rtype]})
    assert req.type == rtype and req.id == 1


def test_defaults_are_filled_in():
    req = parse({"id": "x", "type": "search", "query": "q"})
    assert req.args == {
        "query": "q",
        "mode": "hybrid",
        "limit": None,
        "since": None,
        "until": None,
        "domain": None,
    }
    assert parse({"id": 1, "type": "hello"}).args["profile"] == "default"
    assert parse({"id": 1, "type": "list_pages"}).args == {"offset": 0, "limit": 50}


def test_a_page_may_send_exactly_the_passages_and_characters_the_extension_cuts_to():
    """One number each, from Settings: what hello's `capture` tells the extension to cut to
    is accepted by index_page (the title passage counts among the passages)."""
    passages = [{"text": "w" * S.max_passage_chars}] * S.max_passages_per_page
    page = {"url": "https://a.b/", "passages": passages}
    req = parse({"id": 1, "type": "index_page", "page": page})
    assert len(req.args["page"]["passages"]) == S.max_passages_per_page


def test_a_lone_surrogate_in_a_string_comes_in_as_a_question_mark():
    """JSON can carry one; the tokenizers cannot (a fuzzed search got `internal`)."""
    req = parse(json.loads('{"id": 1, "type": "search", "query": "a\\ud800b \\ud83d\\ude00"}'))
    assert req.args["query"] == "a?b \U0001f600", "a pair stays the character it is"
    page = {"url": "https://a.b/", "passages": [{"text": "x\udfff"}]}
    assert parse({"id": 2, "type": "index_page", "page": page}).args["page"]["passages"][0][
        "text"] == "x?"


def test_integral_float_is_an_integer():
    assert parse({"id": 1, "type": "list_pages", "limit": 10.0}).args["limit"] == 10


@pytest.mark.parametrize(
    "obj,code,words",
    [
        ({"type": "stats"}, Code.BAD_REQUEST, "id"),
        ({"id": True, "type": "stats"}, Code.BAD_REQUEST, "id"),
        ({"id": -1, "type": "stats"}, Code.BAD_REQUEST, "id"),
        ({"id": 2**53, "type": "stats"}, Code.BAD_REQUEST, "id"),
        ({"id": "x" * 65, "type": "stats"}, Code.BAD_REQUEST, "id"),
        ({"id": [1], "type": "stats"}, Code.BAD_REQUEST, "id"),
        ({"id": 1}, Code.BAD_REQUEST, "type"),
        ({"id": 1, "type": 3}, Code.BAD_REQUEST, "type"),
        ({"id": 1, "type": "launch_missiles"}, Code.UNKNOWN_TYPE, "launch_missiles"),
        ({"id": 1, "type": "stats", "extra": 1}, Code.BAD_REQUEST, "extra: unknown field"),
        ({"id": 1, "type": "search"}, Code.BAD_REQUEST, "query: missing"),
        ({"id": 1, "type": "search", "query": 5}, Code.BAD_REQUEST, "expected a string"),
        ({"id": 1, "type": "search", "query": ""}, Code.BAD_REQUEST, "must not be empty"),
        (
            {"id": 1, "type": "search", "query": "q" * (S.max_query_chars + 1)},
            Code.BAD_REQUEST,
            "at most",
        ),
        ({"id": 1, "type": "search", "query": "q", "mode": "psychic"}, Code.BAD_REQUEST, "one of"),
        ({"id": 1, "type": "search", "query": "q", "limit": 0}, Code.BAD_REQUEST, "outside"),
        ({"id": 1, "type": "search", "query": "q", "limit": "5"}, Code.BAD_REQUEST, "integer"),
        ({"id": 1, "type": "search", "query": "q", "limit": 2.5}, Code.BAD_REQUEST, "integer"),
        (
            {"id": 1, "type": "search", "query": "q", "since": 5, "until": 1},
            Code.BAD_REQUEST,
            "since is after until",
        ),
        ({"id": 1, "type": "search", "query": "q", "since": True}, Code.BAD_REQUEST, "number"),
        ({"id": 1, "type": "hello", "profile": "../etc"}, Code.BAD_REQUEST, "profile"),
        (
            {"id": 1, "type": "index_page", "page": {"url": "https://a.b"}},
            Code.BAD_REQUEST,
            "passages or text",
        ),
        (
            {"id": 1, "type": "index_page", "page": {"url": "u", "passages": "x"}},
            Code.BAD_REQUEST,
            "page.passages: expected a list",
        ),
        (
            {"id": 1, "type": "index_page", "page": {"url": "u", "passages": [{"text": 1}]}},
            Code.BAD_REQUEST,
            "page.passages[0].text",
        ),
        (
            {"id": 1, "type": "index_page", "page": {"url": "u", "passages": [{"text": "t"}] * 99}},
            Code.BAD_REQUEST,
            "items",
        ),
        (
            {
                "id": 1,
                "type": "index_page",
                "page": {
                    "url": "u",
                    "passages": [{"text": "t" * (S.max_request_passage_chars + 1)}],
                },
            },
            Code.BAD_REQUEST,
            "at most",
        ),
        (
            {"id": 1, "type": "index_page", "page": {"url": "u", "text": "t", "dwell_s": -1}},
            Code.BAD_REQUEST,
            "dwell_s",
        ),
        (
            {
                "id": 1,
                "type": "index_page",
                "page": {"url": "u", "passages": [{"text": "t"}] * (S.max_passages_per_page + 1)},
            },
            Code.BAD_REQUEST,
            f"at most {S.max_passages_per_page} allowed",
        ),
        ({"id": 1, "type": "page_info"}, Code.BAD_REQUEST, "url: missing"),
        ({"id": 1, "type": "page_info", "url": ""}, Code.BAD_REQUEST, "must not be empty"),
        ({"id": 1, "type": "list_profiles", "root": "/etc"}, Code.BAD_REQUEST, "unknown field"),
        ({"id": 1, "type": "forget"}, Code.BAD_REQUEST, "exactly one"),
        ({"id": 1, "type": "forget", "url": "u", "domain": "d"}, Code.BAD_REQUEST, "exactly one"),
        ({"id": 1, "type": "clear"}, Code.BAD_REQUEST, "confirm: missing"),
        ({"id": 1, "type": "clear", "confirm": False}, Code.BAD_REQUEST, "must be true"),
        ({"id": 1, "type": "clear", "confirm": "yes"}, Code.BAD_REQUEST, "true or false"),
        ({"id": 1, "type": "cancel", "target_id": {}}, Code.BAD_REQUEST, "request id"),
        (
            {"id": 1, "type": "build_context", "query": "q", "token_budget": 0},
            Code.BAD_REQUEST,
            "outside",
        ),
        (
            {"id": 1, "type": "set_settings", "settings": {"data_dir": "/etc"}},
            Code.BAD_REQUEST,
            "unknown field",
        ),
        (
            {"id": 1, "type": "set_settings", "settings": {"rrf_alpha": 2}},
            Code.BAD_REQUEST,
            "outside",
        ),
    ],
)
def test_refused_requests_say_why(obj, code, words):
    err = refused(obj)
    assert err.code == code
    assert words in err.message
    expected_id = obj.get("id") if framing.valid_id(obj.get("id")) else None
    assert err.req_id == expected_id


def test_settings_missing_vs_null():
    args = parse(
        {"id": 1, "type": "set_settings", "settings": {"rrf_alpha": 0.25, "default_limit": None}}
    ).args["settings"]
    assert args["rrf_alpha"] == 0.25
    assert args["default_limit"] is None  # null: back to the default
    assert args["mmr_lambda"] is schema.MISSING  # absent: unchanged


def test_settings_names_are_real_settings_fields():
    for name in settings_schema().fields:
        assert hasattr(S, name)




# ---- fuzz (bounded: a fixed number of examples, no deadline flakiness) -----------------------




@st.composite
def near_valid_requests(draw):
    """A valid request of a random type with some fields replaced by random JSON."""
    rtype = draw(st.sampled_from(sorted(VALID)))
    obj = {
        "id": draw(st.one_of(st.integers(0, 10), st.text(max_size=5), json_leaf)),
        "type": rtype,
        **json.loads(json.dumps(VALID[rtype])),
    }
    for key in draw(st.lists(st.sampled_from([*obj, "page", "passages", "junk"]), max_size=3)):
        target = obj["page"] if key == "passages" and "page" in obj else obj
        if isinstance(target, dict):
            target[key] = draw(json_value)
    return obj


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_valid_requests())
def test_fuzz_request_validation(obj):
    try:
        payload = json.dumps(obj).encode()
    except ValueError:
        return
    try:
        req = requests.parse_request(payload, schemas(S))
    except ProtocolError as exc:
        assert exc.code in {Code.BAD_JSON, Code.BAD_REQUEST, Code.UNKNOWN_TYPE}
        assert exc.message
    else:
        # Whatever passed has the checked types.
        assert framing.valid_id(req.id)
        for key, spec in schemas(S)[req.type].fields.items():
            value = req.args[key]
            if value is None or value is schema.MISSING:
                continue
            if isinstance(spec.spec, schema.Str):
                assert isinstance(value, str) and len(value) <= spec.spec.max_chars
            if isinstance(spec.spec, schema.Int):
                assert isinstance(value, int) and spec.spec.lo <= value <= spec.spec.hi
