"""Frames on raw bytes (native/framing.py), and the frame decoder fuzzed as the host reads: no
process, no store."""

from __future__ import annotations

import io
import json
import struct
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from protocol_cases import (
    FUZZ,
    MIB,
    VALID,
    CountingReader,
    S,
    frame_of,
    hdr,
)
from rewind.errors import Code
from rewind.native import framing, requests
from rewind.native.framing import HEADER, Oversized, Truncated
from rewind.native.handlers import HANDLERS, schemas
from rewind.native.requests import ProtocolError

# ---- framing: raw-byte fixtures ------------------------------------------------------------


def test_header_is_native_endian_uint32():
    assert HEADER.size == 4
    assert framing.encode({"a": 1}, MIB)[:4] == struct.pack("=I", len(b'{"a":1}'))


def test_clean_eof_between_frames_is_none():
    assert framing.read_frame(io.BytesIO(b"").read, S.max_request_bytes) is None


@pytest.mark.parametrize("raw", [b"\x05", b"\x05\x00", b"\x05\x00\x00"])
def test_truncated_header(raw):
    with pytest.raises(Truncated):
        framing.read_frame(io.BytesIO(raw).read, S.max_request_bytes)


def test_length_larger_than_the_bytes_that_follow():
    raw = hdr(10) + b'{"id":7,'
    with pytest.raises(Truncated) as info:
        framing.read_frame(io.BytesIO(raw).read, S.max_request_bytes)
    assert info.value.id_hint == 7  # the error can still reach the request


def test_zero_length_frame_is_bad_json():
    payload = framing.read_frame(io.BytesIO(hdr(0)).read, S.max_request_bytes)
    assert payload == b""
    with pytest.raises(ProtocolError) as info:
        requests.parse_request(payload, schemas(S))
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
        requests.parse_request(payload, schemas(S))
    assert info.value.code == Code.BAD_JSON


def test_100_mb_declared_length_is_not_read():
    body = b'{"id":"big-1","type":"index_page"' + b" " * 1000
    reader = CountingReader(hdr(100 * 1024 * 1024) + body)
    got = framing.read_frame(reader.read, S.max_request_bytes)
    assert isinstance(got, Oversized)
    assert got.declared == 100 * 1024 * 1024
    assert got.id_hint == "big-1"
    assert reader.read_bytes <= HEADER.size + framing.ID_HINT_BYTES
    assert got.remaining == got.declared - framing.ID_HINT_BYTES


def test_oversized_frame_is_skipped_and_the_next_one_read():
    limit = 1000
    big = b'{"id":1}' + b" " * 5000
    stream = io.BytesIO(hdr(len(big)) + big + frame_of({"id": 2, "type": "stats"}))
    got = list(framing.frames(stream.read, limit))
    assert isinstance(got[0], Oversized) and got[0].id_hint == 1
    assert json.loads(got[1]) == {"id": 2, "type": "stats"}


def test_oversized_frame_then_eof_is_truncated():
    stream = io.BytesIO(hdr(5000) + b" " * 1000)
    with pytest.raises(Truncated):
        list(framing.frames(stream.read, 1000))


def test_several_frames_in_one_read():
    stream = io.BytesIO(frame_of({"id": 1}) + frame_of({"id": 2}))
    assert [json.loads(f)["id"] for f in framing.frames(stream.read, 100)] == [1, 2]


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
    assert framing.id_hint(prefix) == hint




# ---- fuzz (bounded: a fixed number of examples, no deadline flakiness) -----------------------




def decode_stream(data: bytes) -> None:
    """Reads and checks every frame of `data` the way the host does; only defined errors."""
    small = replace(S, max_request_bytes=512)
    stream = io.BytesIO(data)
    try:
        for got in framing.frames(stream.read, small.max_request_bytes):
            if isinstance(got, Oversized):
                assert got.declared > small.max_request_bytes
                continue
            assert len(got) <= small.max_request_bytes
            try:
                req = requests.parse_request(got, schemas(small))
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

