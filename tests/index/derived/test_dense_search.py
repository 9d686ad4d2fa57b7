import numpy as np
import pytest
from rewind.index.derived import dense_search
from rewind.index.derived.dense_search import VectorCache
from rewind.index.derived.vectors import VectorIndex
from rewind.index.store.store import Store
from support.vector_data import DIM, add, unit


@pytest.fixture
def pages(tmp_path):
    """40 pages of 10 passages in the snapshot, then 2 pages in the delta."""
    rng = np.random.default_rng(11)
    store = Store(tmp_path / "r.db")
    added = [add(store, f"https://x/{i}", unit(rng, 10)) for i in range(40)]
    index = VectorIndex("m@64", DIM, tmp_path / "vec")
    index.refresh(store)
    added += [add(store, f"https://x/late{i}", unit(rng, 10)) for i in range(2)]
    index.refresh(store)
    assert len(index._view.extra_pids) == 20
    return store, index, added, rng


def stored(store, pids):
    found, mat = store.vectors_by_ids(list(pids), "m@64")
    return dict(zip(found.tolist(), mat, strict=True))


def test_only_the_exact_best_are_read_the_rest_scored_by_their_int8_rows(pages, monkeypatch):
    store, index, _added, rng = pages
    index.exact = 5
    reads = []
    real = store.vectors_by_ids
    monkeypatch.setattr(store, "vectors_by_ids", lambda ids, m: reads.append(ids) or real(ids, m))
    q = unit(rng, 1)[0]
    cache = VectorCache(DIM)
    hits = index.rank(q, 30, index.shortlist(q, 30), cache)
    assert len(hits) == 30 and len(reads) == 1 and len(reads[0]) == 5
    truth = stored(store, [h.passage_id for h in hits])
    exact = [h for h in hits if h.passage_id in reads[0]]
    assert exact == hits[:5]  # the read ones first, by exact cosine; then int8's order
    for h in exact:  # read: the exact cosine with the stored vector
        assert h.similarity == pytest.approx(float(truth[h.passage_id] @ q), abs=1e-6)
    for h in hits:  # the others within int8 rounding (64 random dimensions: coarse steps)
        assert abs(h.similarity - float(truth[h.passage_id] @ q)) < 0.01
    for part in (hits[:5], hits[5:]):
        assert [h.similarity for h in part] == sorted((h.similarity for h in part), reverse=True)
    # every shortlisted passage's vector is remembered, exact where it was read
    for pid in reads[0]:
        np.testing.assert_array_equal(cache[pid], truth[pid])
    assert all(h.passage_id in cache for h in hits)


def test_approximate_finds_snapshot_and_delta_rows_and_leaves_the_rest_zero(pages):
    store, index, added, _rng = pages
    store.delete_pages([added[3][0]])  # a dead snapshot page
    index.refresh(store)
    page_of = {pid: page for page, pids in added for pid in pids}
    wanted = [added[0][1][0], added[39][1][9], added[41][1][4], added[17][1][5],
              added[3][1][2], 10**6]
    cache = VectorCache(DIM)
    got = index.approximate(wanted, [page_of.get(p, 1) for p in wanted], cache)
    truth = stored(store, wanted)
    for row, pid in zip(got, wanted, strict=True):
        if pid in truth:
            assert np.abs(row - truth[pid]).max() < 0.01  # half an int8 step at most
            assert abs(float(row @ truth[pid]) - 1.0) < 0.01
            np.testing.assert_array_equal(cache[pid], row)
        else:  # deleted, or never indexed: no vector
            assert not row.any() and not cache[pid].any()
    assert set(truth) == set(wanted[:4])
    # a passage already in the cache (an exact read) keeps that vector
    cache = VectorCache(DIM)
    cache.keep(np.array(wanted[:1]), truth[wanted[0]][None])
    first = index.approximate(wanted[:1], [page_of[wanted[0]]], cache)[0]
    np.testing.assert_array_equal(first, truth[wanted[0]])


def test_the_stages_read_a_view_that_a_catch_up_replaces_and_never_changes(pages):
    store, index, added, rng = pages
    held = index._view
    dead, delta = held.dead.copy(), held.extra_pids.copy()
    q = unit(rng, 1)[0]
    pools = {"candidates": 100, "refine": 60, "rescore": 30}
    before = dense_search.shortlist(held, q, 10, **pools)
    store.delete_pages([added[3][0], added[40][0]])  # a snapshot page and a delta page
    index.refresh(store)
    assert index._view is not held and len(index._view) == len(held) - 20
    np.testing.assert_array_equal(held.dead, dead)
    np.testing.assert_array_equal(held.extra_pids, delta)
    again = dense_search.shortlist(held, q, 10, **pools)
    for name in ("passage_ids", "page_ids", "scores", "vectors"):
        np.testing.assert_array_equal(getattr(again, name), getattr(before, name))
