"""The store's vector rows: a passage's vectors of each model (and each piece of a passage
over the model's window), written, read and counted (a mixin of `Store`).

Vectors are float16 blobs (records.encode_vector), sealed with the store's cipher when it
has one. Several models' rows live side by side while a re-embedding job runs
(profile/embedding_job.py); every read names its model.
This module must never compare vectors or choose a model: derived/vectors.py and the engine do.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from .records import PassageVectors, decode_vectors, encode_vector, vector_rows

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from ..crypto.cipher import FieldCipher


class VectorRows:
    """Needs from the store: `db`, `cipher`, `transaction()` and `_next_seq()`."""

    db: sqlite3.Connection
    cipher: FieldCipher | None
    transaction: Callable[[], AbstractContextManager[sqlite3.Connection]]
    _next_seq: Callable[[], int]

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
        the same transaction (a job's record: profile/embedding_job.py). Returns passages
        written."""
        with self.transaction() as db:
            ids = np.asarray(passage_ids, np.int64)
            alive = set()
            for chunk, marks in chunks(ids.tolist(), 500):
                alive |= {r[0] for r in db.execute(
                    f"SELECT id FROM passages WHERE id IN ({marks})", chunk)}
            keep = np.fromiter((int(ids[o]) in alive for o in vectors.owner), bool,
                               len(vectors.owner))
            written = sorted(alive)
            for chunk, marks in chunks(written, 500):
                db.execute(f"DELETE FROM vectors WHERE model_id=? AND passage_id IN ({marks})",
                           (model_id, *chunk))
            kept = PassageVectors(vectors.matrix[keep], vectors.owner[keep],
                                  vectors.piece[keep])
            self._insert_vectors(ids[kept.owner], kept, model_id)
            if stamp and written:
                seq = self._next_seq()
                for chunk, marks in chunks(written, 500):
                    db.execute(f"UPDATE pages SET seq=? WHERE id IN (SELECT page_id FROM"
                               f" passages WHERE id IN ({marks}))", (seq, *chunk))
            if then is not None:
                then(db, len(written))
            return len(written)

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
        for chunk, marks in chunks(page_ids, 500):
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
        for chunk, marks in chunks(passage_ids, 30_000):  # under SQLite's 32,766 variables
            rows += self.db.execute(
                f"SELECT passage_id, piece, dim, vector FROM vectors WHERE passage_id IN"
                f" ({marks}) AND model_id=?", (*chunk, model_id)).fetchall()
        if not rows:
            return np.empty(0, np.int64), np.empty((0, 0), np.float32)
        # Ordered here: SQLite's ORDER BY built a temporary B-tree for the pieces on every
        # read (a search's 185 rows: 0.49 against 0.35 ms); they come nearly sorted.
        rows.sort(key=lambda r: (r[0], r[1]))
        pids = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        return pids, decode_vectors([self._open_vec(r[3]) for r in rows],
                                    [r[2] for r in rows])

    def vector_models(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT model_id, COUNT(*) FROM vectors GROUP BY model_id"))

    def vector_bytes(self, model_id: str) -> int:
        """Bytes of the stored vectors of `model_id` (the blobs alone, without SQLite's pages)."""
        return int(self.db.execute("SELECT COALESCE(SUM(LENGTH(vector)), 0) FROM vectors"
                                   " WHERE model_id=?", (model_id,)).fetchone()[0])

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


def chunks(ids: Iterable[int], size: int) -> Iterator[tuple[list[int], str]]:
    """`ids` in lists of at most `size`, each with its SQL placeholders.

    A list is padded to a power of two (its last id repeated: `IN` is a set), so a query
    comes in a few lengths: each length is a statement of its own, prepared and kept in the
    connection's cache (128 of them), and a search's lists of any length between 1 and 500
    would otherwise fill it with programs of hundreds of instructions.
    """
    ids = [int(i) for i in ids]
    for start in range(0, len(ids), size):
        chunk = ids[start:start + size]
        chunk += chunk[-1:] * (min(size, 1 << (len(chunk) - 1).bit_length()) - len(chunk))
        yield chunk, ",".join("?" * len(chunk))
