"""The backup file format (control/backup.py): what it holds, and every way a file can be
wrong told apart and refused before anything is read into a store."""

import io
import json

import msgpack
import pytest
from rewind.control import backup
from rewind.errors import Code, RewindError

PAGE = {"t": "page", "url": "https://a.example/", "domain": "a.example", "title": "A",
        "source": "browser", "metadata": {}, "content_hash": "x", "first_visit": 1.0,
        "last_visit": 2.0, "visit_count": 2, "dwell_s": 3.0, "indexed_at": 2.5,
        "passages": [["a passage of words", 0, 0, 18, 0.5, False, b"\x00" * 8]]}


def make(n_pages=30, passphrase=None, segment=512, end=True) -> bytes:
    w = backup.Writer("model@4", passphrase, segment)
    out = [w.start()]
    for i in range(n_pages):
        out += list(w.add({**PAGE, "url": f"https://a.example/{i}"}))
    if end:
        out += list(w.add({"t": "end", "pages": n_pages}))
    out.append(w.finish())
    return b"".join(out)


def read(data: bytes, passphrase=None) -> list[dict]:
    backup.verify(io.BytesIO(data), passphrase)
    return list(backup.records(io.BytesIO(data), passphrase)[1])


def refused(data: bytes, passphrase=None) -> RewindError:
    with pytest.raises(RewindError) as err:
        read(data, passphrase)
    assert err.value.code == Code.BAD_INPUT
    return err.value


def test_round_trip_plain_and_with_passphrase():
    for pw in (None, "correct horse"):
        data = make(passphrase=pw)
        recs = read(data, pw)
        assert [r["url"] for r in recs] == [f"https://a.example/{i}" for i in range(30)]
        assert recs[0]["passages"][0][6] == b"\x00" * 8
        head = backup.read_header(io.BytesIO(data))[0]
        assert head.model_id == "model@4" and head.encrypted is bool(pw)
    assert b"a passage of words" in make()
    assert b"a passage of words" not in make(passphrase="pw")


def test_every_cut_is_refused():
    data = make()
    for cut in (5, 12, len(data) // 3, len(data) // 2, len(data) - 1):
        err = refused(data[:cut])
        assert "cut short" in err.message or "not a Rewind backup" in err.message, cut


def test_damage_anywhere_is_refused():
    data = make()
    for pos in range(len(backup.MAGIC) + 10, len(data), len(data) // 17):
        bad = bytearray(data)
        bad[pos] ^= 0x40
        refused(bytes(bad))


def test_passphrase_needed_wrong_or_damaged():
    data = make(passphrase="right")
    with pytest.raises(RewindError) as err:
        read(data)
    assert "passphrase" in err.value.message
    with pytest.raises(RewindError) as err:
        read(data, "wrong")
    assert "passphrase does not open" in err.value.message


def test_foreign_newer_and_incomplete_files():
    assert "not a Rewind backup" in refused(b"PK\x03\x04 a zip file, say" * 10).message
    head = msgpack.packb({"format": backup.FORMAT, "version": backup.VERSION + 1})
    newer = backup.MAGIC + len(head).to_bytes(4, "big") + head
    err = refused(newer)
    assert "newer Rewind" in err.message and "Update" in err.hint
    assert "end record" in refused(make(end=False)).message
    w = backup.Writer(None)
    lying = w.start() + b"".join(w.add({"t": "end", "pages": 3})) + w.finish()
    assert "count" in refused(lying).message


def test_reordered_segments_are_refused():
    data = make(segment=256)
    start = len(backup.MAGIC) + 4 + int.from_bytes(data[8:12], "big")
    segs, pos = [], start
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        segs.append(data[pos:pos + 4 + n])
        pos += 4 + n
    assert len(segs) > 3
    swapped = data[:start] + segs[1] + segs[0] + b"".join(segs[2:])
    assert "out of order" in refused(swapped).message


def test_portable_export_checks():
    good = {"format": "rewind-export", "version": 1, "pages_total": 1,
            "pages": [{"url": "https://a.example/", "passages": [{"text": "words"}]}]}
    assert backup.read_export(io.BytesIO(json.dumps(good).encode()))[0]["url"]
    for bad, words in [(json.dumps(good)[:-20], "not complete JSON"),
                       (json.dumps({**good, "format": "other"}), "not a Rewind export"),
                       (json.dumps({**good, "version": 9}), "newer Rewind"),
                       (json.dumps({**good, "pages_total": 5}), "holds 1"),
                       (json.dumps({**good, "pages": [{"url": 3}]}), "incomplete")]:
        with pytest.raises(RewindError) as err:
            backup.read_export(io.BytesIO(bad.encode()))
        assert words in err.value.message
