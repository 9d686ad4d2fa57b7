import subprocess
import sys

import numpy as np
import pytest
from rewind.index.derived import vectors as vectors_mod
from rewind.index.derived.vectors import VectorIndex
from rewind.index.store.store import Store
from support.vector_data import DIM, add, exact_top, unit


@pytest.fixture
def filled(tmp_path):
    rng = np.random.default_rng(1)
    store = Store(tmp_path / "r.db")
    for i in range(100):
        add(store, f"https://x/{i}", unit(rng, 20))  # 2,000 passages
    return store, rng


def test_quantised_top_k_equals_exact_where_the_margin_allows(filled, tmp_path):
    store, rng = filled
    # Small candidate pools, so the coarse stages really choose (2,000 rows -> 200 -> 20).
    index = VectorIndex("m@64", DIM, tmp_path / "vec", candidates=200, rescore=20)
    index.refresh(store)
    pids, _pages, mat = store.vectors_of(None, "m@64")
    for target in rng.choice(len(pids), 30, replace=False):
        q = mat[target] + 0.3 * unit(rng, 1)[0]  # a query near one passage: a clear winner
        q /= np.linalg.norm(q)
        want, want_scores = exact_top(store, q, 5)
        hits = index.search(q, 5)
        margin = want_scores[0] - want_scores[1]
        assert hits[0].passage_id == want[0] or margin < 1e-3
        # similarities are exact cosines with the stored vectors, whatever the stage chose
        for h in hits:
            row = mat[pids.tolist().index(h.passage_id)]
            assert h.similarity == pytest.approx(float(row @ q), abs=1e-6)


def test_recall_on_random_data(filled, tmp_path):
    store, rng = filled
    index = VectorIndex("m@64", DIM, tmp_path / "vec", candidates=600, rescore=40)
    no_int8_cut = VectorIndex("m@64", DIM, None, candidates=600, rescore=600)
    index.refresh(store)
    no_int8_cut.refresh(store)
    recalls = []
    for q in unit(rng, 50):
        want, _ = exact_top(store, q, 10)
        got = [h.passage_id for h in index.search(q, 10)]
        recalls.append(len(set(got) & set(want)) / 10)
        # the int8 stage (600 -> 40) loses nothing the Hamming stage kept
        assert got == [h.passage_id for h in no_int8_cut.search(q, 10)]
    # Random vectors are the hard case for 1-bit codes (no structure, and only 64 bits
    # here): a 30% pool finds most of the true top 10, a 10% pool clearly fewer.
    assert np.mean(recalls) >= 0.9, np.mean(recalls)
    small = VectorIndex("m@64", DIM, None, candidates=200, rescore=40)
    small.refresh(store)
    small_recall = np.mean([len({h.passage_id for h in small.search(q, 10)}
                                & set(exact_top(store, q, 10)[0])) / 10 for q in unit(rng, 50)])
    assert small_recall < np.mean(recalls)


def test_the_bit_score_stage_keeps_the_neighbours_hamming_found(filled, tmp_path):
    store, rng = filled
    index = VectorIndex("m@64", DIM, tmp_path / "vec", candidates=600, refine=300, rescore=40)
    without = VectorIndex("m@64", DIM, None, candidates=600, refine=600, rescore=40)
    index.refresh(store)
    without.refresh(store)
    add(store, "https://x/late", unit(rng, 20))  # after the snapshot: rows of the delta
    index.refresh(store)
    without.refresh(store)
    assert len(index._view.extra_pids) == 20
    pids, _pages, mat = store.vectors_of(None, "m@64")
    recalls, kept = [], []
    for q in unit(rng, 50):
        want, _ = exact_top(store, q, 10)
        recalls.append(len({h.passage_id for h in index.search(q, 10)} & set(want)) / 10)
        kept.append(len({h.passage_id for h in without.search(q, 10)} & set(want)) / 10)
    # random 64-dim vectors, the hard case: halving the pool by bit scores loses little
    assert np.mean(recalls) >= np.mean(kept) - 0.02, (np.mean(recalls), np.mean(kept))
    for row in range(len(pids) - 20, len(pids)):  # a query at a delta row finds it first
        q = mat[row] + 0.2 * unit(rng, 1)[0]
        assert index.search(q / np.linalg.norm(q), 3)[0].passage_id == pids[row]


def test_pool_covering_everything_is_exact(filled, tmp_path):
    store, rng = filled
    index = VectorIndex("m@64", DIM, None, candidates=5000, rescore=5000)
    index.refresh(store)
    for q in unit(rng, 10):
        want, scores = exact_top(store, q, 10)
        assert [h.passage_id for h in index.search(q, 10)] == want


def test_incremental_refresh_equals_full_load(tmp_path):
    rng = np.random.default_rng(2)
    store = Store(tmp_path / "r.db")
    ids = [add(store, f"https://x/{i}", unit(rng, 3))[0] for i in range(30)]
    index = VectorIndex("m@64", DIM, tmp_path / "vec")
    index.refresh(store)
    store.delete_pages(ids[:2])
    add(store, "https://x/5", unit(rng, 4))  # replaced content
    add(store, "https://x/new", unit(rng, 2))
    index.refresh(store)
    full = VectorIndex("m@64", DIM, None)
    full.refresh(store)
    assert sorted(index.passage_ids.tolist()) == sorted(full.passage_ids.tolist())
    assert sorted(index.passage_ids.tolist()) == sorted(store.passage_ids())
    q = unit(rng, 1)[0]
    assert [h.passage_id for h in index.search(q, 7)] == [h.passage_id for h in full.search(q, 7)]
    assert [h.passage_id for h in index.search(q, 7)] == exact_top(store, q, 7)[0]


def test_a_refresh_that_only_forgets_a_page(tmp_path):
    """A change that leaves no vectors (a page forgotten) is caught up, not a crash."""
    rng = np.random.default_rng(3)
    store = Store(tmp_path / "r.db")
    ids = [add(store, f"https://x/{i}", unit(rng, 3))[0] for i in range(30)]
    index = VectorIndex("m@64", DIM, tmp_path / "vec")
    index.refresh(store)
    store.delete_pages(ids[:1])
    index.refresh(store)
    q = unit(rng, 1)[0]
    assert [h.passage_id for h in index.search(q, 7)] == exact_top(store, q, 7)[0]


@pytest.mark.parametrize("sealed", [False, True])
def test_rows_a_forget_zeroed_on_disk_are_dead_in_the_next_process(tmp_path, sealed):
    """A forget zeroes the page's rows in the snapshot but keeps its ids and sequence: the
    next index to open it learns from the store's tombstones that they are gone."""
    from rewind.index.crypto.cipher import FieldCipher, new_key
    from rewind.index.derived import vector_file
    rng = np.random.default_rng(4)
    store = Store(tmp_path / "r.db")
    key = FieldCipher(new_key(), "k") if sealed else None
    ids = [add(store, f"https://x/{i}", unit(rng, 3))[0] for i in range(30)]
    first = VectorIndex("m@64", DIM, tmp_path / "vec", cipher=key)
    first.refresh(store)
    store.delete_pages(ids[:2])
    vector_file.drop_pages(first.path, ids[:2], key)
    on_disk = vector_file.load(first.path, key)
    assert len(on_disk) == 90 and np.count_nonzero(~on_disk.int8.any(axis=1)) == 6
    inode = first.path.stat().st_ino
    later = VectorIndex("m@64", DIM, tmp_path / "vec", cipher=key)
    later.refresh(store)
    assert first.path.stat().st_ino == inode  # caught up from that file, not rebuilt
    alive = set(store.vectors_of(None, "m@64")[0].tolist())
    assert set(later.passage_ids.tolist()) == alive and len(alive) == 28 * 3
    for _ in range(5):
        q = unit(rng, 1)[0]
        assert [h.passage_id for h in later.search(q, 7)] == exact_top(store, q, 7)[0]


def test_deleted_and_replaced_passages_never_come_back(tmp_path):
    rng = np.random.default_rng(5)
    store = Store(tmp_path / "r.db")
    v = unit(rng, 4)
    page, old_ids = add(store, "https://x/a", v)
    index = VectorIndex("m@64", DIM, tmp_path / "vec")
    index.refresh(store)
    assert {h.passage_id for h in index.search(v[0], 4)} == set(old_ids)
    _, new_ids = add(store, "https://x/a", v[:2])  # the same page, new passages
    index.refresh(store)
    assert {h.passage_id for h in index.search(v[0], 4)} == set(new_ids)
    store.delete_pages([page])
    index.refresh(store)
    assert index.search(v[0], 4) == [] and len(index) == 0


def test_filter_to_allowed_pages_and_vectors_for(tmp_path):
    rng = np.random.default_rng(3)
    store = Store(tmp_path / "r.db")
    p1, ids1 = add(store, "https://x/1", unit(rng, 3))
    p2, _ = add(store, "https://x/2", unit(rng, 3))
    index = VectorIndex("m@64", DIM, tmp_path / "vec")
    index.refresh(store)
    hits = index.search(unit(rng, 1)[0], 10, allowed_pages=np.array([p2]))
    assert {h.page_id for h in hits} == {p2} and len(hits) == 3
    assert index.search(unit(rng, 1)[0], 10, allowed_pages=np.array([999])) == []
    rows = index.vectors_for([ids1[1], 12345])
    stored = store.vectors_by_ids([ids1[1]], "m@64")[1][0]
    np.testing.assert_array_equal(rows[0], stored)
    assert not rows[1].any()


def test_matryoshka_codes_use_the_first_dimensions(filled, tmp_path):
    store, rng = filled
    index = VectorIndex("m@64", DIM, tmp_path / "vec", bits=32, candidates=5000)
    index.refresh(store)
    assert index.bytes_per_passage() == 8 + 16  # one 64-bit word holds 32 bits
    q = unit(rng, 1)[0]
    assert [h.passage_id for h in index.search(q, 10)] == exact_top(store, q, 10)[0]


def test_snapshot_is_reused_and_caught_up(filled, tmp_path, monkeypatch):
    store, rng = filled
    vec_dir = tmp_path / "vec"
    first = VectorIndex("m@64", DIM, vec_dir)
    first.refresh(store)
    assert first.snapshot_bytes() > 0
    add(store, "https://x/later", unit(rng, 3))  # written after the snapshot

    def no_full_build(*_a, **_k):
        raise AssertionError("the snapshot should have been used")

    monkeypatch.setattr(Store, "iter_vectors", no_full_build)
    second = VectorIndex("m@64", DIM, vec_dir)
    second.refresh(store)  # maps the snapshot, applies one page's change
    assert sorted(second.passage_ids.tolist()) == sorted(store.passage_ids())
    q = unit(rng, 1)[0]
    assert [h.passage_id for h in second.search(q, 10)] == exact_top(store, q, 10)[0]


def test_delta_is_folded_into_a_new_snapshot(tmp_path, monkeypatch):
    monkeypatch.setattr(vectors_mod, "COMPACT_MIN_ROWS", 50)
    rng = np.random.default_rng(7)
    store = Store(tmp_path / "r.db")
    for i in range(20):
        add(store, f"https://x/{i}", unit(rng, 10))
    vec_dir = tmp_path / "vec"
    index = VectorIndex("m@64", DIM, vec_dir)
    index.refresh(store)
    seq_before = index._view.snap.seq
    for i in range(20, 26):
        add(store, f"https://x/{i}", unit(rng, 10))  # 60 rows: past the threshold
    index.refresh(store)
    reopened = VectorIndex("m@64", DIM, vec_dir)
    reopened.refresh(store)
    assert reopened._view.snap.seq == store.seq() > seq_before
    assert len(reopened._view.extra_pids) == 0 and len(reopened) == 260


def test_damaged_or_foreign_snapshot_is_rebuilt(filled, tmp_path):
    store, rng = filled
    vec_dir = tmp_path / "vec"
    index = VectorIndex("m@64", DIM, vec_dir)
    index.refresh(store)
    path = index.path
    path.write_bytes(path.read_bytes()[:1000])  # cut short
    again = VectorIndex("m@64", DIM, vec_dir)
    again.refresh(store)
    assert len(again) == 2000
    other = Store(tmp_path / "other.db")  # another store (another id): never its snapshot
    add(other, "https://y/1", unit(rng, 2))
    foreign = VectorIndex("m@64", DIM, vec_dir)
    foreign.refresh(other)
    assert len(foreign) == 2


WRITER = r"""
import os, sys, time, numpy as np
from rewind.index.derived import vectors
from rewind.index.derived.vectors import VectorIndex
from rewind.index.store.records import PageRecord, PassageRecord
from rewind.index.store.store import Store
vectors.COMPACT_MIN_ROWS = 30
store = Store(__import__("pathlib").Path(sys.argv[1]))
index = VectorIndex("m@64", 64, __import__("pathlib").Path(sys.argv[2]))
rng = np.random.default_rng(0)
for i in range(1000):
    if i == 3:
        os.environ["REWIND_FAULT"] = "vector_snapshot"  # the next snapshot write dies
    v = rng.standard_normal((10, 64)).astype(np.float32)
    rec = PageRecord(url=f"https://x/{i}", domain="d", title="", content_hash=str(i),
                     source="browser", first_visit=1.0, last_visit=1.0, visit_count=1,
                     dwell_s=0)
    store.upsert_page(rec, [PassageRecord("p", j, (0, 1)) for j in range(10)],
                      v / np.linalg.norm(v, axis=1, keepdims=True), "m@64")
    print(i, flush=True)
    index.refresh(store)
"""


def test_snapshot_caught_up_after_a_crash_while_writing_it(tmp_path):
    db, vec_dir = tmp_path / "r.db", tmp_path / "vec"
    out = subprocess.run([sys.executable, "-c", WRITER, str(db), str(vec_dir)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == -9, out.stderr  # SIGKILL at the fault point
    assert out.stdout.split() == ["0", "1", "2", "3"]  # page 3 stored, its snapshot not
    assert list(vec_dir.glob(".*.tmp"))  # the half-made snapshot it left behind
    store = Store(db)
    older = VectorIndex("m@64", DIM, vec_dir)
    older._store = store
    from rewind.index.derived import vector_file
    assert vector_file.read(older.path, "m@64", DIM, DIM, store.store_id()).seq < store.seq()
    index = VectorIndex("m@64", DIM, vec_dir)
    index.refresh(store)
    assert sorted(index.passage_ids.tolist()) == sorted(store.passage_ids())
    rng = np.random.default_rng(9)
    for q in unit(rng, 5):
        assert [h.passage_id for h in index.search(q, 10)] == exact_top(store, q, 10)[0]
    vector_file.write(index.path, index._view.snap)  # the next snapshot written here ...
    assert not list(vec_dir.glob(".*.tmp"))  # ... removes the dead writer's leftover


def test_a_full_disk_when_the_delta_is_folded_in_loses_nothing(tmp_path, monkeypatch):
    """Compaction's write point with no room (faults.py): the new snapshot stays in memory,
    searches answer from it, the old file is untouched and no half file is left; with room
    again the next compaction writes it."""
    monkeypatch.setattr(vectors_mod, "COMPACT_MIN_ROWS", 50)
    monkeypatch.setattr(vectors_mod, "COMPACT_SHARE", 0.01)
    rng = np.random.default_rng(3)
    store = Store(tmp_path / "r.db")
    for i in range(100):
        add(store, f"https://x/{i}", unit(rng, 10))
    vec_dir = tmp_path / "vec"
    index = VectorIndex("m@64", DIM, vec_dir)
    index.refresh(store)
    on_disk = index.path.read_bytes()
    monkeypatch.setenv("REWIND_FAULT", "vector_compaction")
    monkeypatch.setenv("REWIND_FAULT_KIND", "enospc")
    for i in range(100, 106):  # 60 rows past the threshold: folded in (not a full reload)
        add(store, f"https://x/{i}", unit(rng, 10))
    index.refresh(store)
    assert index.path.read_bytes() == on_disk, "the last snapshot stays as it was"
    assert not list(vec_dir.glob(".*.tmp")), "no half-written file left"
    assert len(index) == 1060 and index.seq == store.seq()
    q = unit(rng, 1)[0]
    assert [h.passage_id for h in index.search(q, 10)] == exact_top(store, q, 10)[0]
    monkeypatch.delenv("REWIND_FAULT")
    for i in range(106, 112):
        add(store, f"https://x/{i}", unit(rng, 10))
    index.refresh(store)
    reopened = VectorIndex("m@64", DIM, vec_dir)
    reopened.refresh(store)
    assert reopened._view.snap.seq == store.seq() and len(reopened._view.extra_pids) == 0
    assert len(reopened) == 1120
