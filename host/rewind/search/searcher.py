"""Find pages for a query: dense and BM25 retrieval, fusion, grouping to pages,
confidence, diversity (MMR and a per-domain cap), filters and snippets.

Fusion happens on passages; pages are ranked by their best passage plus a small
bonus for several matching passages (seed 001). If the embedder is unavailable
the search still answers, with keyword results and a notice.
This module must never write to any store.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..config import Settings
from ..errors import Code, RewindError
from ..index.store import Store
from ..index.text_index import STOP_WORDS, TextIndex
from ..index.vectors import VectorIndex

MODES = ("hybrid", "semantic", "keyword")


@dataclass
class SearchQuery:
    text: str
    mode: str = "hybrid"
    limit: int = 10
    since: float | None = None
    until: float | None = None
    domain: str | None = None


@dataclass
class Hit:
    url: str
    title: str
    score: float
    confidence: str  # high | medium | low
    snippet: str
    highlights: list[tuple[int, int]]  # character ranges in `snippet`
    passage: str
    passage_position: int
    visited_at: float
    visit_count: int
    dwell_s: float
    domain: str
    page_id: int
    similarity: float | None  # cosine of the best passage, when the embedder ran
    keyword_score: float | None  # BM25 of the best passage, when it matched

    def to_dict(self) -> dict:
        d = self.__dict__.copy()
        d["highlights"] = [list(r) for r in self.highlights]
        return d


@dataclass
class SearchResponse:
    mode: str
    took_ms: float
    results: list[Hit] = field(default_factory=list)
    notice: str | None = None

    def to_dict(self) -> dict:
        return {"mode": self.mode, "took_ms": round(self.took_ms, 2), "notice": self.notice,
                "results": [h.to_dict() for h in self.results]}


@dataclass
class Thresholds:
    """Confidence cut-offs on the model's cosine scale (kept in the model spec)."""

    high: float
    medium: float


# ---- fusion ------------------------------------------------------------------------------

def fuse_rrf(dense: dict[int, float], keyword: dict[int, float], settings: Settings,
             ) -> dict[int, float]:
    """Weighted reciprocal rank fusion: alpha * 1/(k+rank_dense) + (1-alpha) * 1/(k+rank_bm25)."""
    k, alpha = settings.rrf_k, settings.rrf_alpha
    fused: dict[int, float] = {}
    for weight, ranking in ((alpha, dense), (1 - alpha, keyword)):
        ordered = sorted(ranking, key=ranking.__getitem__, reverse=True)
        for rank, pid in enumerate(ordered, 1):
            fused[pid] = fused.get(pid, 0.0) + weight / (k + rank)
    return fused


def keyword_style(text: str, max_terms: int) -> bool:
    """A few content words and no function words ("RNG-pruning HNSW") reads as words a
    person remembers from a page; a sentence ("how does HNSW prune ...") as a question."""
    words = re.findall(r"[\w'-]+", text.lower())
    return 0 < len(words) <= max_terms and not any(w in STOP_WORDS for w in words)


def fuse_adaptive(dense: dict[int, float], keyword: dict[int, float], settings: Settings,
                  page_of: dict[int, int] | None = None, remembered_words: bool = False,
                  ) -> dict[int, float]:
    """Confidence-weighted CombSUM of min-max normalised scores (bench/fusion_lab.py).

    Each retriever votes with how sure it is on this query: dense with its top cosine,
    BM25 with `fusion_keyword_weight * gap`, where gap = (top - runner-up) / top of the
    BM25 scores and the runner-up is the best passage of another page. A question gets a
    flat BM25 ranking and a confident cosine: meaning decides. A few rare remembered words
    get a flat, low cosine and one page far ahead in BM25: the words decide.
        w = kw * gap / (top_cosine + kw * gap);  fused = (1 - w) mm(cosine) + w mm(bm25)
    """

    def minmax(d: dict[int, float]) -> dict[int, float]:
        if not d:
            return {}
        hi, lo = max(d.values()), min(d.values())
        return {i: (v - lo) / (hi - lo) if hi > lo else 1.0 for i, v in d.items()}

    gap = 0.0
    if keyword:
        ranked = sorted(keyword.items(), key=lambda kv: kv[1], reverse=True)
        top_id, top = ranked[0]
        if top > 0:
            runner = 0.0  # no other page matched: fully decisive
            for pid, score in ranked[1:]:
                if page_of is None or page_of[pid] != page_of[top_id]:
                    runner = score
                    break
            gap = (top - runner) / top
    if remembered_words:  # the query's form says: trust the words as much as BM25 allows
        gap = max(gap, settings.fusion_remembered_gap)
    dense_conf = max(0.0, max(dense.values(), default=0.0))
    keyword_conf = settings.fusion_keyword_weight * gap
    total = dense_conf + keyword_conf
    w = keyword_conf / total if total > 0 else (0.0 if dense else 1.0)
    nd, nb = minmax(dense), minmax(keyword)
    # A tiny cosine tie-break keeps equal fused scores in meaning order.
    fused = {pid: (1 - w) * nd.get(pid, 0.0) + w * nb.get(pid, 0.0) + 1e-9 * nd.get(pid, 0.0)
             for pid in nd.keys() | nb.keys()}
    if keyword and gap >= settings.fusion_keyword_rescue:
        # BM25 singled out one page by a wide margin (rare words a person remembered):
        # that page leads, whatever the cosine says.
        fused[top_id] = max(fused.values()) + 1e-6
    return fused


# ---- the search --------------------------------------------------------------------------

class Searcher:
    """Search over one profile's indexes. `embed_query` is None when no model is usable."""

    def __init__(self, store: Store, text_index: TextIndex, vectors: VectorIndex | None,
                 embed_query: Callable[[str], np.ndarray] | None, thresholds: Thresholds,
                 settings: Settings, embedder_problem: str | None = None):
        self.store = store
        self.text_index = text_index
        self.vectors = vectors
        self.embed_query = embed_query
        self.thresholds = thresholds
        self.settings = settings
        self.embedder_problem = embedder_problem

    def search(self, q: SearchQuery) -> SearchResponse:
        t0 = time.perf_counter()
        s = self.settings
        if q.mode not in MODES:
            raise RewindError(Code.BAD_REQUEST, f"Unknown search mode {q.mode!r}.",
                              f"Use one of: {', '.join(MODES)}.")
        text = (q.text or "").strip()
        limit = max(1, min(int(q.limit), s.max_limit))
        if not text:
            return SearchResponse(q.mode, 0.0)

        notice = None
        qvec = None
        mode = q.mode
        if mode != "keyword" or self.embed_query is not None:
            if self.embed_query is None or self.vectors is None:
                if mode != "keyword":
                    notice = (f"Semantic search is unavailable ({self.embedder_problem}); "
                              "showing keyword matches.")
                    mode = "keyword"
            else:
                qvec = self.embed_query(text)
                self.vectors.refresh(self.store)

        k = s.candidates_per_retriever
        filtered = q.domain is not None or q.since is not None or q.until is not None
        allowed = None
        if filtered and qvec is not None:
            allowed = np.asarray(self.store.page_ids_where(
                domain=q.domain.lower().removeprefix("www.") if q.domain else None,
                since=q.since, until=q.until), np.int64)

        dense: dict[int, float] = {}
        keyword: dict[int, float] = {}
        page_of: dict[int, int] = {}
        if mode in ("semantic", "hybrid") and qvec is not None:
            for h in self.vectors.search(qvec, k, allowed):
                dense[h.passage_id] = h.similarity
                page_of[h.passage_id] = h.page_id
        if mode in ("keyword", "hybrid"):
            for h in self.text_index.search(text, k, domain=q.domain, since=q.since,
                                            until=q.until):
                keyword[h.passage_id] = h.score
                page_of[h.passage_id] = h.page_id

        # Every candidate gets a cosine when we can: fusion and confidence use it.
        cosine = dict(dense)
        if qvec is not None:
            missing = [pid for pid in keyword if pid not in cosine]
            if missing:
                for pid, vec in zip(missing, self.vectors.vectors_for(missing), strict=True):
                    cosine[pid] = float(vec @ qvec)

        if mode == "semantic":
            passage_scores = dense
        elif mode == "keyword":
            passage_scores = keyword
        elif s.fusion == "adaptive":
            passage_scores = fuse_adaptive(
                dense, keyword, s, page_of, keyword_style(text, s.fusion_remembered_max_terms))
        else:
            passage_scores = fuse_rrf(dense, keyword, s)

        results = self._pages(text, passage_scores, page_of, cosine, keyword, qvec, limit)
        return SearchResponse(q.mode if notice is None else "keyword",
                              (time.perf_counter() - t0) * 1000, results, notice)

    # ---- pages ------------------------------------------------------------------------

    def _pages(self, text: str, passage_scores: dict[int, float], page_of: dict[int, int],
               cosine: dict[int, float], keyword: dict[int, float], qvec: np.ndarray | None,
               limit: int) -> list[Hit]:
        s = self.settings
        best: dict[int, tuple[float, int]] = {}  # page -> (best passage score, passage id)
        count: dict[int, int] = {}
        for pid, score in passage_scores.items():
            page = page_of[pid]
            count[page] = count.get(page, 0) + 1
            if page not in best or score > best[page][0]:
                best[page] = (score, pid)
        ranked = sorted(
            ((sc * (1 + s.multi_passage_bonus * math.log(count[pg])), pg, pid)
             for pg, (sc, pid) in best.items()),
            reverse=True)
        pool = ranked[: limit * 3]
        pages = self.store.pages_by_ids(pg for _, pg, _ in pool)
        pool = [r for r in pool if r[1] in pages]  # deleted since the index saw them
        pool = self._mmr(pool, qvec)
        pool = self._domain_cap([(r, pages[r[1]].domain) for r in pool])[:limit]

        passages = self.store.passages_by_ids(pid for _, _, pid in pool)
        kw_top = max(keyword.values(), default=0.0) or 1.0
        highlight = self.text_index.highlighter(text)
        hits = []
        for score, page_id, pid in pool:
            page = pages[page_id]
            _pg, passage = passages.get(pid, (page_id, None))
            body = passage.text if passage else ""
            sim = cosine.get(pid)
            kw = keyword.get(pid)
            snippet, ranges = self._snippet(body, highlight(body) if body else [])
            hits.append(Hit(
                url=page.url, title=page.title, score=round(float(score), 6),
                confidence=self._confidence(sim, (kw or 0.0) / kw_top if kw else 0.0),
                snippet=snippet, highlights=ranges, passage=body,
                passage_position=passage.position if passage else 0,
                visited_at=page.last_visit, visit_count=page.visit_count, dwell_s=page.dwell_s,
                domain=page.domain, page_id=page_id,
                similarity=None if sim is None else round(sim, 6),
                keyword_score=None if kw is None else round(kw, 6)))
        return hits

    def _mmr(self, pool: list[tuple[float, int, int]], qvec: np.ndarray | None
             ) -> list[tuple[float, int, int]]:
        """Maximal marginal relevance over the pages' best passages (seed 000)."""
        lam = self.settings.mmr_lambda
        if qvec is None or lam >= 1.0 or len(pool) < 3:
            return pool
        vecs = self.vectors.vectors_for([pid for _, _, pid in pool])
        top = pool[0][0] or 1.0
        rel = np.array([sc / top for sc, _, _ in pool])
        sims = vecs @ vecs.T
        chosen = [0]
        left = np.ones(len(pool), bool)
        left[0] = False
        redundancy = sims[0].copy()  # each page's highest similarity to a chosen one
        while left.any():
            gains = np.where(left, lam * rel - (1 - lam) * redundancy, -np.inf)
            pick = int(np.argmax(gains))
            chosen.append(pick)
            left[pick] = False
            np.maximum(redundancy, sims[pick], out=redundancy)
        return [pool[i] for i in chosen]

    def _domain_cap(self, pool: list[tuple[tuple[float, int, int], str]]
                    ) -> list[tuple[float, int, int]]:
        """Soft cap: a domain's pages past the cap move behind the others, in order."""
        cap = self.settings.max_pages_per_domain
        seen: dict[str, int] = {}
        head, tail = [], []
        for row, dom in pool:
            seen[dom] = seen.get(dom, 0) + 1
            (head if seen[dom] <= cap else tail).append(row)
        return head + tail

    def _confidence(self, similarity: float | None, keyword_share: float) -> str:
        t = self.thresholds
        if similarity is not None and similarity >= t.high:
            return "high"
        if (similarity is not None and similarity >= t.medium) or keyword_share > 0.5:
            return "medium"
        return "low"

    def _snippet(self, passage: str, ranges: list[tuple[int, int]]
                 ) -> tuple[str, list[tuple[int, int]]]:
        """A window of the passage around its first match, with match ranges inside it."""
        width = self.settings.snippet_chars
        if len(passage) <= width:
            return passage, ranges
        first = ranges[0][0] if ranges else 0
        start = max(0, first - width // 4)
        if start:
            space = passage.rfind(" ", 0, start)
            start = space + 1 if space > start - 30 else start
        end = min(len(passage), start + width)
        space = passage.find(" ", end)
        end = space if 0 < space < end + 30 else end
        prefix = "… " if start else ""
        snippet = prefix + passage[start:end] + (" …" if end < len(passage) else "")
        shift = len(prefix) - start
        inside = [(a + shift, b + shift) for a, b in ranges if a >= start and b <= end]
        return snippet, inside
