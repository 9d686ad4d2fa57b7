"""Fusion lab, the scoring: what each fusion's ranking is worth, and how far tuning can be
trusted.

Job: rank answers by their best passage, score MRR@10 / nDCG@10 / Recall@10 per query,
tune every family's parameters and check them split-half (tune on one half of each query
set, score on the other), a paired bootstrap of the recommendation against the better
single mode, and known-item MRR under other simulations (robustness).
Never: report a held-out score for parameters tuned on the same queries.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.common import data
from bench.common.metrics import Scores, ndcg, recall, reciprocal_rank
from bench.labs.fusion_methods import (
    Family,
    Fused,
    families,
    m_bm25,
    m_dense,
    m_fuse,
    m_gap,
    m_gap_minmax,
    m_rrf,
    ranked,
)
from bench.labs.fusion_retrieval import Corpus, Run, Setup

K = 10


def group(fused: Fused | list[tuple[int, float]], unit_doc: Sequence[str], limit: int = K
          ) -> list[str]:  # fmt: skip
    """Passages to answers: an answer ranks by its best passage."""
    out: list[str] = []
    seen: set[str] = set()
    order = [i for i, _ in fused] if isinstance(fused, list) else ranked(fused)
    for i in order:
        d = unit_doc[i]
        if d not in seen:
            seen.add(d)
            out.append(d)
            if len(out) == limit:
                break
    return out


@dataclass
class PerQuery:
    """Per-query metric vectors of one method on one query set (means = the scores)."""

    rr: np.ndarray
    ndcg: np.ndarray
    recall: np.ndarray

    def scores(self, idx: np.ndarray | None = None) -> Scores:
        s = slice(None) if idx is None else idx
        return Scores(
            float(self.rr[s].mean()),
            float(self.ndcg[s].mean()),
            float(self.recall[s].mean()),
            int(self.rr[s].size),
        )


def per_query(runs: Sequence[Run], fn: Callable[[Run], Fused], unit_doc: Sequence[str]
              ) -> PerQuery:  # fmt: skip
    rr, nd, rc = [], [], []
    for r in runs:
        ranking = group(fn(r), unit_doc)
        rr.append(reciprocal_rank(ranking, [r.gold], K))
        nd.append(ndcg(ranking, [r.gold], K))
        rc.append(recall(ranking, [r.gold], K))
    return PerQuery(np.array(rr), np.array(nd), np.array(rc))


ROBUST_METHODS: list[tuple[str, Callable[[Run], Fused | list[tuple[int, float]]]]] = [
    ("dense", m_dense),
    ("BM25", m_bm25),
    ("RRF alpha=0.7", lambda r: m_rrf(r, 0.7)),
    ("engine adaptive v1 beta=0.3", lambda r: m_gap(r, 0.3, by_page=False, floor=0.3)),
    ("gap-weighted min-max s=0.5", lambda r: m_gap_minmax(r, 0.5)),
    ("**fuse** beta=2.5", lambda r: m_fuse(r, 2.5)),
]


def robustness(setup: Setup, seeds: Sequence[int] = (0, 1, 2),
               n_terms: Sequence[int] = (2, 3, 4)) -> list[list[str]]:  # fmt: skip
    """Known-item MRR@10 under other simulations (words per query, sampling seed): the
    recommendation must not hinge on one draw. Last row: the mean over the simulations."""
    rows = []
    table = []
    for n in n_terms:
        for seed in seeds:
            runs = setup.runs(data.known_item_queries(setup.pairs, n_terms=n, seed=seed))
            vals = [per_query(runs, fn, setup.corpus.unit_doc).scores().mrr
                    for _, fn in ROBUST_METHODS]  # fmt: skip
            table.append(vals)
            rows.append([f"{n} words, seed {seed}", *(f"{v:.3f}" for v in vals)])
    means = np.array(table).mean(axis=0)
    rows.append(["**mean**", *(f"**{v:.3f}**" for v in means)])
    return rows


def _label(fam: Family, params: Mapping[str, Any]) -> str:
    if not params:
        return fam.name
    return f"{fam.name} " + ", ".join(f"{k}={v}" for k, v in params.items())


def _objective(res: Mapping[str, PerQuery], best_single: Mapping[str, float],
               idx: Mapping[str, np.ndarray] | None) -> tuple[float, float]:  # fmt: skip
    """What tuning maximises: the worst loss against the better single mode over the sets,
    then the mean MRR (a tie-break)."""
    mrr = {s: res[s].scores(None if idx is None else idx[s]).mrr for s in res}
    return (min(mrr[s] - best_single[s] for s in res), statistics.fmean(mrr.values()))


def split_half(
    fam_results: list[tuple[dict[str, Any], dict[str, PerQuery]]],
    single: Mapping[str, tuple[PerQuery, PerQuery]],
    n_splits: int,
    seed: int,
) -> dict[str, Any]:
    """Tune on a random half of each query set, score on the other half; both directions,
    n_splits random splits. Returns mean held-out MRR per set, mean held-out worst delta
    against the better single mode (picked on the held-out half), and the params chosen."""
    rng = random.Random(seed)
    sets = list(single)
    n = {s: single[s][0].rr.size for s in sets}
    held: dict[str, list[float]] = {s: [] for s in sets}
    deltas: list[float] = []
    chosen: dict[str, int] = {}
    for _ in range(n_splits):
        halves = {}
        for s in sets:
            perm = list(range(n[s]))
            rng.shuffle(perm)
            halves[s] = (np.array(perm[: n[s] // 2]), np.array(perm[n[s] // 2 :]))
        for a, b in ((0, 1), (1, 0)):
            tune = {s: halves[s][a] for s in sets}
            test = {s: halves[s][b] for s in sets}

            def best_single(idx: Mapping[str, np.ndarray]) -> dict[str, float]:
                return {s: max(single[s][0].scores(idx[s]).mrr, single[s][1].scores(idx[s]).mrr)
                        for s in sets}  # fmt: skip

            bs_tune = best_single(tune)
            params, res = max(fam_results, key=lambda pr: _objective(pr[1], bs_tune, tune))
            key = ", ".join(f"{k}={v}" for k, v in params.items()) or "-"
            chosen[key] = chosen.get(key, 0) + 1
            bs_test = best_single(test)
            for s in sets:
                held[s].append(res[s].scores(test[s]).mrr)
            deltas.append(_objective(res, bs_test, test)[0])
    return {
        "held_mrr": {s: statistics.fmean(v) for s, v in held.items()},
        "held_delta": statistics.fmean(deltas),
        "held_delta_min": min(deltas),
        "chosen": sorted(chosen.items(), key=lambda kv: -kv[1]),
    }


def bootstrap_delta(a: PerQuery, b: PerQuery, n: int = 2000, seed: int = 0
                    ) -> tuple[float, float]:  # fmt: skip
    """95% paired-bootstrap interval of mean RR(a) - mean RR(b)."""
    rng = np.random.default_rng(seed)
    d = a.rr - b.rr
    means = np.array([d[rng.integers(0, d.size, d.size)].mean() for _ in range(n)])
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def evaluate_config(runs: Mapping[str, list[Run]], corpus: Corpus, n_splits: int, seed: int
                    ) -> tuple[list[list[str]], list[list[str]], dict[str, Any]]:  # fmt: skip
    """All families on one configuration: (main table rows, split-half rows, extras)."""
    sets = list(runs)
    fams = families()
    all_res: dict[str, list[tuple[dict[str, Any], dict[str, PerQuery]]]] = {}
    for fam in fams:
        all_res[fam.name] = [
            (p, {s: per_query(runs[s], lambda r, p=p, fam=fam: fam.fn(r, **p), corpus.unit_doc)
                 for s in sets})
            for p in fam.settings
        ]  # fmt: skip
    dense = all_res[fams[0].name][0][1]
    bm25 = all_res[fams[1].name][0][1]
    single = {s: (dense[s], bm25[s]) for s in sets}
    best_single = {s: max(dense[s].scores().mrr, bm25[s].scores().mrr) for s in sets}

    main_rows: list[list[str]] = []
    for fam in fams:
        for p, res in all_res[fam.name]:
            if p in fam.shown:
                main_rows.append(_row(_label(fam, p), res, sets, best_single))
        if fam.tuned:
            p, res = max(all_res[fam.name], key=lambda pr: _objective(pr[1], best_single, None))
            if p not in fam.shown:
                main_rows.append(_row(_label(fam, p) + " (best in-sample)", res, sets,
                                      best_single))  # fmt: skip

    split_rows: list[list[str]] = []
    for fam in fams:
        if not fam.tuned:
            continue
        sh = split_half(all_res[fam.name], single, n_splits, seed)
        top = "; ".join(f"{k} ×{c}" for k, c in sh["chosen"][:3])
        split_rows.append(
            [fam.name, str(len(fam.grid[0])), *(f"{sh['held_mrr'][s]:.3f}" for s in sets),
             f"{sh['held_delta']:+.3f}", f"{sh['held_delta_min']:+.3f}", top]
        )  # fmt: skip

    rec = next(f for f in fams if f.fn is m_fuse)
    rec_res = dict(next(r for p, r in all_res[rec.name] if p == rec.shown[0]))
    extras = {
        "best_single": best_single,
        "ci": {
            s: bootstrap_delta(
                rec_res[s], dense[s] if dense[s].scores().mrr >= bm25[s].scores().mrr else bm25[s]
            )
            for s in sets
        },  # fmt: skip
        "oracle": {s: float(np.maximum(dense[s].rr, bm25[s].rr).mean()) for s in sets},
    }
    return main_rows, split_rows, extras


def _row(label: str, res: Mapping[str, PerQuery], sets: Sequence[str],
         best_single: Mapping[str, float]) -> list[str]:  # fmt: skip
    cells = [label]
    for s in sets:
        cells += res[s].scores().row()
    worst = min(res[s].scores().mrr - best_single[s] for s in sets)
    cells.append(f"{worst:+.3f}")
    return cells
