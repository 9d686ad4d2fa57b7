"""The re-embedding job's record and steps in the store, and schema 3 (vectors keyed by
passage, model and piece) migrating older stores."""

from __future__ import annotations

import sqlite3

import numpy as np
from rewind.index.store.migrations import MIGRATIONS, SCHEMA_VERSION
from rewind.index.store.records import PageRecord, PassageRecord, PassageVectors
from rewind.index.store.store import Store
from rewind.profile import embedding_job as reembed


def page(url="https://example.com/a") -> PageRecord:
    return PageRecord(url=url, domain="example.com", title="T", content_hash="h",
                      source="browser", first_visit=1.0, last_visit=1.0, visit_count=1,
                      dwell_s=0.0)


def passages(n: int) -> list[PassageRecord]:
    return [PassageRecord(f"passage {i} text", i, (0, 10)) for i in range(n)]


def test_a_schema_2_store_migrates_keeping_its_vectors(tmp_path):
    path = tmp_path / "rewind.db"
    db = sqlite3.connect(path)
    for version in (1, 2):  # a store as Rewind 0.4 left it
        db.executescript(MIGRATIONS[version])
    db.execute("INSERT INTO meta VALUES ('schema_version', '2'), ('seq', '1')")
    db.execute("INSERT INTO pages VALUES (1, 'https://e.com/', 'e.com', 't', 'h', 'browser',"
               " '{}', 1, 1, 1, 0, 1, 1)")
    db.execute("INSERT INTO passages VALUES (7, 1, 0, 'some text', 0, 9, 0.5, 0)")
    vec = np.arange(4, dtype=np.float16)
    db.execute("INSERT INTO vectors VALUES (7, 'm@4', 4, ?)", (vec.tobytes(),))
    db.commit()
    db.close()
    store = Store(path)
    assert store.schema_version() == SCHEMA_VERSION == 3
    ids, mat = store.vectors_by_ids([7], "m@4")
    assert ids.tolist() == [7] and mat[0].tolist() == [0, 1, 2, 3]
    assert store.db.execute("SELECT piece FROM vectors").fetchall() == [(0,)]
    # two models side by side now
    store.add_vectors([7], PassageVectors.one_each(np.ones((1, 2), np.float32)), "n@2",
                      stamp=False)
    assert store.vector_models() == {"m@4": 1, "n@2": 1}


def test_a_batch_writes_its_vectors_and_the_job_record_together(tmp_path):
    store = Store(tmp_path / "rewind.db")
    _pid, ids = store.upsert_page(page(), passages(3), np.eye(3, 4, dtype=np.float32), "m@4")
    job = reembed.begin(store, "n@2")
    assert (job.target, job.state, job.done) == ("n@2", "running", 0)
    vecs = PassageVectors(np.ones((3, 2), np.float32), np.array([0, 1, 1]), np.array([0, 0, 1]))
    seq = store.seq()
    written = store.add_vectors(ids[:2], vecs, "n@2", stamp=False, then=reembed.claim)
    assert written == 2 and store.seq() == seq  # a model not in use: no change for indexes
    job = reembed.read(store)
    assert job.done == 2 and job.owner > 0 and not job.owner_alive()  # this process: not other
    assert store.passages_missing_vectors("n@2") == [ids[2]]
    assert not reembed.finish(store, "n@2")  # one passage still has no n@2 vector
    store.add_vectors(ids[2:], PassageVectors.one_each(np.ones((1, 2), np.float32)), "n@2",
                      stamp=False, then=reembed.claim)
    assert reembed.finish(store, "n@2")
    assert store.get_meta("embedding_model") == "n@2" and reembed.read(store) is None
    assert reembed.garbage_models(store, {"n@2"}) == ["m@4"]
    assert reembed.drop_vectors(store, "m@4", limit=2) == 2
    assert reembed.drop_vectors(store, "m@4", limit=2) == 1
    assert store.vector_models() == {"n@2": 4}


def test_vectors_for_a_passage_deleted_meanwhile_are_left_out(tmp_path):
    store = Store(tmp_path / "rewind.db")
    _pid, ids = store.upsert_page(page(), passages(2), None, None)
    store.upsert_page(page(), passages(1), None, None)  # replaced: the old ids are gone
    vecs = PassageVectors.one_each(np.ones((2, 2), np.float32))
    assert store.add_vectors(ids, vecs, "n@2", stamp=True) == 0
    assert store.vector_models() == {}


def test_pause_and_cancel(tmp_path):
    store = Store(tmp_path / "rewind.db")
    reembed.begin(store, "n@2")
    reembed.set_state(store, "paused")
    assert reembed.read(store).state == "paused"
    reembed.clear(store)
    assert reembed.read(store) is None


def test_truncation_is_counted_per_model(tmp_path):
    store = Store(tmp_path / "rewind.db")
    reembed.add_truncated(store, "m@4", 2)
    reembed.add_truncated(store, "m@4", 1)
    assert reembed.truncated(store, "m@4") == 3 and reembed.truncated(store, "n@2") == 0
