"""Retention and storage in the open: how big each part of a store is, and which pages a
person's limits (maximum age, maximum size; both off by default) say must go.

Sizes are measured, not guessed: SQLite's own page counts for the database (the part in
use: a deleted page's space is free again, though the file keeps its size until VACUUM),
the bytes of the text (titles and passages), of the vectors and of the text index's
files. The size limit is on the database in use, the truth (the text index is derived
from it and its files shrink only as tantivy merges segments, so counting them would
forget more than needed): the oldest pages (by last visit) go first, as many as bring
the database under the limit by their own measured bytes.
This module must never delete anything: the engine forgets what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..index.store.store import Store

PAGE_ROW_BYTES = 200  # a page's own row and index entries, besides its text and vectors
PASSAGE_ROW_BYTES = 40  # a passage's row besides its text


@dataclass
class Sizes:
    text_bytes: int  # titles and passages as stored (sealed when encrypted)
    vector_bytes: int
    text_index_bytes: int
    database_bytes: int  # rewind.db in use (free pages not counted)
    file_bytes: int  # every file of the data directory (WAL, free pages, logs included)

    @property
    def used_bytes(self) -> int:
        """What the size limit is measured on."""
        return self.database_bytes

    def to_dict(self) -> dict:
        return {**self.__dict__, "used_bytes": self.used_bytes}


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def sizes(store: Store, data_dir: Path, text_dir: Path) -> Sizes:
    one = store.db.execute
    page_size = one("PRAGMA page_size").fetchone()[0]
    in_use = one("PRAGMA page_count").fetchone()[0] - one("PRAGMA freelist_count").fetchone()[0]
    text = (one("SELECT COALESCE(SUM(LENGTH(CAST(text AS BLOB))), 0) FROM passages")
            .fetchone()[0]
            + one("SELECT COALESCE(SUM(LENGTH(CAST(title AS BLOB))), 0) FROM pages")
            .fetchone()[0])
    vectors = one("SELECT COALESCE(SUM(LENGTH(vector)), 0) FROM vectors").fetchone()[0]
    return Sizes(int(text), int(vectors), dir_bytes(text_dir), int(in_use * page_size),
                 dir_bytes(data_dir))


def too_old(store: Store, max_age_days: int, now: float) -> list[int]:
    if max_age_days <= 0:
        return []
    return store.page_ids_where(until=now - max_age_days * 86400.0)


def over_size(store: Store, max_mb: int, current: Sizes) -> list[int]:
    """The oldest pages whose bytes bring the store under `max_mb` (0: no limit)."""
    if max_mb <= 0:
        return []
    excess = current.used_bytes - max_mb * 1_000_000
    if excess <= 0:
        return []
    rows = store.db.execute(
        "SELECT p.id, COUNT(s.id), COALESCE(SUM(LENGTH(CAST(s.text AS BLOB))), 0)"
        " + LENGTH(CAST(p.title AS BLOB)) + LENGTH(p.url),"
        " COALESCE(SUM(LENGTH(v.vector)), 0)"
        " FROM pages p LEFT JOIN passages s ON s.page_id = p.id"
        " LEFT JOIN vectors v ON v.passage_id = s.id"
        " GROUP BY p.id ORDER BY p.last_visit ASC, p.id ASC")
    est = [(page_id, PAGE_ROW_BYTES + text + vec + n * PASSAGE_ROW_BYTES)
           for page_id, n, text, vec in rows]
    # SQLite's own overhead (b-tree pages, their slack) scales the rows' bytes evenly
    scale = current.database_bytes / max(1, sum(b for _, b in est))
    out: list[int] = []
    freed = 0.0
    for page_id, b in est:
        if freed >= excess:
            break
        out.append(page_id)
        freed += b * scale
    return out
