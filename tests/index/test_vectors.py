import time

import numpy as np
from rewind.index.records import PageRecord, PassageRecord
from rewind.index.store import Store
from rewind.index.vectors import VectorIndex


def add(store, url, vecs):
    now = time.time()
    rec = PageRecord(url=url, domain="d", title="", content_hash=url, source="browser",
                     first_visit=now, last_visit=now, visit_count=1, dwell_s=0)
    ps = [PassageRecord(f"p{i}", i, (0, 1)) for i in range(len(vecs))]
    return store.upsert_page(rec, ps, vecs, "m@16")


def unit(rng, n, d=16):
    v = rng.standard_normal((n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_top_k_matches_exact_numpy(tmp_path):
    rng = np.random.default_rng(1)
    store = Store(tmp_path / "r.db")
    all_vecs = []
    for i in range(20):
        v = unit(rng, 5)
        add(store, f"https://x/{i}", v)
        all_vecs.append(v)
    index = VectorIndex("m@16", 16)
    index.refresh(store)
    q = unit(rng, 1)[0]
    hits = index.search(q, 10)
    exact = np.sort(np.concatenate(all_vecs) @ q)[::-1][:10]
    np.testing.assert_allclose([h.similarity for h in hits], exact, rtol=1e-6)


def test_incremental_refresh_equals_full_load(tmp_path):
    rng = np.random.default_rng(2)
    store = Store(tmp_path / "r.db")
    ids = [add(store, f"https://x/{i}", unit(rng, 3))[0] for i in range(30)]
    index = VectorIndex("m@16", 16)
    index.refresh(store)
    store.delete_pages(ids[:2])
    add(store, "https://x/5", unit(rng, 4))  # replaced content
    add(store, "https://x/new", unit(rng, 2))
    index.refresh(store)
    full = VectorIndex("m@16", 16)
    full.refresh(store)
    assert sorted(index.passage_ids.tolist()) == sorted(full.passage_ids.tolist())
    q = unit(rng, 1)[0]
    assert [h.passage_id for h in index.search(q, 7)] == [h.passage_id for h in full.search(q, 7)]


def test_filter_to_allowed_pages_and_vectors_for(tmp_path):
    rng = np.random.default_rng(3)
    store = Store(tmp_path / "r.db")
    p1, ids1 = add(store, "https://x/1", unit(rng, 3))
    p2, _ = add(store, "https://x/2", unit(rng, 3))
    index = VectorIndex("m@16", 16)
    index.refresh(store)
    hits = index.search(unit(rng, 1)[0], 10, allowed_pages=np.array([p2]))
    assert {h.page_id for h in hits} == {p2}
    assert index.search(unit(rng, 1)[0], 10, allowed_pages=np.array([999])) == []
    rows = index.vectors_for([ids1[1], 12345])
    np.testing.assert_array_equal(rows[0], index.matrix[index.passage_ids.tolist().index(ids1[1])])
    assert not rows[1].any()
