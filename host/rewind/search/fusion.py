"""Fusing the dense and the BM25 ranking of passages into one score per passage.

`fuse_adaptive` (the default, measured in bench/labs/fusion.py) lets each retriever vote
with how sure it is on this query; `fuse_rrf` is the weighted reciprocal-rank baseline.
This module must never look anything up: it works on the scores it is given.
"""

from __future__ import annotations

from ..config import Settings


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


def fuse_adaptive(dense: dict[int, float], keyword: dict[int, float], settings: Settings,
                  page_of: dict[int, int] | None = None, remembered_words: bool = False,
                  ) -> dict[int, float]:
    """Confidence-weighted CombSUM of min-max normalised scores (bench/labs/fusion.py).

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
