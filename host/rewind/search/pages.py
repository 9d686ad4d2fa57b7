"""Search results: the fused passages grouped into pages, ranked, diversified, explained.

A page is ranked by its best passage plus a small bonus for several matching passages
(`multi_passage_bonus`) and, to break near-ties, how lately it was read
(`recency_weight`); then maximal marginal relevance and a soft per-site cap keep
near-duplicates and one site from filling the list. Each result has a confidence label
on the embedding model's cosine scale, the relevance gate's verdict (relevance.py: a
result that is not about what was asked is marked to be folded under "less relevant"), a
snippet around the first match and the match ranges inside it.
This module must never write to any store, nor retrieve by itself (retrieve.py does).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..index.store.records import PageRecord
from . import relevance
from .retrieve import PassageHit, Retrieved, Searcher, SearchQuery


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
    relevance: float | None = None  # the relevance gate's probability (relevance.py)
    relevant: bool = True  # False: shown folded under "less relevant"
    read: bool = True  # False: visited, not read (imported from the browser's history)

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


Ranked = tuple[float, int, PassageHit]  # (page score, page id, its best passage)


def search(searcher: Searcher, q: SearchQuery) -> SearchResponse:
    t0 = time.perf_counter()
    s = searcher.settings
    limit = max(1, min(int(q.limit), s.max_limit))
    found = searcher.passages(q)
    results = _pages(searcher, (q.text or "").strip(), found, limit) if found.hits else []
    return SearchResponse(found.mode, (time.perf_counter() - t0) * 1000, results,
                          found.notice("the results"))


def _pages(searcher: Searcher, text: str, found: Retrieved, limit: int) -> list[Hit]:
    s = searcher.settings
    best: dict[int, PassageHit] = {}
    count: dict[int, int] = {}
    for h in found.hits:  # best first: a page's first hit is its best passage
        count[h.page_id] = count.get(h.page_id, 0) + 1
        best.setdefault(h.page_id, h)
    ranked: list[Ranked] = sorted(
        ((h.score * (1 + s.multi_passage_bonus * math.log(count[pg])), pg, h)
         for pg, h in best.items()),
        key=lambda r: (r[0], r[1]), reverse=True)
    pool = ranked[: limit * 3]
    pages = searcher.pages(pg for _, pg, _ in pool)
    pool = [r for r in pool if r[1] in pages]  # deleted since the index saw them
    pool = _recency(searcher, pool, pages)
    pool = _mmr(searcher, pool, found.query_vector)
    pool = _domain_cap(searcher, [(r, pages[r[1]].domain) for r in pool])[:limit]

    passages = searcher.passage_records(h.passage_id for _, _, h in pool)
    highlight = searcher.highlighter(text)
    gauge = relevance.gauge()
    reading = relevance.read(searcher, text, found, [h for _, _, h in pool]) if (
        found.query_vector is not None) else None  # keyword only: no cosine to judge by
    hits = []
    for score, page_id, h in pool:
        p = gauge.hit.probability(reading.hits[h.passage_id]) if reading else None
        page = pages[page_id]
        _pg, passage = passages.get(h.passage_id, (page_id, None))
        body = passage.text if passage else ""
        snippet, ranges = _snippet(s.snippet_chars, body, highlight(body) if body else [])
        hits.append(Hit(
            url=page.url, title=page.title, score=round(float(score), 6),
            confidence=confidence(searcher, h.similarity, found.keyword_share(h)),
            snippet=snippet, highlights=ranges, passage=body,
            passage_position=passage.position if passage else 0,
            visited_at=page.last_visit, visit_count=page.visit_count, dwell_s=page.dwell_s,
            domain=page.domain, page_id=page_id,
            similarity=None if h.similarity is None else round(h.similarity, 6),
            keyword_score=None if h.keyword is None else round(h.keyword, 6),
            relevance=None if p is None else round(p, 4),
            relevant=p is None or (p >= gauge.fold and _linked(searcher, h)),
            read=page.read))
    return hits


def _linked(searcher: Searcher, h: PassageHit) -> bool:
    """A result is about the query only if a content word of it matched (BM25 leaves stop
    words out) or its meaning is at least the model's "medium" match: a weak similarity
    alone never earns a place among the relevant results."""
    t = searcher.confidence
    return bool(h.keyword) or (t is not None and h.similarity is not None
                               and h.similarity >= t.medium)


def _recency(searcher: Searcher, pool: list[Ranked], pages: dict[int, PageRecord],
             now: float | None = None) -> list[Ranked]:
    """Recency (`recency_weight`), as a tie-breaker: a page read lately moves up a little
    (score * (1 + w * 0.5 ** (days since the last visit / half-life)))."""
    s = searcher.settings
    if not s.recency_weight:
        return pool
    now = time.time() if now is None else now
    half_life = s.recency_half_life_days * 86400
    moved = [(sc * (1 + s.recency_weight * 0.5 ** (max(0.0, now - pages[pg].last_visit)
                                                    / half_life)), pg, h)
             for sc, pg, h in pool]
    return sorted(moved, key=lambda r: (r[0], r[1]), reverse=True)


def _mmr(searcher: Searcher, pool: list[Ranked], qvec: np.ndarray | None) -> list[Ranked]:
    """Maximal marginal relevance over the pages' best passages: a page whose best passage
    is close to one ranked above it moves down (`mmr_lambda`; 1 turns it off)."""
    lam = searcher.settings.mmr_lambda
    if qvec is None or lam >= 1.0 or len(pool) < 3:
        return pool
    vecs = searcher.vectors_for([h.passage_id for _, _, h in pool])
    if vecs is None:
        return pool
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


def _domain_cap(searcher: Searcher, pool: list[tuple[Ranked, str]]) -> list[Ranked]:
    """Soft cap: a domain's pages past the cap move behind the others, in order."""
    cap = searcher.settings.max_pages_per_domain
    seen: dict[str, int] = {}
    head, tail = [], []
    for row, dom in pool:
        seen[dom] = seen.get(dom, 0) + 1
        (head if seen[dom] <= cap else tail).append(row)
    return head + tail


def confidence(searcher: Searcher, similarity: float | None, keyword_share: float) -> str:
    """high / medium / low, on the embedding model's cosine scale (its spec's thresholds);
    a passage that matches most of the best keyword score is at least medium."""
    t = searcher.confidence
    if t is not None and similarity is not None and similarity >= t.high:
        return "high"
    if (t is not None and similarity is not None and similarity >= t.medium) or (
            keyword_share > searcher.settings.confidence_keyword_share):
        return "medium"
    return "low"


def _snippet(width: int, passage: str, ranges: list[tuple[int, int]]
             ) -> tuple[str, list[tuple[int, int]]]:
    """A window of the passage around its first match, with match ranges inside it."""
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
