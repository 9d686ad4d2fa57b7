"""The source of truth: pages, visits, passages and their vectors in SQLite (WAL).

Every write bumps one change sequence (`meta.seq`) and stamps the pages it
touched (`pages.seq`) or, for deleted pages, leaves a tombstone. The derived
indexes (text_index, vectors) remember the last sequence they applied and
catch up from here, so a crash between two stores never loses a committed page.

With a `cipher` (crypto/cipher.py; the engine gives one to an encrypted store) page titles,
page metadata, passage text and vectors are sealed as they are written and opened as they
are read; URLs, sites, times and counts stay as they are (README: what is encrypted).
Deleted rows are overwritten (secure_delete), so a forgotten page's bytes do not linger
in the file's free pages.

Pages and passages are read back by the `PageReads` mixin (reads.py), the vectors' rows
read and written by the `VectorRows` mixin (vector_rows.py).
This module must never embed, tokenise or search: it stores what it is given,
in one transaction per call, and reads it back.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np

from ... import config, faults
from ...errors import Code, RewindError, disk_full
from ..crypto.cipher import FieldCipher
from .migrations import MIGRATIONS, SCHEMA_VERSION
from .reads import PageReads
from .records import PageRecord, PassageRecord, PassageVectors
from .vector_rows import VectorRows


def storage_error(exc: sqlite3.Error, path: Path | None = None) -> RewindError:
    """SQLite's error as one a person can act on (a full disk, a busy or damaged store)."""
    msg = str(exc).lower()
    if "full" in msg:
        return disk_full(path.parent if path else ".", "nothing of this write was stored")
    if "locked" in msg or "busy" in msg:
        return RewindError(
            Code.STORE_LOCKED, "The store is busy with another writer.",
            "Try again in a moment.",
        )
    if "malformed" in msg or "not a database" in msg:
        return RewindError(
            Code.STORE_CORRUPT, f"The store is damaged ({exc}).",
            "`rewind doctor --repair` copies what can be read into a new store (the damaged "
            "file is kept aside); or restore a backup with `rewind import`.",
        )
    return RewindError(Code.INTERNAL, f"Storage error: {exc}.")


class Store(PageReads, VectorRows):
    """One profile's SQLite database. Not thread-safe: one Store per thread."""

    def __init__(self, path: Path, *, readonly: bool = False, busy_timeout_s: float = 10.0,
                 cipher: FieldCipher | None = None):
        self.path = path
        self.readonly = readonly
        self.cipher = cipher
        self._depth = 0  # open transactions: 0 none, 1 the outer one, more nested in it
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
                self._wal(busy_timeout_s)
                self.db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable at checkpoint
                self.db.execute("PRAGMA secure_delete=ON")  # forgotten bytes are overwritten
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.isolation_level = None  # explicit transactions only
            if not readonly:
                self._migrate()
            else:
                self._check_version()
        except sqlite3.Error as exc:
            raise storage_error(exc, self.path) from None

    def _wal(self, timeout_s: float) -> None:
        """Switch the file to WAL. When two processes open a new store at the same moment,
        both switch it at once and SQLite answers one of them "locked" without waiting
        (a deadlock it will not wait out): try again until the busy timeout."""
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc).lower() or time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

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
                f"Upgrade Rewind (`{config.setup_command()}`).",
            )
        if self.readonly and 0 < version < SCHEMA_VERSION:  # a reader cannot upgrade it
            raise RewindError(
                Code.NOT_AVAILABLE,
                f"This store was written by an older Rewind (schema {version}); it is "
                "upgraded the first time Rewind opens it to write.",
                "Run `rewind doctor` once (it upgrades the store), or open the browser so "
                "the extension's helper does, then try again.",
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
        """BEGIN IMMEDIATE ... COMMIT; rolls back on any error, so nothing is stored half.
        A transaction opened inside another one of this store is part of it (a batch of
        writes, e.g. a history import, commits once)."""
        if self.readonly:
            raise RewindError(Code.INTERNAL, "write on a read-only store")
        if self._depth:
            self._depth += 1
            try:
                yield self.db
            finally:
                self._depth -= 1
            return
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise storage_error(exc, self.path) from None
        self._depth = 1
        try:
            yield self.db
            faults.hit("store_commit")
            self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._rollback()
            raise storage_error(exc, self.path) from None
        except BaseException:
            self._rollback()
            raise
        finally:
            self._depth = 0

    def _rollback(self) -> None:
        if self.db.in_transaction:  # SQLite may already have rolled back (e.g. disk full)
            self.db.execute("ROLLBACK")

    def close(self) -> None:
        self.db.close()

    # ---- sealing (a no-op without a cipher; opening is reads.py's) ----------------------

    def _seal(self, text: str, column: str) -> str | bytes:
        return self.cipher.seal_text(text, column) if self.cipher else text

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
                # The ids AUTOINCREMENT would give (never one used before), given here so
                # that the rows go in with one executemany under this transaction's lock.
                first = db.execute(
                    "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence"
                    " WHERE name='passages'), 0), COALESCE((SELECT MAX(id) FROM passages), 0))"
                ).fetchone()[0] + 1
                ids = list(range(first, first + len(passages)))
                db.executemany(
                    "INSERT INTO passages(id, page_id, position, text, span_start, span_end,"
                    " quality, is_title) VALUES (?,?,?,?,?,?,?,?)",
                    [(pid, page_id, p.position, self._seal(p.text, "text"), p.span[0],
                      p.span[1], p.quality, int(p.is_title))
                     for pid, p in zip(ids, passages, strict=True)])
                if vectors is not None:
                    self._insert_vectors(np.asarray(ids, np.int64)[vectors.owner], vectors,
                                         model_id)
            return page_id, ids

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
            raise storage_error(exc, self.path) from None
        self.checkpoint()

    def touch_all(self) -> None:
        """Mark every page changed, so derived indexes rebuild them on their next catch-up."""
        with self.transaction() as db:
            seq = self._next_seq()
            db.execute("UPDATE pages SET seq=?", (seq,))

    def integrity(self) -> list[str]:
        """Problems found by SQLite's own check and our invariants; [] when healthy."""
        problems = []
        rows = [r[0] for r in self.db.execute("PRAGMA integrity_check")]
        if rows != ["ok"]:
            problems += rows[:10]
        problems += [f"foreign key violation in {r[0]}" for r in
                     self.db.execute("PRAGMA foreign_key_check")][:10]
        return problems
