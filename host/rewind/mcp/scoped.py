"""The engine seen through one client's scope: all an AI tool's calls read through this.

`ScopedRewind` hands answers/ (Answerer, build_context) and search/ exactly what they
take from the engine — its settings, its embedder and a Searcher — but every Searcher it
gives has the scope, so the one retrieval path (search/retrieve.py) sees only the pages
the scope admits, in its queries. Reading a page by URL and listing recent pages ask the
store with the same filter; a page outside the scope reads as a page not in the history.
This module must never write, and never return a page the scope does not admit.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..capture import urls
from ..config import Settings
from ..errors import RewindError
from ..index.store import page_filter
from ..index.store.page_filter import PageFilter
from ..index.store.records import PageRecord, PassageRecord
from ..search import Searcher, SearchQuery, SearchResponse, search

if TYPE_CHECKING:
    from ..models.embedder import Embedder
    from ..profile.engine import Rewind


class ScopedRewind:
    def __init__(self, engine: Rewind, scope: PageFilter) -> None:
        self.engine = engine
        self.scope = scope

    @property
    def settings(self) -> Settings:
        return self.engine.settings

    @property
    def model_dir(self) -> Path:
        return self.engine.model_dir

    def embedder(self) -> Embedder | None:
        return self.engine.embedder()

    @contextmanager
    def searcher(self) -> Iterator[Searcher]:
        # a scope that admits everything asks nothing of the queries (nor of the guards)
        with self.engine.searcher(None if self.scope.everything else self.scope) as s:
            yield s

    def search(self, q: SearchQuery) -> SearchResponse:
        with self.searcher() as s:
            return search(s, q)

    def page(self, url: str) -> tuple[PageRecord, list[PassageRecord]] | None:
        """The stored page at `url` with its passages in order, if the scope admits it."""
        try:
            norm = urls.normalize(url, self.settings.max_url_chars)
        except RewindError:
            return None
        store = self.engine.reader()
        page = store.page_by_url(norm)
        if page is None or not self.scope.admits(page):
            return None
        return page, [p for _pid, _page, p in store.passages_of([page.id])]

    def recent(self, where: PageFilter, limit: int) -> list[PageRecord]:
        """Pages `where` admits within the scope, the most recently read first."""
        return page_filter.recent_pages(self.engine.reader(), where.narrowed(self.scope),
                                        limit)
