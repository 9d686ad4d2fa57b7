"""Ranking quality metrics over ranked lists of document ids (binary relevance).

Job: MRR@k, nDCG@k and Recall@k for one query, and their mean over a query set.
Never: look at scores, deduplicate or reorder the ranking it is given (a ranking that repeats
an id is scored as given; only the first occurrence of a relevant id counts as a hit).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

K = 10


def _hits(ranked: Sequence[str], relevant: Iterable[str], k: int) -> list[int]:
    """0-based ranks (< k) at which a not-yet-seen relevant id appears."""
    rel = set(relevant)
    seen: set[str] = set()
    out: list[int] = []
    for i, doc in enumerate(ranked[:k]):
        if doc in rel and doc not in seen:
            seen.add(doc)
            out.append(i)
    return out


def reciprocal_rank(ranked: Sequence[str], relevant: Iterable[str], k: int = K) -> float:
    """1/rank of the first relevant id within the top k, else 0."""
    h = _hits(ranked, relevant, k)
    return 1.0 / (h[0] + 1) if h else 0.0


def ndcg(ranked: Sequence[str], relevant: Iterable[str], k: int = K) -> float:
    """Binary-relevance nDCG@k: sum 1/log2(rank+1) over hits, over the ideal ranking's sum."""
    rel = set(relevant)
    if not rel:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 2) for i in _hits(ranked, rel, k))
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(rel), k)))
    return dcg / ideal


def recall(ranked: Sequence[str], relevant: Iterable[str], k: int = K) -> float:
    """Fraction of the relevant ids found in the top k."""
    rel = set(relevant)
    if not rel:
        return 0.0
    return len(_hits(ranked, rel, k)) / len(rel)


@dataclass(frozen=True)
class Scores:
    mrr: float
    ndcg: float
    recall: float
    n: int  # queries averaged

    def row(self) -> list[str]:
        return [f"{self.mrr:.3f}", f"{self.ndcg:.3f}", f"{self.recall:.3f}"]


def evaluate(runs: Sequence[tuple[Sequence[str], Iterable[str]]], k: int = K) -> Scores:
    """Mean MRR@k / nDCG@k / Recall@k over (ranking, relevant ids) pairs, one per query."""
    if not runs:
        raise ValueError("no queries to evaluate")
    rel_sets = [(r, set(g)) for r, g in runs]
    n = len(rel_sets)
    return Scores(
        mrr=sum(reciprocal_rank(r, g, k) for r, g in rel_sets) / n,
        ndcg=sum(ndcg(r, g, k) for r, g in rel_sets) / n,
        recall=sum(recall(r, g, k) for r, g in rel_sets) / n,
        n=n,
    )
