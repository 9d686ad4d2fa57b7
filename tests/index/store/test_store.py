import sqlite3
import time

import numpy as np
import pytest
from rewind.errors import Code, RewindError
from rewind.index.store.migrations import SCHEMA_VERSION
from rewind.index.store.records import PageRecord, PassageRecord
from rewind.index.store.store import Store


def page(url="https://example.com/a", title="A page", chash="h1") -> PageRecord:
    now = time.time()
    return PageRecord(url=url, domain="example.com", title=title, content_hash=chash,
                      source="browser", first_visit=now, last_visit=now, visit_count=1,
                      dwell_s=10.0)


def passages(n=2, word="alpha"):
    return [PassageRecord(f"{word} passage {i}", i, (i * 10, i * 10 + 9)) for i in range(n)]


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "rewind.db")
    yield s
    s.close()


def test_schema_created_and_versioned(store):
    assert store.schema_version() == SCHEMA_VERSION
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.seq() == 0


def test_upsert_replaces_passages_and_vectors(store):
    pid, ids = store.upsert_page(page(), passages(3), np.eye(3, 4, dtype=np.float32), "m@4")
    assert store.counts() == {"pages": 1, "passages": 3, "vectors": 3}
    pid2, ids2 = store.upsert_page(page(chash="h2"), passages(2, "beta"),
                                   np.eye(2, 4, dtype=np.float32), "m@4")
    assert pid2 == pid and not set(ids) & set(ids2)  # ids never reused
    assert store.counts() == {"pages": 1, "passages": 2, "vectors": 2}
    texts = [p.text for _, _, p in store.passages_of([pid])]
    assert texts == ["beta passage 0", "beta passage 1"]
    assert store.seq() == 2


def test_visit_only_update_keeps_passages(store):
    pid, _ = store.upsert_page(page(), passages(2), None, None)
    rec = store.page_by_url("https://example.com/a")
    rec.visit_count = 5
    store.upsert_page(rec, None, None, None)
    assert store.page_by_url(rec.url).visit_count == 5
    assert store.counts()["passages"] == 2
    assert store.changes_since(1) == ([pid], [])


def test_delete_cascades_and_leaves_a_tombstone(store):
    pid, _ = store.upsert_page(page(), passages(2), np.ones((2, 4), np.float32), "m@4")
    assert store.delete_pages([pid]) == 1
    assert store.counts() == {"pages": 0, "passages": 0, "vectors": 0}
    assert store.changes_since(1) == ([], [pid])
    assert store.integrity() == []


def test_vectors_round_trip(store):
    vecs = np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32)
    pid, ids = store.upsert_page(page(), passages(3), vecs, "m@8")
    pids, pages, mat = store.vectors_of(None, "m@8")
    assert pids.tolist() == ids and set(pages.tolist()) == {pid}
    assert mat.dtype == np.float32
    np.testing.assert_array_equal(mat, vecs.astype(np.float16))  # stored as float16
    assert store.vectors_of(None, "other@8")[0].size == 0
    assert store.vector_bytes("m@8") == 3 * 8 * 2
    found, rows = store.vectors_by_ids([ids[2], 999, ids[0]], "m@8")
    assert sorted(found.tolist()) == sorted([ids[2], ids[0]])
    np.testing.assert_array_equal(rows[found.tolist().index(ids[0])], mat[0])
    batches = list(store.iter_vectors("m@8", batch=2))
    assert [len(b[0]) for b in batches] == [2, 1]
    np.testing.assert_array_equal(np.concatenate([b[2] for b in batches]), mat)


def test_float32_rows_of_schema_1_still_read(store):
    vecs = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)
    _pid, ids = store.upsert_page(page(), passages(2), vecs, "m@4")
    with store.transaction() as db:  # as a schema-1 Rewind wrote them
        db.execute("UPDATE vectors SET vector=? WHERE passage_id=?", (vecs[0].tobytes(), ids[0]))
    _pids, _pages, mat = store.vectors_of(None, "m@4")
    np.testing.assert_array_equal(mat[0], vecs[0])
    np.testing.assert_array_equal(mat[1], vecs[1].astype(np.float16))


def test_failed_write_stores_nothing_half(store):
    with pytest.raises(RewindError):  # vectors do not match passages: refused up front
        store.upsert_page(page(), passages(3), np.ones((2, 4), np.float32), "m")
    with pytest.raises(ZeroDivisionError), store.transaction() as db:
        db.execute("INSERT INTO meta(key, value) VALUES ('x', 'y')")
        1 / 0  # noqa: B018
    assert store.get_meta("x") is None
    assert store.counts()["pages"] == 0


def test_disk_full_is_a_clear_error_and_loses_nothing(store):
    store.upsert_page(page(), passages(1), None, None)
    pages_now = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count={pages_now}")  # the disk is "full" now
    big = [PassageRecord("x" * 50_000, i, (0, 1)) for i in range(20)]
    with pytest.raises(RewindError) as err:
        store.upsert_page(page(url="https://example.com/b"), big, None, None)
    assert err.value.code == Code.DISK_FULL and "Free some space" in str(err.value)
    assert store.page_by_url("https://example.com/b") is None
    assert store.page_by_url("https://example.com/a") is not None


def test_readonly_missing_store(tmp_path):
    with pytest.raises(RewindError) as err:
        Store(tmp_path / "nope" / "rewind.db", readonly=True)
    assert err.value.code == Code.NOT_FOUND and "rewind index" in err.value.hint


def test_newer_schema_is_refused(tmp_path):
    s = Store(tmp_path / "rewind.db")
    s.db.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    s.close()
    with pytest.raises(RewindError, match="newer Rewind"):
        Store(tmp_path / "rewind.db")


def test_an_older_schema_is_upgraded_by_a_writer_and_explained_to_a_reader(tmp_path):
    from rewind.index.store.migrations import MIGRATIONS

    path = tmp_path / "rewind.db"
    db = sqlite3.connect(path)  # a store as a schema-2 Rewind left it
    for version in (1, 2):
        db.executescript(MIGRATIONS[version])
    db.execute("INSERT INTO meta(key, value) VALUES ('schema_version', '2'), ('seq', '0')")
    db.commit()
    db.close()
    with pytest.raises(RewindError) as err:  # `rewind search` opens it read-only
        Store(path, readonly=True)
    assert "older Rewind (schema 2)" in err.value.message and "rewind doctor" in err.value.hint
    writer = Store(path)  # what `rewind doctor` and the host do
    assert writer.schema_version() == SCHEMA_VERSION
    writer.close()
    reader = Store(path, readonly=True)
    assert reader.schema_version() == SCHEMA_VERSION
    reader.close()


def _open_at(path, start, errors):
    while time.time() < start:  # both processes leave this loop within microseconds
        pass
    try:
        Store(path).close()
    except RewindError as exc:
        errors.put(str(exc))


def test_two_processes_opening_a_new_store_at_once_both_get_it(tmp_path):
    # Two browser profiles' hosts (or a host and `rewind index`) starting together: both
    # switch the new file to WAL, and SQLite used to answer one of them "locked" at once.
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    errors = ctx.Queue()
    for i in range(20):  # about one in five failed before the fix
        path = tmp_path / f"s{i}" / "rewind.db"
        start = time.time() + 0.3
        procs = [ctx.Process(target=_open_at, args=(path, start, errors)) for _ in range(2)]
        for proc in procs:
            proc.start()
        for proc in procs:
            proc.join(30)
        assert [proc.exitcode for proc in procs] == [0, 0]
    assert errors.empty(), errors.get()


def test_reader_sees_committed_writes_while_writer_is_open(store, tmp_path):
    reader = Store(tmp_path / "rewind.db", readonly=True)
    store.upsert_page(page(), passages(1), None, None)
    assert reader.counts()["pages"] == 1
    with pytest.raises(sqlite3.OperationalError):
        reader.db.execute("INSERT INTO meta(key, value) VALUES ('a', 'b')")
    reader.close()


def test_id_lists_come_in_a_few_lengths_and_each_row_is_read_once(store):
    from rewind.index.store.vector_rows import chunks

    lengths = {len(marks.split(",")) for n in range(1, 1200) for _, marks in chunks(range(n), 500)}
    assert lengths == {1, 2, 4, 8, 16, 32, 64, 128, 256, 500}  # statements the cache keeps
    pids = [store.upsert_page(page(f"https://example.com/{i}", chash=f"h{i}"), passages(2),
                              None, None)[0] for i in range(3)]  # 3 ids: padded to 4
    rows = store.passages_of(pids)
    assert len(rows) == 6 and len({passage_id for passage_id, _, _ in rows}) == 6
    assert set(store.pages_by_ids(pids)) == set(pids)
