import numpy as np
import pytest
from rewind.index.crypto.cipher import FieldCipher, new_key
from rewind.index.derived import vector_file
from rewind.index.derived.codes import Quantiser
from rewind.index.derived.vector_file import Snapshot


def snapshot(n=5, dim=8, bits=8):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, dim)).astype(np.float32)
    q = Quantiser.fit(x, dim, bits)
    return Snapshot("m@8", dim, bits, "store1", 42, q, np.arange(n, dtype=np.int64) + 10,
                    np.arange(n, dtype=np.int64) // 2, q.codes(x), q.int8(x))


def test_round_trip_memory_mapped(tmp_path):
    snap = snapshot()
    path = tmp_path / "v" / "m.rvec"
    vector_file.write(path, snap)
    back = vector_file.read(path, "m@8", 8, 8, "store1")
    assert back.seq == 42 and back.store_id == "store1" and len(back) == 5
    assert isinstance(back.codes.base, np.memmap) and not back.codes.flags.writeable
    for name in ("passage_ids", "page_ids", "codes", "int8"):
        np.testing.assert_array_equal(getattr(back, name), getattr(snap, name))
    np.testing.assert_array_equal(back.quantiser.rotation, snap.quantiser.rotation)
    assert not list(path.parent.glob(".*.tmp"))


def test_empty_snapshot(tmp_path):
    snap = snapshot(n=0)
    vector_file.write(tmp_path / "e.rvec", snap)
    assert len(vector_file.read(tmp_path / "e.rvec", "m@8", 8, 8, "store1")) == 0


def test_absent_damaged_or_foreign_is_none(tmp_path):
    path = tmp_path / "m.rvec"
    assert vector_file.read(path, "m@8", 8, 8, "store1") is None
    vector_file.write(path, snapshot())
    assert vector_file.read(path, "other@8", 8, 8, "store1") is None  # another model
    assert vector_file.read(path, "m@8", 8, 8, "store2") is None  # another store
    assert vector_file.read(path, "m@8", 8, 4, "store1") is None  # other code bits
    path.write_bytes(path.read_bytes()[:-100])  # cut short
    assert vector_file.read(path, "m@8", 8, 8, "store1") is None
    path.write_bytes(b"not a snapshot at all")
    assert vector_file.read(path, "m@8", 8, 8, "store1") is None


def test_sealed_round_trip_in_memory_and_only_with_its_key(tmp_path, monkeypatch):
    monkeypatch.setattr(vector_file, "_BLOCK", 256)  # several blocks
    snap, key = snapshot(n=40), FieldCipher(new_key(), "k1")
    path = tmp_path / "m.rvec"
    vector_file.write(path, snap, key)
    raw = path.read_bytes()
    assert raw[:8] == vector_file.SEALED_MAGIC
    assert snap.int8.tobytes()[:64] not in raw and snap.passage_ids.tobytes() not in raw
    back = vector_file.read(path, "m@8", 8, 8, "store1", key)
    assert back.seq == 42 and len(back) == 40 and not isinstance(back.codes.base, np.memmap)
    for name in ("passage_ids", "page_ids", "codes", "int8"):
        np.testing.assert_array_equal(getattr(back, name), getattr(snap, name))
    assert vector_file.read(path, "m@8", 8, 8, "store1") is None  # not without the key
    assert vector_file.read(path, "m@8", 8, 8, "store1", FieldCipher(new_key(), "k2")) is None
    # blocks swapped: each block's number is bound in, so the file does not open
    blocks, at = [], 8
    while at < len(raw):
        n = int.from_bytes(raw[at:at + 8], "little")
        blocks.append(raw[at:at + 8 + n])
        at += 8 + n
    assert len(blocks) > 2
    path.write_bytes(raw[:8] + blocks[1] + blocks[0] + b"".join(blocks[2:]))
    assert vector_file.read(path, "m@8", 8, 8, "store1", key) is None
    # a plain snapshot is not taken for a sealed one
    vector_file.write(path, snap)
    assert vector_file.read(path, "m@8", 8, 8, "store1", key) is None


@pytest.mark.parametrize("sealed", [False, True])
def test_dropping_pages_zeroes_their_rows_in_place_and_nothing_else(tmp_path, monkeypatch,
                                                                    sealed):
    monkeypatch.setattr(vector_file, "_BLOCK", 200)  # rows and code words cross blocks
    snap, key = snapshot(n=40), FieldCipher(new_key(), "k1") if sealed else None
    path = tmp_path / "m.rvec"
    vector_file.write(path, snap, key)
    inode, size = path.stat().st_ino, path.stat().st_size
    vector_file.drop_pages(path, [3, 7, 19, 999], key)  # 999: not in it
    assert (path.stat().st_ino, path.stat().st_size) == (inode, size)  # rewritten in place
    back = vector_file.load(path, key)
    gone = np.isin(snap.page_ids, [3, 7, 19])
    assert gone.sum() == 6
    assert not back.int8[gone].any() and not back.codes[:, gone].any()
    np.testing.assert_array_equal(back.int8[~gone], snap.int8[~gone])
    np.testing.assert_array_equal(back.codes[:, ~gone], snap.codes[:, ~gone])
    for name in ("passage_ids", "page_ids"):  # ids and sequence stay: tombstones follow them
        np.testing.assert_array_equal(getattr(back, name), getattr(snap, name))
    assert back.seq == snap.seq


def test_dropping_from_a_file_that_does_not_read_removes_it(tmp_path):
    path = tmp_path / "m.rvec"
    vector_file.write(path, snapshot(n=40), FieldCipher(new_key(), "k1"))
    vector_file.drop_pages(path, [3], FieldCipher(new_key(), "k2"))  # not its key
    assert not path.exists()
    path.write_bytes(b"RWVECSE1" + (10**9).to_bytes(8, "little"))  # a block past the end
    vector_file.drop_pages(path, [3], FieldCipher(new_key(), "k1"))
    assert not path.exists()
    vector_file.drop_pages(path, [3])  # absent: nothing to do
    assert not path.exists()
