"""The real host over stdio, given what a browser should never send: malformed, oversized,
truncated frames and duplicate ids get an error, and the host goes on or exits cleanly."""

from __future__ import annotations

import struct

import pytest
from support.host_process import EXIT_S, MIB, frame_bytes, page

MALFORMED = {
    "bad_json": (b"{not json", "bad_json"),
    "not_an_object": (b"[1, 2, 3]", "bad_json"),
    "invalid_utf8": (b'{"id": 9, "type": "\xff"}', "bad_json"),
    "zero_length": (b"", "bad_json"),
    "unknown_type": (b'{"id": 5, "type": "rm -rf"}', "unknown_type"),
    "wrong_field_type": (b'{"id": 6, "type": "search", "query": ["a"]}', "bad_request"),
    "missing_id": (b'{"type": "stats"}', "bad_request"),
    "deep_nesting": (b"[" * 50_000 + b"]" * 50_000, "bad_json"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_frames_get_an_error_and_the_host_goes_on(start, name):
    payload, code = MALFORMED[name]
    h = start()
    h.hello()
    h.write(struct.pack("=I", len(payload)) + payload)
    err = h.next_frame()
    assert err["ok"] is False and err["done"] is True and err["error"]["code"] == code
    assert err["error"]["message"]
    assert err["id"] == {"unknown_type": 5, "wrong_field_type": 6, "invalid_utf8": 9}.get(name)
    assert h.ok("stats")["stats"]["pages"] == 0  # still serving


def test_100_mb_declared_length_is_refused_then_eof_exits(start):
    h = start()
    h.hello()
    h.write(struct.pack("=I", 100 * 1024 * 1024) + b'{"id": 77, "type": "index_page"')
    err = h.next_frame()
    assert err["id"] == 77 and err["error"]["code"] == "too_large"
    h.close_stdin()
    code, took = h.wait_exit()
    assert code == 0 and took < EXIT_S


def test_an_oversized_frame_is_skipped_and_the_stream_stays_in_sync(start):
    h = start()
    h.hello()
    big = b'{"id": "big", "type": "index_page", "x": "' + b"a" * (9 * MIB) + b'"}'
    h.write(struct.pack("=I", len(big)) + big + frame_bytes({"id": "after", "type": "stats"}))
    err = h.replies("big")[0]
    assert err["error"]["code"] == "too_large" and "skipped" in err["error"]["message"]
    assert h.replies("after")[0]["ok"]


def test_truncated_frame_then_eof_exits_cleanly(start):
    h = start()
    h.hello()
    h.write(struct.pack("=I", 500) + b'{"id": 3, "type": "sta')
    h.close_stdin()
    code, took = h.wait_exit()
    assert code == 0 and took < EXIT_S
    err = h.next_frame()
    assert err["id"] == 3 and err["error"]["code"] == "bad_frame"
    assert h.next_frame() is None


def test_truncated_header_exits_cleanly(start):
    h = start()
    h.write(b"\x10\x00")
    h.close_stdin()
    assert h.wait_exit()[0] == 0


def test_duplicate_id_in_flight_is_refused(start):
    h = start()
    h.hello()
    for i in range(10):
        h.send("index_page", page=page(i, "bulk", n=30, size=2000))
    h.write(frame_bytes({"id": "same", "type": "export"}) * 2)
    frames = h.replies("same")
    if frames[-1]["ok"]:  # the first export ended; the second must have been refused
        frames = h.replies("same")
    assert any(f.get("error", {}).get("code") == "bad_request" for f in frames)
