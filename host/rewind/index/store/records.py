"""What the store holds, as records: a page with its visits, its passages, their vectors.

This module must never touch SQLite beyond turning one row into one record (and a
vector into its stored bytes and back).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

# pages.source of a page imported from the browser's history: visited, not read in a tab
# (capture/visits.py); it becomes "browser" once the person reads it.
HISTORY = "history"


@dataclass
class PassageRecord:
    text: str
    position: int
    span: tuple[int, int]
    quality: float = 0.5
    is_title: bool = False
    id: int | None = None


@dataclass
class PageRecord:
    url: str
    domain: str
    title: str
    content_hash: str
    source: str
    first_visit: float
    last_visit: float
    visit_count: int
    dwell_s: float
    metadata: dict = field(default_factory=dict)
    indexed_at: float = 0.0
    id: int | None = None
    seq: int = 0

    @property
    def read(self) -> bool:
        """Read in a tab (or indexed from a file); False: only visited, from the history."""
        return self.source != HISTORY

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "url": self.url,
            "domain": self.domain,
            "title": self.title,
            "first_visit": self.first_visit,
            "last_visit": self.last_visit,
            "visit_count": self.visit_count,
            "dwell_s": self.dwell_s,
            "source": self.source,
            "read": self.read,
            "indexed_at": self.indexed_at,
        }


@dataclass
class PassageVectors:
    """The vectors of a list of passages: row i belongs to passage `owner[i]` (an index
    into that list) as its piece `piece[i]`. A passage longer than its model's window has
    several pieces (models/pieces.py); most have one."""

    matrix: np.ndarray  # float32 (rows, dim)
    owner: np.ndarray  # int64 (rows,)
    piece: np.ndarray  # int64 (rows,)
    truncated: int = 0  # passages whose tail was cut all the same (pieces.MAX_PIECES)

    @classmethod
    def one_each(cls, matrix: np.ndarray) -> PassageVectors:
        """One vector per passage, in order (a passage that fits its model's window)."""
        n = len(matrix)
        return cls(matrix, np.arange(n, dtype=np.int64), np.zeros(n, np.int64))

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def passages(self) -> int:
        """How many passages these vectors cover."""
        return len(np.unique(self.owner))


PAGE_COLUMNS = (
    "id, url, domain, title, content_hash, source, metadata, first_visit, last_visit,"
    " visit_count, dwell_s, indexed_at, seq"
)


def page_from_row(row: sqlite3.Row | tuple) -> PageRecord:
    (pid, url, dom, title, chash, source, meta, first, last, count, dwell, indexed, seq) = row
    return PageRecord(
        id=pid, url=url, domain=dom, title=title, content_hash=chash, source=source,
        metadata=json.loads(meta), first_visit=first, last_visit=last, visit_count=count,
        dwell_s=dwell, indexed_at=indexed, seq=seq,
    )


# Vectors are stored as float16: half the bytes of float32, and cosines within ~1e-3 of it,
# so exact rescoring (index/derived/vectors.py) ranks as float32 would. Rows written before schema 2
# are float32: a row's byte length tells which.
VECTOR_DTYPE = np.float16


def encode_vector(vec: np.ndarray) -> bytes:
    return np.ascontiguousarray(vec, dtype=VECTOR_DTYPE).tobytes()


def decode_vectors(blobs: Sequence[bytes], dims: Sequence[int]) -> np.ndarray:
    """float32 (len(blobs), dim) from stored rows of one dimension, float16 or float32."""
    if not blobs:
        return np.empty((0, 0), np.float32)
    dim = dims[0]
    joined = b"".join(blobs)
    if len(joined) == 2 * dim * len(blobs) and len(set(dims)) == 1:  # every row float16
        return np.frombuffer(joined, np.float16).reshape(-1, dim).astype(np.float32)
    out = np.empty((len(blobs), dim), np.float32)
    for i, (blob, d) in enumerate(zip(blobs, dims, strict=True)):
        if d != dim:
            raise ValueError(f"stored vectors of one model have {dim} and {d} dims")
        out[i] = np.frombuffer(blob, np.float16 if len(blob) == 2 * d else np.float32)
    return out


def vector_rows(rows: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(passage ids, page ids, float32 matrix) from (passage id, page id, dim, blob) rows."""
    if not rows:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty((0, 0), np.float32)
    pids = np.fromiter((r[0] for r in rows), np.int64, len(rows))
    pages = np.fromiter((r[1] for r in rows), np.int64, len(rows))
    return pids, pages, decode_vectors([r[3] for r in rows], [r[2] for r in rows])
