"""Passages for a query: dense and BM25 retrieval, fused once, for search and for answers.

`Searcher.passages` is the one retrieval path: the search results (search/pages.py) and
the sources of an answer or a built context (answers/context.py) are both made from what
it returns, so a query is fused the same way wherever it is asked. It runs in four steps:
the plan (the mode decided once, before either retriever runs), keyword (BM25), dense (the
vector index's stages) and fuse (search/fusion.py). Every candidate gets its cosine with
the query when the embedder is there (fusion, confidence and the answer side use it);
without an embedder retrieval goes on with BM25 alone and says why. A hybrid search's BM25
runs on the engine's worker thread while the dense stages scan the codes (tantivy, numpy
and SQLite leave the GIL, so on two cores the halves overlap); the worker does only BM25:
reading its hits' vectors there too was slower, the two threads' Python parts waiting on
each other for the GIL.
A Searcher with a `scope` (an AI tool's part of the history) retrieves only from the pages
the scope admits: both retrievers take it into their queries (index/store/page_filter.py).
This module must never write to any store.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from ..config import Settings
from ..errors import Code, RewindError
from ..index.derived.dense_search import DenseHit, VectorCache
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


@dataclass(frozen=True)
class Plan:
    """How one query is retrieved, decided before either retriever runs."""

    text: str  # the words, stripped ("": nothing to retrieve)
    mode: str  # the mode used, final (Retrieved.mode)
    query_vector: np.ndarray | None  # None: no embedder, or no words
    where: PageFilter  # the search's filters within the Searcher's scope
    allowed: np.ndarray | None  # the pages the dense stages may score (None: every one)
    degraded: str | None  # why semantic search is unavailable, if it is
    damaged: RewindError | None = None  # a hybrid search's keyword index, found damaged

    @property
    def by_meaning(self) -> bool:
        return self.mode != "keyword" and self.query_vector is not None


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
        """Each retriever's `candidates_per_retriever` best passages, fused, best first:
        the plan (which retrievers run, the query vector, the pages allowed), BM25 (begun
        on the worker when the dense stages run beside it), the dense stages, the fusion."""
        t0 = time.perf_counter()
        plan = self._plan(q)
        if not plan.text:
            return Retrieved([], plan.mode, None, 0.0, plan.degraded)
        keyword_hits = self._keyword(plan)
        dense_hits = self._dense(plan)
        if plan.damaged is not None and not dense_hits:
            raise plan.damaged  # nothing by meaning either: the keyword index's error, its fix
        hits, keyword_top = self._fuse(plan, dense_hits, keyword_hits())
        return Retrieved(hits, plan.mode, plan.query_vector, keyword_top, plan.degraded,
                         (time.perf_counter() - t0) * 1000,
                         plan.damaged.message if plan.damaged is not None else None)

    def _plan(self, q: SearchQuery) -> Plan:
        """The mode this query is retrieved in, decided once: the one asked, but "keyword"
        without an embedder and "semantic" for a hybrid search whose keyword index is
        damaged; the query's vector (the vector index caught up for it) and the filter."""
        if q.mode not in MODES:
            raise RewindError(Code.BAD_REQUEST, f"Unknown search mode {q.mode!r}.",
                              f"Use one of: {', '.join(MODES)}.")
        text = (q.text or "").strip()
        mode, degraded, qvec = q.mode, None, None
        if self._embed_query is None:
            if mode != "keyword":
                degraded, mode = self.embedder_problem or "no embedding model", "keyword"
        elif text:
            qvec = self._embed_query(text)
            self._vectors.refresh(self.store)
        if not text:
            return Plan(text, mode, None, PageFilter(), None, degraded)
        where = PageFilter(q.domain.lower().removeprefix("www.") if q.domain else None,
                           since=q.since, until=q.until)
        if self.scope is not None:
            where = where.narrowed(self.scope)
        allowed = None  # filtered in both retrievers' queries: no other page is scored
        if qvec is not None and not where.everything:
            allowed = np.asarray(page_filter.page_ids(self.store, where), np.int64)
        damaged = None
        if mode == "hybrid":
            try:  # a damaged keyword index: the meaning alone, and the notice says why
                self.text_index.check_usable()
            except RewindError as exc:
                damaged, mode = exc, "semantic"
        return Plan(text, mode, qvec, where, allowed, degraded, damaged)

    def _keyword(self, plan: Plan) -> Callable[[], list[KeywordHit]]:
        """BM25's hits, begun: on the worker while the dense stages scan the codes, else
        here and now. What it returns gives the hits (waiting for the worker's)."""
        if plan.mode == "semantic":
            return lambda: []
        k = self.settings.candidates_per_retriever
        if plan.by_meaning and self._worker is not None:
            return self._worker.submit(self.text_index.search, plan.text, k,
                                       where=plan.where).result
        hits = self.text_index.search(plan.text, k, where=plan.where)
        return lambda: hits

    def _dense(self, plan: Plan) -> list[DenseHit]:
        """The dense stages' hits (none in keyword mode); the vectors they met are kept."""
        if not plan.by_meaning:
            return []
        k = self.settings.candidates_per_retriever
        return self._vectors.rank(plan.query_vector, k,
                                  self._vectors.shortlist(plan.query_vector, k, plan.allowed),
                                  self._cache)

    def _fuse(self, plan: Plan, dense_hits: list[DenseHit], keyword_hits: list[KeywordHit]
              ) -> tuple[list[PassageHit], float]:
        """Both rankings as one (or the mode's one retriever's), every hit with its cosine
        where there is a query vector; and the best BM25 score among them."""
        dense = {h.passage_id: h.similarity for h in dense_hits}
        page_of = {h.passage_id: h.page_id for h in dense_hits}
        keyword = {h.passage_id: h.score for h in keyword_hits}
        page_of.update((h.passage_id, h.page_id) for h in keyword_hits)
        cosine = dict(dense)
        if plan.query_vector is not None:  # the keyword-only hits': their int8 rows'
            missing = [pid for pid in keyword if pid not in cosine]
            if missing:
                vecs = self._vectors.approximate(missing, [page_of[p] for p in missing],
                                                 self._cache)
                cosine.update(zip(missing, (vecs @ plan.query_vector).tolist(), strict=True))
        s = self.settings
        if plan.mode == "semantic":
            scores = dense
        elif plan.mode == "keyword":
            scores = keyword
        elif s.fusion == "adaptive":
            scores = fuse_adaptive(dense, keyword, s, page_of, self._words_decide(plan.text))
        else:
            scores = fuse_rrf(dense, keyword, s)
        hits = [PassageHit(pid, page_of[pid], score, cosine.get(pid), keyword.get(pid))
                for pid, score in scores.items()]
        hits.sort(key=lambda h: (-h.score, h.passage_id))
        return hits, max(keyword.values(), default=0.0)

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
