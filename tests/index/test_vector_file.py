import numpy as np
from rewind.index import vector_file
from rewind.index.codes import Quantiser
from rewind.index.vector_file import Snapshot


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
