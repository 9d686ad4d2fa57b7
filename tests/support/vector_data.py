"""Pages with vectors for the vector index's tests: random unit vectors in a real store."""

import time

import numpy as np
from rewind.index.store.records import PageRecord, PassageRecord

DIM = 64


def add(store, url, vecs, model="m@64"):
    now = time.time()
    rec = PageRecord(url=url, domain="d", title="", content_hash=str(now), source="browser",
                     first_visit=now, last_visit=now, visit_count=1, dwell_s=0)
    ps = [PassageRecord(f"p{i}", i, (0, 1)) for i in range(len(vecs))]
    return store.upsert_page(rec, ps, vecs, model)


def unit(rng, n, d=DIM):
    v = rng.standard_normal((n, d)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def exact_top(store, q, k, model="m@64"):
    """Brute force over the store's own (float16) vectors: what the index must reproduce."""
    pids, _pages, mat = store.vectors_of(None, model)
    scores = mat @ q
    order = np.lexsort((pids, -scores))[:k]
    return pids[order].tolist(), scores[order]
