"""Fusion lab, the ways of fusing: the recommended `fuse` and the families it was measured
against.

Job: `fuse`, the production fusion (search/fusion.py's fuse_adaptive) with the lab's one
tuned number, never a copy; the other families (rank fusion, CombSUM, convex, gap- and
confidence-weighted, rescue, ramp), each a function of one query's candidates (a Run) and
its parameters, with the grid it is tuned over and the settings the report shows.
Never: re-implement the production fusion for the recommendation.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from rewind.config import Settings
from rewind.search.fusion import fuse_adaptive

from bench.labs.fusion_retrieval import Run

Id = TypeVar("Id")


# ============================================================================= the recommendation
# The lab measures the production fusion (search/fusion.py's fuse_adaptive), never a copy:
# `fuse` only adapts its signature (any ids, a keyword weight to tune) to the families below.


@dataclass(frozen=True)
class FuseParams:
    """Parameters of `fuse`, the recommended fusion (one tuned number)."""

    # BM25's weight per unit of decisiveness, against the dense side's weight (its top
    # cosine): Settings.fusion_keyword_weight, whose default this lab chose.
    keyword_weight: float = Settings().fusion_keyword_weight


def fuse(
    dense: Mapping[Id, float],
    bm25: Mapping[Id, float],
    params: FuseParams = FuseParams(),  # noqa: B008 (frozen: a safe default)
    page_of: Mapping[Id, Any] | None = None,
) -> list[tuple[Id, float]]:
    """search/fusion.py's `fuse_adaptive` with `params.keyword_weight` (the rest of its
    settings at their defaults), on ids of any kind; (id, fused score), best first, ties
    broken by cosine, then BM25, then id."""
    ids = sorted(dense.keys() | bm25.keys(), key=str)
    num = {i: n for n, i in enumerate(ids)}
    pages = None if page_of is None else {num[i]: page_of[i] for i in ids}
    settings = replace(Settings(), fusion_keyword_weight=params.keyword_weight)
    fused = fuse_adaptive({num[i]: v for i, v in dense.items()},
                          {num[i]: v for i, v in bm25.items()}, settings, pages)
    return sorted(((ids[n], v) for n, v in fused.items()),
                  key=lambda kv: (-kv[1], -dense.get(kv[0], -1.0), -bm25.get(kv[0], -1.0),
                                  str(kv[0])))


# ============================================================================= the families


Fused = dict[int, float]  # or an already ordered list of (id, score)


def ranked(d: Mapping[int, float]) -> list[int]:
    return sorted(d, key=lambda i: (-d[i], i))


def _minmax(d: Mapping[int, float]) -> dict[int, float]:
    if not d:
        return {}
    hi, lo = max(d.values()), min(d.values())
    return {i: (s - lo) / (hi - lo) if hi > lo else 1.0 for i, s in d.items()}


def _zscore(d: Mapping[int, float]) -> dict[int, float]:
    if len(d) < 2:
        return {i: 0.0 for i in d}
    mu, sd = statistics.fmean(d.values()), statistics.pstdev(d.values())
    return {i: (s - mu) / sd if sd > 0 else 0.0 for i, s in d.items()}


def decisiveness(r: Run, by_page: bool) -> float:
    """(top - runner-up) / top of BM25; runner-up on another page when by_page."""
    if not r.bm25:
        return 0.0
    order = ranked(r.bm25)
    top = r.bm25[order[0]]
    if top <= 0:
        return 0.0
    for i in order[1:]:
        if not by_page or r.page_of[i] != r.page_of[order[0]]:
            return (top - r.bm25[i]) / top
    return 1.0


def m_dense(r: Run) -> Fused:
    return dict(r.dense)


def m_bm25(r: Run) -> Fused:
    return dict(r.bm25)


def m_rrf(r: Run, alpha: float, k: int = 60) -> Fused:
    """Weighted RRF: alpha / (k + dense rank) + (1 - alpha) / (k + BM25 rank)."""
    out: Fused = {}
    for w, d in ((alpha, r.dense), (1 - alpha, r.bm25)):
        for rank, i in enumerate(ranked(d), 1):
            out[i] = out.get(i, 0.0) + w / (k + rank)
    return out


def m_combsum(r: Run, w: float, norm: str) -> Fused:
    """CombSUM of normalised scores: w * dense + (1 - w) * BM25 (a list's missing id: 0 for
    min-max, the list's lowest z for z-scores)."""
    f = _minmax if norm == "minmax" else _zscore
    nd, nb = f(r.dense), f(r.bm25)
    md = 0.0 if norm == "minmax" else min(nd.values(), default=0.0)
    mb = 0.0 if norm == "minmax" else min(nb.values(), default=0.0)
    return {i: w * nd.get(i, md) + (1 - w) * nb.get(i, mb) for i in set(nd) | set(nb)}


def m_convex(r: Run, w: float) -> Fused:
    """w * cosine + (1 - w) * BM25 / top BM25 (every candidate has its real cosine)."""
    top = max(r.bm25.values(), default=0.0) or 1.0
    return {i: w * c + (1 - w) * r.bm25.get(i, 0.0) / top for i, c in r.cosine.items()}


def m_gap(r: Run, beta: float, by_page: bool = True, floor: float = 0.0) -> Fused:
    """cosine + beta * (floor + (1 - floor) * decisiveness) * BM25 / top BM25.
    floor=0 is `fuse`; (beta .3, floor .3, passage gap) is the engine's first adaptive."""
    top = max(r.bm25.values(), default=0.0) or 1.0
    w = beta * (floor + (1 - floor) * decisiveness(r, by_page))
    return {i: c + w * r.bm25.get(i, 0.0) / top for i, c in r.cosine.items()}


def m_gap_minmax(r: Run, s: float, by_page: bool = True) -> Fused:
    """Min-max CombSUM whose BM25 weight is clip(decisiveness / s)."""
    wb = min(1.0, decisiveness(r, by_page) / s)
    return m_combsum(r, 1 - wb, "minmax")


def m_conf(r: Run, beta: float, by_page: bool = True) -> Fused:
    """Each side weighted by its own confidence: top cosine * minmax(dense)
    + beta * decisiveness * minmax(BM25) (`fuse`, re-implemented, with a choice of gap)."""
    c1 = max(r.dense.values(), default=0.0)
    g = beta * decisiveness(r, by_page)
    nd, nb = _minmax(r.dense), _minmax(r.bm25)
    return {i: c1 * nd.get(i, 0.0) + g * nb.get(i, 0.0) for i in set(nd) | set(nb)}


def m_rescue(r: Run, t: float, alpha: float = 0.9) -> Fused:
    """BM25 rescue: RRF alpha when the best cosine is >= t, else 1 - alpha (BM25 leads)."""
    c1 = max(r.dense.values(), default=0.0)
    return m_rrf(r, alpha if c1 >= t else 1 - alpha)


def m_ramp(r: Run, g0: float, g1: float) -> Fused:
    """Min-max CombSUM with BM25 weight ramping from 0 at decisiveness g0 to 1 at g1."""
    wb = min(1.0, max(0.0, (decisiveness(r, True) - g0) / (g1 - g0)))
    return m_combsum(r, 1 - wb, "minmax")


def m_fuse(r: Run, beta: float) -> list[tuple[int, float]]:
    """The recommended `fuse`, through its public signature (keeps its tie-break order)."""
    return fuse(r.dense, r.bm25, FuseParams(keyword_weight=beta), r.page_of)


@dataclass(frozen=True)
class Family:
    name: str
    fn: Callable[..., Fused]
    grid: list[dict[str, Any]]  # parameter settings explored (and tuned over)
    shown: list[dict[str, Any]]  # settings shown in the main table
    note: str = ""

    @property
    def tuned(self) -> bool:
        return len(self.grid) > 1

    @property
    def settings(self) -> list[dict[str, Any]]:
        """The grid plus the shown settings (all are tuned over)."""
        return self.grid + [p for p in self.shown if p not in self.grid]


def _g(name: str, values: Sequence[Any]) -> list[dict[str, Any]]:
    return [{name: v} for v in values]


REC = "**fuse**: confidence-weighted min-max, page gap (recommended)"


def families() -> list[Family]:
    a = [round(0.1 * i, 1) for i in range(3, 11)]
    w = [round(0.1 * i, 1) for i in range(1, 10)]
    betas = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0]
    gaps = [0.3, 0.4, 0.5, 0.6, 0.7, 1.0]
    ramp = [{"g0": g0, "g1": g1} for g0 in (0.0, 0.1, 0.2) for g1 in (0.3, 0.4, 0.5, 0.6)]
    return [
        Family("dense (cosine)", m_dense, [{}], [{}]),
        Family("BM25", m_bm25, [{}], [{}]),
        Family("RRF k=60", m_rrf, _g("alpha", a), _g("alpha", [0.5, 0.7, 0.9])),
        Family("CombSUM min-max", lambda r, w: m_combsum(r, w, "minmax"), _g("w", w),
               _g("w", [0.3, 0.5, 0.7])),
        Family("CombSUM z-score", lambda r, w: m_combsum(r, w, "z"), _g("w", w),
               _g("w", [0.3, 0.5, 0.7])),
        Family("convex cos + BM25/top", m_convex, _g("w", w), _g("w", [0.5, 0.7, 0.8, 0.9])),
        Family("engine adaptive v1: cos + beta*(.3+.7*gap)*BM25/top, passage gap",
               lambda r, beta: m_gap(r, beta, by_page=False, floor=0.3),
               _g("beta", betas), _g("beta", [0.3])),
        Family("gap-weighted convex: cos + beta*gap*BM25/top, page gap", m_gap,
               _g("beta", betas), _g("beta", [1.0])),
        Family("gap-weighted min-max, w = min(1, gap/s), passage gap",
               lambda r, s: m_gap_minmax(r, s, by_page=False), _g("s", gaps), _g("s", [0.5])),
        Family("gap-weighted min-max, w = min(1, gap/s), page gap", m_gap_minmax, _g("s", gaps),
               _g("s", [0.5])),
        Family("confidence-weighted min-max, passage gap",
               lambda r, beta: m_conf(r, beta, by_page=False), _g("beta", betas),
               _g("beta", [3.0])),
        Family(REC, m_fuse, _g("beta", betas), _g("beta", [2.5])),
        Family("BM25 rescue (RRF .9/.1 by top cosine)", m_rescue,
               _g("t", [0.3, 0.35, 0.4, 0.45, 0.5]), _g("t", [0.4])),
        Family("ramp min-max (2 params)", m_ramp, ramp, [{"g0": 0.1, "g1": 0.5}]),
    ]  # fmt: skip
