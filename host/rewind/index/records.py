"""What the store holds, as records: a page with its visits, and its passages.

This module must never touch SQLite beyond turning one row into one record.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field


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
            "indexed_at": self.indexed_at,
        }


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
