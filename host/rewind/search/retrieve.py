"""Passages for a query: dense and BM25 retrieval, fused once, for search and for answers.

`Searcher.passages` is the one retrieval path: the search results (search/pages.py) and
the sources of an answer or a built context (answers/context.py) are both made from what
it returns, so a query is fused the same way wherever it is asked. Every candidate gets
its cosine with the query when the embedder is there (fusion, confidence and the answer
side use it); without an embedder retrieval goes on with BM25 alone and says why. A hybrid
search's BM25 runs on the engine's worker thread while the dense stages scan the codes
(tantivy, numpy and SQLite leave the GIL, so on two cores the halves overlap); the worker
does only BM25: reading its hits' vectors there too was slower, the two threads' Python
parts waiting on each other for the GIL.
A Searcher with a `scope` (an AI tool's part of the history) retrieves only from the pages
the scope admits: both retrievers take it into their queries (index/store/page_filter.py).
This module must never write to any store.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future
from dataclasses import dataclass

import numpy as np

from ..config import Settings
from ..errors import Code, RewindError
from ..index.derived.dense_search import VectorCache
from ..index.derived.text_index import TextIndex
from ..index.derived.text_queries import KeywordHit
from ..index.derived.vectors import VectorIndex
from ..index.store import page_filter
from ..index.store.page_filter import PageFilter
from ..index.store.records import PageRecord, PassageRecord
from ..index.store.store import Store
from ..models.specs import Confidence
from ..search_modes import DEFAULT_MODE, MODES
from .fusion import fuse_adaptive, fuse_rrf
from .query_form import in_unspaced_script, remembered_words


@dataclass(frozen=True)
class SearchQuery:
    """What a search or a question retrieves for: the words, the mode, the filters, and how
    many pages a search shows (`limit`; the passages an answer uses are counted by
    answers/context.py)."""

    text: str
    mode: str = DEFAULT_MODE
    limit: int = 10
    since: float | None = None  # epoch seconds of the last visit
    until: float | None = None
    domain: str | None = None  # a site and its subdomains


PassageQuery = SearchQuery  # the name bench/ scripts still use


@dataclass
class PassageHit:
    passage_id: int
    page_id: int
    score: float  # fused (or the one retriever's) score: higher is better, this query only
    similarity: float | None  # cosine with the query, when the embedder ran
    keyword: float | None  # BM25 score, when the passage matched the words


@dataclass
class Retrieved:
    hits: list[PassageHit]  # best first
    mode: str  # the mode used: "keyword" when semantic search was unavailable
    query_vector: np.ndarray | None
    keyword_top: float  # the best BM25 score among the candidates (0: none matched)
    degraded: str | None = None  # why semantic search was unavailable, if it was
    took_ms: float = 0.0
    keyword_degraded: str | None = None  # why keyword matching was left out of a hybrid search

    def keyword_share(self, hit: PassageHit) -> float:
        """A passage's BM25 score as a share of the best one (0 when it did not match)."""
        return (hit.keyword or 0.0) / self.keyword_top if self.keyword_top else 0.0

    def notice(self, found: str) -> str | None:
        """What the person is told when one retriever was left out (None: both ran as
        asked); `found` names what was found: "the results", "the sources"."""
        if self.keyword_degraded is not None:
            return f"{self.keyword_degraded} {found.capitalize()} were found by meaning only."
        if self.degraded is not None:
            return (f"Semantic search is unavailable ({self.degraded}); "
                    f"{found} were found by words only.")
        return None


class Searcher:
    """One profile's indexes, read together. `embed_query` is None when no model is usable."""

    def __init__(self, store: Store, text_index: TextIndex, vectors: VectorIndex | None,
                 embed_query: Callable[[str], np.ndarray] | None, confidence: Confidence | None,
                 settings: Settings, embedder_problem: str | None = None,
                 scope: PageFilter | None = None, worker: Executor | None = None):
        self.store = store
        self.scope = scope  # a reader's part of the history (mcp/access.py): all it sees
        self.text_index = text_index
        self._vectors = vectors
        self._embed_query = embed_query if vectors is not None else None
        self.confidence = confidence  # None without an embedder: no cosine scale
        self.settings = settings
        self.embedder_problem = embedder_problem
        self._worker = worker  # runs a hybrid search's BM25 beside its dense stages
        # Vectors this search has (retrieval's: stored or int8; then MMR's and the answer's
        # packing): each passage's read once. A Searcher lives for one search.
        self._cache = VectorCache(vectors.dim) if vectors is not None else None
        self._pages: dict[int, PageRecord | None] = {}  # the same for records (None: absent)
        self._passages: dict[int, tuple[int, PassageRecord] | None] = {}

    def passages(self, q: SearchQuery) -> Retrieved:
        """Each retriever's `candidates_per_retriever` best passages, fused, best first."""
        t0 = time.perf_counter()
        s = self.settings
        if q.mode not in MODES:
            raise RewindError(Code.BAD_REQUEST, f"Unknown search mode {q.mode!r}.",
                              f"Use one of: {', '.join(MODES)}.")
        text = (q.text or "").strip()
        mode = q.mode
        degraded = None
        qvec = None
        if self._embed_query is None:
            if mode != "keyword":
                degraded, mode = self.embedder_problem or "no embedding model", "keyword"
        elif text:
            qvec = self._embed_query(text)
            self._vectors.refresh(self.store)
        if not text:
            return Retrieved([], mode, None, 0.0, degraded)

        k = s.candidates_per_retriever
        where = PageFilter(q.domain.lower().removeprefix("www.") if q.domain else None,
                           since=q.since, until=q.until)
        if self.scope is not None:
            where = where.narrowed(self.scope)
        allowed = None  # filtered in both retrievers' queries: no other page is scored
        if qvec is not None and not where.everything:
            allowed = np.asarray(page_filter.page_ids(self.store, where), np.int64)

        dense: dict[int, float] = {}
        keyword: dict[int, float] = {}
        page_of: dict[int, int] = {}
        damaged = None
        if mode == "hybrid":
            try:  # a damaged keyword index: the meaning alone, and the notice says why
                self.text_index.check_usable()
            except RewindError as exc:
                damaged = exc
        by_meaning = mode in ("semantic", "hybrid") and qvec is not None
        keyword_hits: list[KeywordHit] = []
        keyword_job: Future[list[KeywordHit]] | None = None
        if mode == "keyword" or (mode == "hybrid" and damaged is None):
            if by_meaning and self._worker is not None:
                keyword_job = self._worker.submit(self.text_index.search, text, k, where=where)
            else:
                keyword_hits = self.text_index.search(text, k, where=where)
        if by_meaning:
            for h in self._vectors.rank(qvec, k, self._vectors.shortlist(qvec, k, allowed),
                                        self._cache):
                dense[h.passage_id] = h.similarity
                page_of[h.passage_id] = h.page_id
        if keyword_job is not None:
            keyword_hits = keyword_job.result()
        keyword_degraded = None
        if damaged is not None:
            if not dense:  # nothing by meaning either: the keyword index's error, with the fix
                raise damaged
            keyword_degraded, mode = damaged.message, "semantic"
        for h in keyword_hits:
            keyword[h.passage_id] = h.score
            page_of[h.passage_id] = h.page_id

        cosine = dict(dense)
        if qvec is not None:  # the keyword-only hits': their int8 rows', not a store read
            missing = [pid for pid in keyword if pid not in cosine]
            if missing:
                vecs = self._vectors.approximate(missing, [page_of[p] for p in missing],
                                                 self._cache)
                for pid, sim in zip(missing, (vecs @ qvec).tolist(), strict=True):
                    cosine[pid] = sim

        if mode == "semantic":
            scores = dense
        elif mode == "keyword":
            scores = keyword
        elif s.fusion == "adaptive":
            scores = fuse_adaptive(dense, keyword, s, page_of, self._words_decide(text))
        else:
            scores = fuse_rrf(dense, keyword, s)
        hits = [PassageHit(pid, page_of[pid], score, cosine.get(pid), keyword.get(pid))
                for pid, score in scores.items()]
        hits.sort(key=lambda h: (-h.score, h.passage_id))
        return Retrieved(hits, mode, qvec, max(keyword.values(), default=0.0), degraded,
                         (time.perf_counter() - t0) * 1000, keyword_degraded)

    def _words_decide(self, text: str) -> bool:
        """Trust BM25 as far as it goes: the query is a few remembered words, or its script
        is one the model's cosines say nothing about (MiniLM on Japanese)."""
        unread = (self.confidence is not None and not self.confidence.unspaced_scripts
                  and in_unspaced_script(text))
        return unread or remembered_words(text, self.settings.fusion_remembered_max_terms)

    # ---- what callers read about the passages they got ---------------------------------

    def vectors_for(self, passage_ids: list[int]) -> np.ndarray | None:
        """The passages' unit vectors (zero rows where one has none); None without vectors."""
        if self._vectors is None:
            return None
        return self._vectors.vectors_for(passage_ids, self._cache)

    def pages(self, page_ids: Iterable[int]) -> dict[int, PageRecord]:
        pages = _remembered(self._pages, page_ids, self.store.pages_by_ids)
        if self.scope is not None:  # retrieval never returns one: this is a second guard
            pages = {i: p for i, p in pages.items() if self.scope.admits(p)}
        return pages

    def passage_records(self, passage_ids: Iterable[int]
                        ) -> dict[int, tuple[int, PassageRecord]]:
        """passage id -> (page id, passage); passages deleted since retrieval (or outside
        the scope) are absent."""
        found = _remembered(self._passages, passage_ids, self.store.passages_by_ids)
        if self.scope is not None:
            seen = self.pages({page_id for page_id, _ in found.values()})
            found = {pid: row for pid, row in found.items() if row[0] in seen}
        return found

    def highlighter(self, text: str) -> Callable[[str], list[tuple[int, int]]]:
        return self.text_index.highlighter(text)


def _remembered(known: dict, ids: Iterable[int], read: Callable[[Iterable[int]], dict]
                ) -> dict:
    """`read(ids)`, each id read from the store once while the Searcher is held."""
    ids = list(ids)
    missing = {i for i in ids if i not in known}
    if missing:
        found = read(missing)
        for i in missing:
            known[i] = found.get(i)
    return {i: known[i] for i in ids if known[i] is not None}
