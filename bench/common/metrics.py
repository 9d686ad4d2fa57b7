"""Quality metrics: rankings of document ids (binary relevance), and answer text.

Job: MRR@k, nDCG@k and Recall@k for one query, and their mean over a query set; SQuAD's
token F1 of an answer against a gold answer.
Never: look at scores, deduplicate or reorder the ranking it is given (a ranking that repeats
an id is scored as given; only the first occurrence of a relevant id counts as a hit).
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
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


# ----------------------------------------------------------------------------- answer text

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = frozenset(string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD's normalisation: lower case, punctuation and articles removed, single spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def token_prf(prediction: str, gold: str) -> tuple[float, float, float]:
    """(precision, recall, F1) of the bag of normalised tokens, as SQuAD scores answers:
    both empty is a perfect match, one empty scores 0."""
    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred or not ref:
        same = float(pred == ref)
        return same, same, same
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0, 0.0, 0.0
    p, r = common / len(pred), common / len(ref)
    return p, r, 2 * p * r / (p + r)


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD token F1 of `prediction` against `gold` (see token_prf)."""
    return token_prf(prediction, gold)[2]
