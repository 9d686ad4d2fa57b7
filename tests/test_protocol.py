"""Framing, request checks and paging, on raw bytes (protocol.py); no process, no store."""

from __future__ import annotations

import io
import json
import struct
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rewind import protocol
from rewind.config import Settings
from rewind.errors import Code
from rewind.handlers import HANDLERS
from rewind.protocol import HEADER, Oversized, ProtocolError, Truncated

S = Settings()
MIB = 1_048_576


def hdr(n: int) -> bytes:
    return struct.pack("=I", n)


def frame_of(obj) -> bytes:
    data = json.dumps(obj).encode()
    return hdr(len(data)) + data


class CountingReader:
    """A stream that says how much of it was read (an oversized frame must not be)."""

    def __init__(self, data: bytes) -> None:
        self.buf = io.BytesIO(data)
        self.read_bytes = 0

    def read(self, n: int) -> bytes:
        got = self.buf.read(n)
        self.read_bytes += len(got)
        return got


def parse(obj) -> protocol.Request:
    return protocol.parse_request(json.dumps(obj).encode(), S)


def refused(obj) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        parse(obj)
    return info.value


# ---- framing: raw-byte fixtures ------------------------------------------------------------


def test_header_is_native_endian_uint32():
    assert HEADER.size == 4
    assert protocol.encode({"a": 1}, MIB)[:4] == struct.pack("=I", len(b'{"a":1}'))


def test_clean_eof_between_frames_is_none():
    assert protocol.read_frame(io.BytesIO(b"").read, S.max_request_bytes) is None


@pytest.mark.parametrize("raw", [b"\x05", b"\x05\x00", b"\x05\x00\x00"])
def test_truncated_header(raw):
    with pytest.raises(Truncated):
        protocol.read_frame(io.BytesIO(raw).read, S.max_request_bytes)


def test_length_larger_than_the_bytes_that_follow():
    raw = hdr(10) + b'{"id":7,'
    with pytest.raises(Truncated) as info:
        protocol.read_frame(io.BytesIO(raw).read, S.max_request_bytes)
    assert info.value.id_hint == 7  # the error can still reach the request


def test_zero_length_frame_is_bad_json():
    payload = protocol.read_frame(io.BytesIO(hdr(0)).read, S.max_request_bytes)
    assert payload == b""
    with pytest.raises(ProtocolError) as info:
        protocol.parse_request(payload, S)
    assert info.value.code == Code.BAD_JSON
    assert "empty" in info.value.message


@pytest.mark.parametrize(
    "payload",
    [
        b"{not json",
        b"\xff\xfe{}",
        b"[1,2]",
        b"42",
        b"null",
        b'{"id":1,"type":"stats","x":NaN}',
        b"[" * 100_000,
    ],
)
def test_bad_json(payload):
    with pytest.raises(ProtocolError) as info:
        protocol.parse_request(payload, S)
    assert info.value.code == Code.BAD_JSON


def test_100_mb_declared_length_is_not_read():
    body = b'{"id":"big-1","type":"index_page"' + b" " * 1000
    reader = CountingReader(hdr(100 * 1024 * 1024) + body)
    got = protocol.read_frame(reader.read, S.max_request_bytes)
    assert isinstance(got, Oversized)
    assert got.declared == 100 * 1024 * 1024
    assert got.id_hint == "big-1"
    assert reader.read_bytes <= HEADER.size + protocol.ID_HINT_BYTES
    assert got.remaining == got.declared - protocol.ID_HINT_BYTES


def test_oversized_frame_is_skipped_and_the_next_one_read():
    limit = 1000
    big = b'{"id":1}' + b" " * 5000
    stream = io.BytesIO(hdr(len(big)) + big + frame_of({"id": 2, "type": "stats"}))
    got = list(protocol.iter_frames(stream.read, limit))
    assert isinstance(got[0], Oversized) and got[0].id_hint == 1
    assert json.loads(got[1]) == {"id": 2, "type": "stats"}


def test_oversized_frame_then_eof_is_truncated():
    stream = io.BytesIO(hdr(5000) + b" " * 1000)
    with pytest.raises(Truncated):
        list(protocol.iter_frames(stream.read, 1000))


def test_several_frames_in_one_read():
    stream = io.BytesIO(frame_of({"id": 1}) + frame_of({"id": 2}))
    assert [json.loads(f)["id"] for f in protocol.iter_frames(stream.read, 100)] == [1, 2]


@pytest.mark.parametrize(
    "prefix,hint",
    [
        (b'{"id": 12, "type"', 12),
        (b' { "id" : "a-b" }', "a-b"),
        (b'{"type":"x","id":1}', None),
        (b'{"id":-1}', None),
        (b'{"id":true}', None),
        (b"garbage", None),
        (b'{"id":"a\\"b"}', None),
    ],
)
def test_id_hint(prefix, hint):
    assert protocol.id_hint(prefix) == hint


# ---- requests --------------------------------------------------------------------------------

VALID = {
    "hello": {"protocol": 1, "profile": "work-1"},
    "index_page": {
        "page": {
            "url": "https://example.org/a",
            "title": "A",
            "content_hash": "abc",
            "passages": [{"text": "some words here to index", "position": 0, "quality": 0.7}],
            "visited_at": 1.7e9,
            "dwell_s": 12.5,
        }
    },
    "record_visit": {"url": "https://example.org/a", "visited_at": 1.7e9, "dwell_s": 3},
    "search": {
        "query": "pruning graph",
        "mode": "keyword",
        "limit": 5,
        "since": 0,
        "until": 2e9,
        "domain": "example.org",
    },
    "ask": {"question": "what?", "page_text": "current tab"},
    "cancel": {"target_id": 4},
    "build_context": {"query": "q", "raw_context": "r", "token_budget": 800},
    "stats": {},
    "list_profiles": {},
    "page_info": {"url": "https://example.org/a"},
    "list_pages": {"offset": 0, "limit": 20},
    "export": {},
    "forget": {"domain": "example.org"},
    "clear": {"confirm": True},
    "get_settings": {},
    "set_settings": {"settings": {"rrf_alpha": 0.5, "default_limit": None}},
}


def test_every_handler_has_a_schema_and_an_example():
    assert set(HANDLERS) == set(protocol.schemas(S)) == set(VALID)


@pytest.mark.parametrize("rtype", sorted(VALID))
def test_valid_requests_parse(rtype):
    req = parse({"id": 1, "type": rtype, **VALID[rtype]})
    assert req.type == rtype and req.id == 1


def test_defaults_are_filled_in():
    req = parse({"id": "x", "type": "search", "query": "q"})
    assert req.args == {
        "query": "q",
        "mode": None,
        "limit": None,
        "since": None,
        "until": None,
        "domain": None,
    }
    assert parse({"id": 1, "type": "hello"}).args["profile"] == "default"
    assert parse({"id": 1, "type": "list_pages"}).args == {"offset": 0, "limit": 50}


def test_a_page_may_send_exactly_the_passages_and_characters_the_extension_cuts_to():
    """One number each, from Settings: what hello's `capture` tells the extension to cut to
    is exactly what index_page accepts (the title passage counts among the passages)."""
    passages = [{"text": "w" * S.max_passage_chars}] * S.max_passages_per_page
    page = {"url": "https://a.b/", "passages": passages}
    req = parse({"id": 1, "type": "index_page", "page": page})
    assert len(req.args["page"]["passages"]) == S.max_passages_per_page


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
                    "passages": [{"text": "t" * (S.max_passage_chars + 1)}],
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
    expected_id = obj.get("id") if protocol.valid_id(obj.get("id")) else None
    assert err.req_id == expected_id


def test_settings_missing_vs_null():
    args = parse(
        {"id": 1, "type": "set_settings", "settings": {"rrf_alpha": 0.25, "default_limit": None}}
    ).args["settings"]
    assert args["rrf_alpha"] == 0.25
    assert args["default_limit"] is None  # null: back to the default
    assert args["mmr_lambda"] is protocol.MISSING  # absent: unchanged


def test_settings_names_are_real_settings_fields():
    for name in protocol.settings_schema(S).fields:
        assert hasattr(S, name)


# ---- replies and paging ------------------------------------------------------------------------


def test_encode_refuses_a_frame_over_the_limit():
    body = {"x": "a" * (MIB - 10)}  # 4 + len(b'{"x":""}') + MIB - 10 = MIB + 2
    with pytest.raises(protocol.FrameTooLarge):
        protocol.encode(body, MIB)


def test_limit_is_exact_including_the_header():
    def sized(n):  # a frame of exactly n bytes, header included
        return protocol.encode({"x": "a" * (n - HEADER.size - len(b'{"x":""}'))}, 10**9)

    assert len(sized(MIB)) == MIB
    assert protocol.encode(json.loads(sized(MIB)[4:]), MIB)
    with pytest.raises(protocol.FrameTooLarge):
        protocol.encode(json.loads(sized(MIB + 1)[4:]), MIB)


def test_dumps_refuses_nan_and_replaces_lone_surrogates():
    with pytest.raises(ValueError):
        protocol.dumps({"x": float("nan")})
    assert json.loads(protocol.dumps({"t": "a\ud800b"})) == {"t": "a?b"}


def test_error_reply_envelope_and_message_cap():
    r = protocol.error_reply(3, Code.BAD_REQUEST, "x" * 10_000)
    assert r["id"] == 3 and r["ok"] is False and r["done"] is True
    assert r["error"]["code"] == "bad_request"
    assert len(r["error"]["message"]) == protocol.MAX_ERROR_MESSAGE_CHARS


def frames_decode(frames: list[bytes]) -> list[dict]:
    out = []
    for f in frames:
        (n,) = HEADER.unpack(f[:4])
        assert n == len(f) - 4
        out.append(json.loads(f[4:]))
    return out


def test_pack_list_fits_small_lists_in_one_frame():
    frames = protocol.pack_list(9, "results", [{"a": 1}, {"b": 2}], MIB, took_ms=1.5)
    assert frames_decode(frames) == [
        {"id": 9, "ok": True, "done": True, "took_ms": 1.5, "results": [{"a": 1}, {"b": 2}]}
    ]


def test_5_mb_of_items_become_frames_under_1_mib():
    items = [{"url": f"https://e.org/{i}", "text": "ü" * 20_000} for i in range(130)]
    frames = protocol.pack_list("e", "pages", items, MIB, count=130)
    assert sum(len(f) for f in frames) > 5_000_000
    assert len(frames) >= 5
    assert all(len(f) <= MIB for f in frames)
    replies = frames_decode(frames)
    assert [r["done"] for r in replies] == [False] * (len(replies) - 1) + [True]
    assert replies[-1]["count"] == 130
    assert [p for r in replies for p in r["pages"]] == items
    # Packed tightly: each full frame has no room for the next item.
    for f, r in zip(frames[:-1], replies[1:], strict=False):
        if r["pages"]:
            assert len(f) + len(protocol.dumps(r["pages"][0])) + 1 > MIB


def test_final_fields_that_do_not_fit_get_their_own_frame():
    packer = protocol.ListPacker(1, "pages", 200)
    frames = []
    for i in range(3):
        frames += packer.add({"n": "x" * 40 + str(i)})
    frames += packer.finish(note="y" * 60)
    replies = frames_decode(frames)
    assert all(len(f) <= 200 for f in frames)
    assert replies[-1]["note"] == "y" * 60 and replies[-1]["done"] is True
    assert len([p for r in replies for p in r["pages"]]) == 3


def test_an_item_too_big_for_any_frame_is_refused_without_a_splitter():
    with pytest.raises(protocol.FrameTooLarge):
        protocol.pack_list(1, "results", [{"t": "x" * 2000}], 1000)


def test_split_page_keeps_every_passage_in_order():
    page = {
        "url": "https://e.org/",
        "title": "T",
        "passages": [{"text": f"{i} " + "w" * 300, "position": i} for i in range(40)],
    }
    packer = protocol.ListPacker(1, "pages", 2000, split=protocol.split_page)
    frames = packer.add(page) + packer.finish(pages_total=1)
    assert all(len(f) <= 2000 for f in frames)
    parts = [p for r in frames_decode(frames) for p in r["pages"]]
    assert parts[0]["title"] == "T" and "continued" not in parts[0]
    assert all(p["continued"] is True and p["url"] == page["url"] for p in parts[1:])
    assert [x for p in parts for x in p["passages"]] == page["passages"]


# ---- fuzz (bounded: a fixed number of examples, no deadline flakiness) -----------------------


FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def decode_stream(data: bytes) -> None:
    """Reads and checks every frame of `data` the way the host does; only defined errors."""
    small = replace(S, max_request_bytes=512)
    stream = io.BytesIO(data)
    try:
        for got in protocol.iter_frames(stream.read, small.max_request_bytes):
            if isinstance(got, Oversized):
                assert got.declared > small.max_request_bytes
                continue
            assert len(got) <= small.max_request_bytes
            try:
                req = protocol.parse_request(got, small)
            except ProtocolError as exc:
                assert exc.code in {Code.BAD_JSON, Code.BAD_REQUEST, Code.UNKNOWN_TYPE}
            else:
                assert req.type in HANDLERS
    except Truncated:
        pass


@st.composite
def mangled_streams(draw):
    """Real frames of real requests, with lengths off by a little and bytes flipped."""
    out = b""
    for _ in range(draw(st.integers(1, 4))):
        rtype = draw(st.sampled_from(sorted(VALID)))
        data = json.dumps({"id": 1, "type": rtype, **VALID[rtype]}).encode()
        if draw(st.booleans()):
            i = draw(st.integers(0, len(data) - 1))
            data = data[:i] + bytes([draw(st.integers(0, 255))]) + data[i + 1 :]
        out += hdr(max(0, len(data) + draw(st.integers(-3, 3)))) + data
    return out


@FUZZ
@given(st.one_of(st.binary(max_size=2048), mangled_streams()))
def test_fuzz_frame_decoder(data):
    decode_stream(data)


json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False),
    st.text(max_size=30),
)
json_value = st.recursive(
    json_leaf,
    lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=10), kids, max_size=4)
    ),
    max_leaves=12,
)


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
        req = protocol.parse_request(payload, S)
    except ProtocolError as exc:
        assert exc.code in {Code.BAD_JSON, Code.BAD_REQUEST, Code.UNKNOWN_TYPE}
        assert exc.message
    else:
        # Whatever passed has the checked types.
        assert protocol.valid_id(req.id)
        for key, spec in protocol.schemas(S)[req.type].fields.items():
            value = req.args[key]
            if value is None or value is protocol.MISSING:
                continue
            if isinstance(spec.spec, protocol.Str):
                assert isinstance(value, str) and len(value) <= spec.spec.max_chars
            if isinstance(spec.spec, protocol.Int):
                assert isinstance(value, int) and spec.spec.lo <= value <= spec.spec.hi
