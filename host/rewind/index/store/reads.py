"""Reading pages and passages back from the store (a mixin of `Store`): by URL, by id, in
visit order, by site and time, with their counts. A sealed store's titles, metadata and
passage text are opened here as they are read (the store's cipher).
This module must never write: every write is the store's, in its transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .records import PAGE_COLUMNS, PageRecord, PassageRecord, page_from_row
from .vector_rows import chunks

if TYPE_CHECKING:
    from ..crypto.cipher import FieldCipher


class PageReads:
    """Needs from the store: `db` and `cipher`."""

    db: sqlite3.Connection
    cipher: FieldCipher | None

    def _open(self, value: str | bytes, column: str) -> str:
        if self.cipher is None:
            return value  # type: ignore[return-value]
        return self.cipher.open_text(value, column)  # type: ignore[arg-type]

    def _page(self, row: tuple) -> PageRecord:
        if self.cipher is not None:
            row = (*row[:3], self._open(row[3], "title"), *row[4:6],
                   self._open(row[6], "metadata"), *row[7:])
        return page_from_row(row)

    def _passage(self, row: tuple) -> tuple[int, int, PassageRecord]:
        pid, page_id, pos, text, s, e, q, t = row
        return pid, page_id, PassageRecord(self._open(text, "text"), pos, (s, e), q, bool(t), pid)

    def page_by_url(self, url: str) -> PageRecord | None:
        row = self.db.execute(f"SELECT {PAGE_COLUMNS} FROM pages WHERE url=?", (url,)).fetchone()
        return self._page(row) if row else None

    def pages_by_ids(self, ids: Iterable[int]) -> dict[int, PageRecord]:
        out: dict[int, PageRecord] = {}
        for chunk, marks in chunks(set(ids), 500):
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
        for chunk, marks in chunks(page_ids, 500):
            rows = self.db.execute(
                "SELECT id, page_id, position, text, span_start, span_end, quality, is_title"
                f" FROM passages WHERE page_id IN ({marks}) ORDER BY page_id, position, id", chunk)
            out += [self._passage(r) for r in rows]
        return out

    def passages_by_ids(self, ids: Iterable[int]) -> dict[int, tuple[int, PassageRecord]]:
        out = {}
        for chunk, marks in chunks(set(ids), 500):
            rows = self.db.execute(
                "SELECT id, page_id, position, text, span_start, span_end, quality, is_title"
                f" FROM passages WHERE id IN ({marks})", chunk)
            for row in rows:
                pid, page_id, passage = self._passage(row)
                out[pid] = (page_id, passage)
        return out

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
