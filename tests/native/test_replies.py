"""Reply envelopes and paging under the frame limit (native/replies.py), on bytes."""

from __future__ import annotations

import json

import pytest
from protocol_cases import (
    MIB,
)
from rewind.errors import Code
from rewind.native import framing
from rewind.native.framing import HEADER
from rewind.native.replies import (
    MAX_ERROR_MESSAGE_CHARS,
    ListPacker,
    error_reply,
    pack_list,
    split_page,
)

# ---- replies and paging ------------------------------------------------------------------------


def test_encode_refuses_a_frame_over_the_limit():
    body = {"x": "a" * (MIB - 10)}  # 4 + len(b'{"x":""}') + MIB - 10 = MIB + 2
    with pytest.raises(framing.FrameTooLarge):
        framing.encode(body, MIB)


def test_limit_is_exact_including_the_header():
    def sized(n):  # a frame of exactly n bytes, header included
        return framing.encode({"x": "a" * (n - HEADER.size - len(b'{"x":""}'))}, 10**9)

    assert len(sized(MIB)) == MIB
    assert framing.encode(json.loads(sized(MIB)[4:]), MIB)
    with pytest.raises(framing.FrameTooLarge):
        framing.encode(json.loads(sized(MIB + 1)[4:]), MIB)


def test_dumps_refuses_nan_and_replaces_lone_surrogates():
    with pytest.raises(ValueError):
        framing.dumps({"x": float("nan")})
    assert json.loads(framing.dumps({"t": "a\ud800b"})) == {"t": "a?b"}


def test_error_reply_envelope_and_message_cap():
    r = error_reply(3, Code.BAD_REQUEST, "x" * 10_000)
    assert r["id"] == 3 and r["ok"] is False and r["done"] is True
    assert r["error"]["code"] == "bad_request"
    assert len(r["error"]["message"]) == MAX_ERROR_MESSAGE_CHARS


def frames_decode(frames: list[bytes]) -> list[dict]:
    out = []
    for f in frames:
        (n,) = HEADER.unpack(f[:4])
        assert n == len(f) - 4
        out.append(json.loads(f[4:]))
    return out


def test_pack_list_fits_small_lists_in_one_frame():
    frames = pack_list(9, "results", [{"a": 1}, {"b": 2}], MIB, took_ms=1.5)
    assert frames_decode(frames) == [
        {"id": 9, "ok": True, "done": True, "took_ms": 1.5, "results": [{"a": 1}, {"b": 2}]}
    ]


def test_5_mb_of_items_become_frames_under_1_mib():
    items = [{"url": f"https://e.org/{i}", "text": "ü" * 20_000} for i in range(130)]
    frames = pack_list("e", "pages", items, MIB, count=130)
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
            assert len(f) + len(framing.dumps(r["pages"][0])) + 1 > MIB


def test_final_fields_that_do_not_fit_get_their_own_frame():
    packer = ListPacker(1, "pages", 200)
    frames = []
    for i in range(3):
        frames += packer.add({"n": "x" * 40 + str(i)})
    frames += packer.finish(note="y" * 60)
    replies = frames_decode(frames)
    assert all(len(f) <= 200 for f in frames)
    assert replies[-1]["note"] == "y" * 60 and replies[-1]["done"] is True
    assert len([p for r in replies for p in r["pages"]]) == 3


def test_an_item_too_big_for_any_frame_is_refused_without_a_splitter():
    with pytest.raises(framing.FrameTooLarge):
        pack_list(1, "results", [{"t": "x" * 2000}], 1000)


def test_split_page_keeps_every_passage_in_order():
    page = {
        "url": "https://e.org/",
        "title": "T",
        "passages": [{"text": f"{i} " + "w" * 300, "position": i} for i in range(40)],
    }
    packer = ListPacker(1, "pages", 2000, split=split_page)
    frames = packer.add(page) + packer.finish(pages_total=1)
    assert all(len(f) <= 2000 for f in frames)
    parts = [p for r in frames_decode(frames) for p in r["pages"]]
    assert parts[0]["title"] == "T" and "continued" not in parts[0]
    assert all(p["continued"] is True and p["url"] == page["url"] for p in parts[1:])
    assert [x for p in parts for x in p["passages"]] == page["passages"]
