"""The source of truth: pages, visits, passages and their vectors in SQLite (WAL).

Every write bumps one change sequence (`meta.seq`) and stamps the pages it
touched (`pages.seq`) or, for deleted pages, leaves a tombstone. The derived
indexes (text_index, vectors) remember the last sequence they applied and
catch up from here, so a crash between two stores never loses a committed page.

With a `cipher` (cipher.py; the engine gives one to an encrypted store) page titles,
page metadata, passage text and vectors are sealed as they are written and opened as they
are read; URLs, sites, times and counts stay as they are (README: what is encrypted).
Deleted rows are overwritten (secure_delete), so a forgotten page's bytes do not linger
in the file's free pages.

This module must never embed, tokenise or search: it stores what it is given,
in one transaction per call, and reads it back.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np

from .. import faults
from ..errors import Code, RewindError
from .cipher import FieldCipher
from .migrations import MIGRATIONS, SCHEMA_VERSION
from .records import (
    PAGE_COLUMNS,
    PageRecord,
    PassageRecord,
    PassageVectors,
    decode_vectors,
    encode_vector,
    page_from_row,
    vector_rows,
)


def _disk_error(exc: sqlite3.Error) -> RewindError:
    msg = str(exc).lower()
    if "full" in msg:
        return RewindError(
            Code.DISK_FULL, "The disk is full: nothing was stored.",
            "Free some space and try again; everything stored before is intact.",
        )
    if "locked" in msg or "busy" in msg:
        return RewindError(
            Code.STORE_LOCKED, "The store is busy with another writer.",
            "Try again in a moment.",
        )
    if "malformed" in msg or "not a database" in msg:
        return RewindError(
            Code.STORE_CORRUPT, f"The store is damaged ({exc}).",
            "Run `rewind doctor` to see what is wrong.",
        )
    return RewindError(Code.INTERNAL, f"Storage error: {exc}.")


class Store:
    """One profile's SQLite database. Not thread-safe: one Store per thread."""

    def __init__(self, path: Path, *, readonly: bool = False, busy_timeout_s: float = 10.0,
                 cipher: FieldCipher | None = None):
        self.path = path
        self.readonly = readonly
        self.cipher = cipher
        if readonly and not path.exists():
            raise RewindError(
                Code.NOT_FOUND, f"No Rewind store at {path.parent}.",
                "Index something first (`rewind index PATH`), or check --data-dir.",
            )
        try:
            if readonly:
                uri = f"file:{path}?mode=ro"
                self.db = sqlite3.connect(uri, uri=True, timeout=busy_timeout_s,
                                          check_same_thread=False)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                self.db = sqlite3.connect(path, timeout=busy_timeout_s, check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable at checkpoint
                self.db.execute("PRAGMA secure_delete=ON")  # forgotten bytes are overwritten
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.isolation_level = None  # explicit transactions only
            if not readonly:
                self._migrate()
            else:
                self._check_version()
        except sqlite3.Error as exc:
            raise _disk_error(exc) from None

    # ---- schema -------------------------------------------------------------------------

    def schema_version(self) -> int:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.OperationalError:
            return 0
        return int(row[0]) if row else 0

    def _check_version(self) -> None:
        version = self.schema_version()
        if version > SCHEMA_VERSION:
            raise RewindError(
                Code.STORE_CORRUPT,
                f"This store was written by a newer Rewind (schema {version} > {SCHEMA_VERSION}).",
                "Upgrade Rewind (`python3 build.py install`).",
            )

    def _migrate(self) -> None:
        self._check_version()
        version = self.schema_version()
        for target in sorted(v for v in MIGRATIONS if v > version):
            with self.transaction():
                if self.schema_version() >= target:
                    continue  # another process migrated while this one waited for the lock
                for statement in MIGRATIONS[target].split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)",
                    (str(target),),
                )
                if target == 1:
                    self.db.execute("INSERT INTO meta(key, value) VALUES ('seq', '0')")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT; rolls back on any error, so nothing is stored half."""
        if self.readonly:
            raise RewindError(Code.INTERNAL, "write on a read-only store")
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _disk_error(exc) from None
        try:
            yield self.db
            faults.hit("store_commit")
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise _disk_error(exc) from None
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        if self.db.in_transaction:  # SQLite may already have rolled back (e.g. disk full)
            self.db.execute("ROLLBACK")

    def close(self) -> None:
        self.db.close()

    # ---- sealing (a no-op without a cipher) ---------------------------------------------

    def _seal(self, text: str, column: str) -> str | bytes:
        return self.cipher.seal_text(text, column) if self.cipher else text

    def _open(self, value: str | bytes, column: str) -> str:
        if self.cipher is None:
            return value  # type: ignore[return-value]
        return self.cipher.open_text(value, column)  # type: ignore[arg-type]

    def _seal_vec(self, vec: np.ndarray) -> bytes:
        raw = encode_vector(vec)
        return self.cipher.seal(raw, "vector") if self.cipher else raw

    def _open_vec(self, blob: bytes) -> bytes:
        return self.cipher.open_vector(blob) if self.cipher else blob

    def _vector_rows(self, rows: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """records.vector_rows over (passage id, page id, dim, blob) rows, unsealed."""
        if self.cipher is not None:
            rows = [(a, b, d, self._open_vec(v)) for a, b, d, v in rows]
        return vector_rows(rows)

    def _page(self, row: tuple) -> PageRecord:
        if self.cipher is not None:
            row = (*row[:3], self._open(row[3], "title"), *row[4:6],
                   self._open(row[6], "metadata"), *row[7:])
        return page_from_row(row)

    def _passage(self, row: tuple) -> tuple[int, int, PassageRecord]:
        pid, page_id, pos, text, s, e, q, t = row
        return pid, page_id, PassageRecord(self._open(text, "text"), pos, (s, e), q, bool(t), pid)

    # ---- change sequence ----------------------------------------------------------------

    def seq(self) -> int:
        return int(self.db.execute("SELECT value FROM meta WHERE key='seq'").fetchone()[0])

    def _next_seq(self) -> int:
        seq = self.seq() + 1
        self.db.execute("UPDATE meta SET value=? WHERE key='seq'", (str(seq),))
        return seq

    def changes_since(self, seq: int) -> tuple[list[int], list[int]]:
        """(page ids written after `seq`, page ids deleted after `seq`)."""
        changed = [r[0] for r in self.db.execute("SELECT id FROM pages WHERE seq > ?", (seq,))]
        deleted = [r[0] for r in self.db.execute("SELECT page_id FROM tombstones WHERE seq > ?",
                                                 (seq,))]
        return changed, deleted

    # ---- settings -----------------------------------------------------------------------

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def store_id(self) -> str:
        """This store's random id (schema 2): derived files name the store they reflect."""
        return self.get_meta("store_id") or ""

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    # ---- writes -------------------------------------------------------------------------

    def upsert_page(
        self,
        page: PageRecord,
        passages: Sequence[PassageRecord] | None,
        vectors: np.ndarray | PassageVectors | None,
        model_id: str | None,
    ) -> tuple[int, list[int]]:
        """Insert or replace a page; `passages=None` keeps the stored passages (visit only).

        `vectors`: one row per passage, or PassageVectors (pieces of long passages).
        Replacing passages deletes the old ones and their vectors first (delete, then
        insert, in one transaction). Returns (page id, new passage ids).
        """
        if isinstance(vectors, np.ndarray):
            if passages is not None and len(vectors) != len(passages):
                raise RewindError(Code.INTERNAL, "vector count does not match passage count")
            vectors = PassageVectors.one_each(vectors)
        if passages is not None and vectors is not None and (
                len(vectors.owner) and (vectors.owner.min() < 0
                                        or vectors.owner.max() >= len(passages)
                                        or vectors.passages() != len(passages))):
            raise RewindError(Code.INTERNAL, "vector count does not match passage count")
        with self.transaction() as db:
            seq = self._next_seq()
            row = db.execute("SELECT id FROM pages WHERE url=?", (page.url,)).fetchone()
            values = (
                page.domain, self._seal(page.title, "title"), page.content_hash, page.source,
                self._seal(json.dumps(page.metadata), "metadata"), page.first_visit,
                page.last_visit, page.visit_count, page.dwell_s,
                page.indexed_at or time.time(), seq,
            )
            if row:
                page_id = row[0]
                db.execute(
                    "UPDATE pages SET domain=?, title=?, content_hash=?, source=?, metadata=?,"
                    " first_visit=?, last_visit=?, visit_count=?, dwell_s=?, indexed_at=?, seq=?"
                    " WHERE id=?",
                    (*values, page_id),
                )
            else:
                cur = db.execute(
                    "INSERT INTO pages(url, domain, title, content_hash, source, metadata,"
                    " first_visit, last_visit, visit_count, dwell_s, indexed_at, seq)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    (page.url, *values),
                )
                page_id = cur.lastrowid
            ids: list[int] = []
            if passages is not None:
                db.execute("DELETE FROM passages WHERE page_id=?", (page_id,))  # cascades
                for p in passages:
                    cur = db.execute(
                        "INSERT INTO passages(page_id, position, text, span_start, span_end,"
                        " quality, is_title) VALUES (?,?,?,?,?,?,?)",
                        (page_id, p.position, self._seal(p.text, "text"), p.span[0], p.span[1],
                         p.quality, int(p.is_title)),
                    )
                    ids.append(cur.lastrowid)
                if vectors is not None:
                    self._insert_vectors(np.asarray(ids, np.int64)[vectors.owner], vectors,
                                         model_id)
            return page_id, ids

    def _insert_vectors(self, passage_ids: np.ndarray, vectors: PassageVectors,
                        model_id: str | None) -> None:
        """Rows of `vectors`, row i for passage `passage_ids[i]` (inside a transaction)."""
        self.db.executemany(
            "INSERT INTO vectors(passage_id, model_id, piece, dim, vector) VALUES (?,?,?,?,?)",
            [(int(pid), model_id, int(piece), vectors.dim, self._seal_vec(vec))
             for pid, piece, vec in zip(passage_ids, vectors.piece, vectors.matrix,
                                        strict=True)])

    def add_vectors(self, passage_ids: Sequence[int], vectors: PassageVectors,
                    model_id: str, *, stamp: bool,
                    then: Callable[[sqlite3.Connection, int], None] | None = None) -> int:
        """Vectors of `model_id` for passages `passage_ids` (vectors.owner indexes it),
        replacing any they had, in one transaction; passages deleted meanwhile are left out.
        `stamp`: mark their pages changed (the active model's vectors: the vector index
        catches up); a model not yet in use needs no stamp. `then(db, written)` runs inside
        the same transaction (a job's record: embedding_job.py). Returns passages written."""
        with self.transaction() as db:
            ids = np.asarray(passage_ids, np.int64)
            alive = set()
            for chunk, marks in _chunks(ids.tolist(), 500):
                alive |= {r[0] for r in db.execute(
                    f"SELECT id FROM passages WHERE id IN ({marks})", chunk)}
            keep = np.fromiter((int(ids[o]) in alive for o in vectors.owner), bool,
                               len(vectors.owner))
            written = sorted(alive)
            for chunk, marks in _chunks(written, 500):
                db.execute(f"DELETE FROM vectors WHERE model_id=? AND passage_id IN ({marks})",
                           (model_id, *chunk))
            kept = PassageVectors(vectors.matrix[keep], vectors.owner[keep],
                                  vectors.piece[keep])
            self._insert_vectors(ids[kept.owner], kept, model_id)
            if stamp and written:
                seq = self._next_seq()
                for chunk, marks in _chunks(written, 500):
                    db.execute(f"UPDATE pages SET seq=? WHERE id IN (SELECT page_id FROM"
                               f" passages WHERE id IN ({marks}))", (seq, *chunk))
            if then is not None:
                then(db, len(written))
            return len(written)

    def delete_pages(self, page_ids: Iterable[int]) -> int:
        ids = list(page_ids)
        if not ids:
            return 0
        with self.transaction() as db:
            seq = self._next_seq()
            for pid in ids:
                db.execute("DELETE FROM pages WHERE id=?", (pid,))  # cascades to passages, vectors
                db.execute("INSERT OR REPLACE INTO tombstones(page_id, seq) VALUES (?,?)",
                           (pid, seq))
        return len(ids)

    def checkpoint(self) -> None:
        """Copy the WAL into the database and empty it (best effort: a reader may hold it),
        so a forgotten page's old bytes do not wait in the WAL for the next checkpoint."""
        with suppress(sqlite3.Error):
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def compact(self) -> None:
        """Rewrite the file without its free pages (VACUUM), then checkpoint."""
        try:
            self.db.execute("VACUUM")
        except sqlite3.Error as exc:  # another connection is reading: the next one will do
            raise _disk_error(exc) from None
        self.checkpoint()

    def touch_all(self) -> None:
        """Mark every page changed, so derived indexes rebuild them on their next catch-up."""
        with self.transaction() as db:
            seq = self._next_seq()
            db.execute("UPDATE pages SET seq=?", (seq,))

    # ---- reads --------------------------------------------------------------------------

    def page_by_url(self, url: str) -> PageRecord | None:
        row = self.db.execute(f"SELECT {PAGE_COLUMNS} FROM pages WHERE url=?", (url,)).fetchone()
        return self._page(row) if row else None

    def pages_by_ids(self, ids: Iterable[int]) -> dict[int, PageRecord]:
        out: dict[int, PageRecord] = {}
        for chunk, marks in _chunks(set(ids), 500):
            for row in self.db.execute(f"SELECT {PAGE_COLUMNS} FROM pages WHERE id IN ({marks})",
                                       chunk):
                page = self._page(row)
                out[page.id] = page
        return out

    def list_pages(self, offset: int = 0, limit: int = 100) -> list[PageRecord]:
        rows = self.db.execute(
            f"SELECT {PAGE_COLUMNS} FROM pages ORDER BY last_visit DESC, id DESC LIMIT ? OFFSET ?",
            (limit, offset),
        )
        return [self._page(r) for r in rows]

    def page_ids_where(self, *, domain: str | None = None, since: float | None = None,
                       until: float | None = None) -> list[int]:
        sql, args = "SELECT id FROM pages WHERE 1=1", []
        if domain is not None:
            sql += " AND (domain=? OR domain LIKE ?)"
            args += [domain, f"%.{domain}"]
        if since is not None:
            sql += " AND last_visit >= ?"
            args.append(since)
        if until is not None:
            sql += " AND last_visit < ?"
            args.append(until)
        return [r[0] for r in self.db.execute(sql, args)]

    def all_page_ids(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT id FROM pages")]

    def passages_of(self, page_ids: Iterable[int]) -> list[tuple[int, int, PassageRecord]]:
        """(passage id, page id, passage) for the given pages, in page order."""
        out = []
        for chunk, marks in _chunks(page_ids, 500):
            rows = self.db.execute(
                "SELECT id, page_id, position, text, span_start, span_end, quality, is_title"
                f" FROM passages WHERE page_id IN ({marks}) ORDER BY page_id, position, id", chunk)
            out += [self._passage(r) for r in rows]
        return out

    def passages_by_ids(self, ids: Iterable[int]) -> dict[int, tuple[int, PassageRecord]]:
        out = {}
        for chunk, marks in _chunks(set(ids), 500):
            rows = self.db.execute(
                "SELECT id, page_id, position, text, span_start, span_end, quality, is_title"
                f" FROM passages WHERE id IN ({marks})", chunk)
            for row in rows:
                pid, page_id, passage = self._passage(row)
                out[pid] = (page_id, passage)
        return out

    def vectors_of(self, page_ids: Sequence[int] | None, model_id: str
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(passage ids, page ids, float32 matrix) of `model_id` vectors; all pages if None
        (all at once: `iter_vectors` streams them)."""
        sql = ("SELECT v.passage_id, p.page_id, v.dim, v.vector FROM vectors v"
               " JOIN passages p ON p.id = v.passage_id WHERE v.model_id=?")
        if page_ids is None:
            return self._vector_rows(self.db.execute(sql + " ORDER BY v.passage_id",
                                                     (model_id,)).fetchall())
        rows: list = []
        for chunk, marks in _chunks(page_ids, 500):
            rows += self.db.execute(
                sql + f" AND p.page_id IN ({marks}) ORDER BY v.passage_id, v.piece",
                (model_id, *chunk)).fetchall()
        return self._vector_rows(rows)

    def iter_vectors(self, model_id: str, batch: int = 50_000
                     ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """`vectors_of(None, model_id)` in batches of passage-id order (bounded memory)."""
        after = (-1, -1)  # (passage id, piece): a long passage's pieces may span batches
        while True:
            rows = self.db.execute(
                "SELECT v.passage_id, p.page_id, v.dim, v.vector, v.piece FROM vectors v"
                " JOIN passages p ON p.id = v.passage_id WHERE v.model_id=?"
                " AND (v.passage_id, v.piece) > (?, ?) ORDER BY v.passage_id, v.piece LIMIT ?",
                (model_id, *after, batch)).fetchall()
            if not rows:
                return
            after = (rows[-1][0], rows[-1][4])
            yield self._vector_rows([r[:4] for r in rows])

    def vectors_by_ids(self, passage_ids: Sequence[int], model_id: str
                       ) -> tuple[np.ndarray, np.ndarray]:
        """(passage ids found, float32 matrix) for `passage_ids`; absent ones are left out.
        A passage with several pieces has a row for each, its first piece first."""
        rows: list = []
        for chunk, marks in _chunks(passage_ids, 30_000):  # under SQLite's 32,766 variables
            rows += self.db.execute(
                f"SELECT passage_id, dim, vector FROM vectors WHERE passage_id IN ({marks})"
                " AND model_id=? ORDER BY passage_id, piece", (*chunk, model_id)).fetchall()
        if not rows:
            return np.empty(0, np.int64), np.empty((0, 0), np.float32)
        pids = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        return pids, decode_vectors([self._open_vec(r[2]) for r in rows],
                                    [r[1] for r in rows])

    def vector_models(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT model_id, COUNT(*) FROM vectors GROUP BY model_id"))

    def counts(self) -> dict[str, int]:
        one = self.db.execute
        return {
            "pages": one("SELECT COUNT(*) FROM pages").fetchone()[0],
            "passages": one("SELECT COUNT(*) FROM passages").fetchone()[0],
            "vectors": one("SELECT COUNT(*) FROM vectors").fetchone()[0],
        }

    def last_indexed(self) -> PageRecord | None:
        row = self.db.execute(f"SELECT {PAGE_COLUMNS} FROM pages "
                              "ORDER BY indexed_at DESC, id DESC LIMIT 1").fetchone()
        return self._page(row) if row else None

    def passage_count(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM passages").fetchone()[0]

    def max_passage_id(self) -> int:
        return self.db.execute("SELECT COALESCE(MAX(id), 0) FROM passages").fetchone()[0]

    def passage_ids(self) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT id FROM passages")}

    def vector_bytes(self, model_id: str) -> int:
        """Bytes of the stored vectors of `model_id` (the blobs alone, without SQLite's pages)."""
        return int(self.db.execute("SELECT COALESCE(SUM(LENGTH(vector)), 0) FROM vectors"
                                   " WHERE model_id=?", (model_id,)).fetchone()[0])

    def integrity(self) -> list[str]:
        """Problems found by SQLite's own check and our invariants; [] when healthy."""
        problems = []
        rows = [r[0] for r in self.db.execute("PRAGMA integrity_check")]
        if rows != ["ok"]:
            problems += rows[:10]
        problems += [f"foreign key violation in {r[0]}" for r in
                     self.db.execute("PRAGMA foreign_key_check")][:10]
        return problems

    def unembedded(self, model_id: str) -> int:
        """Passages without a vector of `model_id` (indexed while the model was missing)."""
        return self.db.execute(
            "SELECT COUNT(*) FROM passages p LEFT JOIN vectors v"
            " ON v.passage_id=p.id AND v.model_id=? WHERE v.passage_id IS NULL",
            (model_id,)).fetchone()[0]

    def passages_missing_vectors(self, model_id: str, after: int = 0,
                                 limit: int = 32) -> list[int]:
        """Up to `limit` passage ids above `after`, in order, with no vector of `model_id`."""
        return [r[0] for r in self.db.execute(
            "SELECT p.id FROM passages p WHERE p.id > ? AND NOT EXISTS (SELECT 1 FROM vectors v"
            " WHERE v.passage_id=p.id AND v.model_id=?) ORDER BY p.id LIMIT ?",
            (after, model_id, limit))]


def _chunks(ids: Iterable[int], size: int) -> Iterator[tuple[list[int], str]]:
    """`ids` in lists of at most `size`, each with its SQL placeholders."""
    ids = [int(i) for i in ids]
    for start in range(0, len(ids), size):
        chunk = ids[start:start + size]
        yield chunk, ",".join("?" * len(chunk))
