"""Forgetting and retention: a part of the engine, given the writer and the logs.

Forget a page, a site, a time range or everything in one write: the store (rows
overwritten), the text index (caught up before the write lock goes), the vectors (before
the next search; their rows in the snapshots on disk zeroed), the WAL (emptied), the
audit log (the pages' lines removed) and a forget mark for copies still on their way.
Retention forgets what the person's limits say must go, oldest first, as `expired`.
This module must never forget anything it was not asked to, or keep what it forgot.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..capture import urls
from ..errors import Code, RewindError
from ..index.derived import vector_file
from . import retention

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from ..config import Settings
    from ..index.crypto.cipher import FieldCipher
    from ..index.store.store import Store
    from .audit import AuditLog
    from .forget_marks import ForgetMarks
    from .stores import Writer


class Forgetter:
    def __init__(self, writer: Writer, settings: Callable[[], Settings], data_dir: Path,
                 audit: AuditLog, marks: ForgetMarks, cipher: FieldCipher | None) -> None:
        """`settings` is read at each use: a person may change them while the host runs."""
        self.writer = writer
        self.settings = settings
        self.data_dir = data_dir
        self.audit = audit
        self.marks = marks
        self.cipher = cipher
        self._writes = 0

    def _forget(self, store: Store, ids: list[int], kind: str, site: str | None = None,
                event: str = "forgotten", mark: dict | None = None) -> int:
        """Delete pages from the store (the text index follows before the lock goes, the
        vectors before the next search), empty the WAL of their old bytes, take their
        lines out of the audit log, and leave a forget mark (`mark`: what was asked) so a
        copy on its way is not stored again; one audit line says what kind and how many."""
        if mark is not None:
            self.marks.add(kind, **mark)
        gone = {p.url for p in store.pages_by_ids(ids).values()}
        removed = store.delete_pages(ids)
        store.checkpoint()
        # The vector snapshots would keep the pages' codes and int8 rows until their next
        # compaction: zeroed where they lie now, at the cost of the rows, not of the file
        # (this process's index marks them dead; the next one learns it from tombstones).
        for snap in sorted((self.data_dir / vector_file.DIRECTORY).glob("*.rvec")):
            vector_file.drop_pages(snap, ids, self.cipher)

        def named(entry: dict) -> bool:
            listed = entry.get("urls") or ()  # pages an AI tool was given (mcp/activity.py)
            if kind == "everything":
                return "url" in entry or "site" in entry or bool(listed)
            if entry.get("url") in gone or entry.get("query") in gone or any(
                    u in gone for u in listed):
                return True
            s = str(entry.get("site", ""))
            return site is not None and (s == site or s.endswith("." + site))

        # An entry `named` matches holds one of the pages' URLs, or the site, in its line.
        within = None if kind == "everything" else [*gone, *([site] if site else [])]
        self.audit.drop(named, within)
        self.audit.write(event, kind=kind, pages=removed)
        return removed

    def forget_url(self, url: str) -> int:
        norm = urls.normalize(url, self.settings().max_url_chars)
        with self.writer.writing() as store:
            page = store.page_by_url(norm)
            return self._forget(store, [page.id] if page else [], "page", mark={"url": norm})

    def forget_domain(self, domain: str) -> int:
        dom = domain.strip().lower().removeprefix("www.")
        if not dom:
            raise RewindError(Code.BAD_REQUEST, "Which site? The domain is empty.")
        with self.writer.writing() as store:
            return self._forget(store, store.page_ids_where(domain=dom), "site", site=dom,
                                mark={"site": dom})

    def forget_range(self, since: float | None, until: float | None) -> int:
        if since is None and until is None:
            raise RewindError(Code.BAD_REQUEST, "Give a start or an end time to forget.")
        with self.writer.writing() as store:
            return self._forget(store, store.page_ids_where(since=since, until=until),
                                "time range", mark={"since": since, "until": until})

    def clear(self) -> int:
        with self.writer.writing() as store:
            return self._forget(store, store.all_page_ids(), "everything", mark={})

    def after_write(self, store: Store) -> None:
        """Every `retention_every_writes` writes, the person's limits are applied."""
        self._writes += 1
        if self._writes % max(1, self.settings().retention_every_writes) == 0:
            self.retain(store)

    def retain(self, store: Store) -> int:
        """Under the write lock: forget what the limits say must go; how many pages."""
        s = self.settings()
        if s.retention_max_age_days <= 0 and s.retention_max_mb <= 0:
            return 0
        removed = 0
        old = retention.too_old(store, s.retention_max_age_days, time.time())
        if old:
            removed += self._forget(store, old, "older than the maximum age", event="expired")
        for _ in range(5):  # estimates of freed bytes are close, not exact: measure again
            big = retention.over_size(store, s.retention_max_mb, self.sizes(store))
            if not big:
                break
            removed += self._forget(store, big, "over the maximum size", event="expired")
        return removed

    def apply_retention(self) -> int:
        """Forget what the retention settings say must go now; how many pages went."""
        s = self.settings()
        if s.retention_max_age_days <= 0 and s.retention_max_mb <= 0:
            return 0
        with self.writer.writing() as store:
            return self.retain(store)

    def sizes(self, store: Store | None = None) -> retention.Sizes:
        return retention.sizes(store or self.writer.reader(), self.data_dir,
                               self.writer.text_index.dir)
