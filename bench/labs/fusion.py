"""Fusion lab: compare ways of fusing dense and BM25 rankings, without the engine's search.

Job: embed the Python FAQ answers (cut into <=200-word passages) and both query sets with the
real MiniLM int8 ONNX model (onnxruntime + tokenizers, mean pooling, L2 norm), retrieve with
numpy cosine and with tantivy BM25 (en_stem, and en_stem + stop words as the engine indexes),
fuse the two candidate lists many ways, rank answers by their best passage, and report
MRR@10 / nDCG@10 / Recall@10 per query set, plus a split-half check of every tuned method
(tune on one half of each query set, score on the other). Writes the `fusion-lab` section of
docs/benchmarks.md.

Candidates are what the engine hands to fusion: each retriever's top 100 passages, and the
cosine of every candidate (BM25-only ones included, as search/retrieve.py computes it).

It imports the production fusion (search/fusion.py) for its recommendation, never a copy;
the other families are the alternatives it was measured against. Never: report a held-out
score for parameters tuned on the same queries.

The lab's parts: fusion_retrieval.py (passages, vectors, candidates), fusion_methods.py
(the fusions), fusion_scoring.py (metrics, tuning, split-half); this module runs them on
each configuration and writes the report.

Run: .venv/bin/python -m bench.labs.fusion   (embeddings are cached; reruns take seconds)
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import data, report
from bench.labs.fusion_retrieval import CANDIDATES, Setup
from bench.labs.fusion_scoring import ROBUST_METHODS, evaluate_config, robustness

RECOMMENDATION = """**Recommendation**: `fuse` in bench/labs/fusion_methods.py, confidence-weighted
CombSUM: `w = 2.5 * gap / (top_cosine + 2.5 * gap)`, `fused = (1 - w) * minmax(cosine) + w *
minmax(BM25)`, where `gap` is BM25's relative margin between its best page and the next page
(each retriever votes with its own confidence on this query). One parameter. With the engine's
BM25 (stop words), 2.25-3 is a plateau (FAQ MRR .857-.859, known-item MRR averaged over 9
simulations .980-.983; 3.5 already costs FAQ .012): 2.5 is its middle, and split-half tuning
picks 2-3. It beats dense on the FAQ questions and stays within one or two queries of BM25 on
known-item queries; no method tried was at least as good as the better single mode on every
set (rank fusion loses 0.1-0.25 MRR on one of them). With plain en_stem BM25 (no stop words)
the best weight is lower (1.25-2): retune if the analyzer changes.
No fusion of these two retrievers reaches FAQ MRR 0.90: even the better of dense and BM25 per
query (the oracle) stays below it; that needs a better embedding model or a reranker."""

CONFIGS = [
    ("passages, BM25 en_stem", False, False),
    ("passages, BM25 en_stem + stop words (as the engine indexes)", False, True),
    ("whole answers (truncated at 256 tokens), BM25 en_stem", True, False),
]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=data.default_cache())
    ap.add_argument("--n-terms", type=int, default=3, help="words per known-item query")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--splits", type=int, default=50, help="random split-half repetitions")
    ap.add_argument("--no-write", action="store_true", help="don't update docs/benchmarks.md")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    sections: list[str] = []
    for title, whole, stop in CONFIGS:
        setup = Setup.build(args.cache, whole, stop)
        runs, corpus = setup.query_sets(args.n_terms, args.seed), setup.corpus
        sets = list(runs)
        main_rows, split_rows, ex = evaluate_config(runs, corpus, args.splits, args.seed)
        head = ["method"]
        for s in sets:
            head += [f"{s} MRR", "nDCG", "R@10"]
        head.append("worst Δ MRR vs better single")
        n_units = len(corpus.unit_text)
        lines = [
            f"### {title}",
            "",
            f"{n_units} units; {len(runs[sets[0]])} FAQ questions, {len(runs[sets[1]])} "
            f"known-item queries ({args.n_terms} rare words, seed {args.seed}). Oracle MRR "
            "(per query the better of dense and BM25): "
            + ", ".join(f"{s} {ex['oracle'][s]:.3f}" for s in sets)
            + ". `fuse` (beta=2.5) minus the better single mode, MRR, 95% paired bootstrap: "
            + ", ".join(f"{s} [{lo:+.3f}, {hi:+.3f}]" for s, (lo, hi) in ex["ci"].items())
            + ".",
            "",
            report.table(head, main_rows),
            "",
            f"Split-half ({args.splits} random splits × both directions): parameters tuned on "
            "half of each set (maximising the worst MRR delta against the better single "
            "mode), scored on the other half.",
            "",
            report.table(
                [
                    "family",
                    "params",
                    *(f"held-out {s} MRR" for s in sets),
                    "mean worst Δ",
                    "min worst Δ",
                    "params chosen (most often)",
                ],
                split_rows,
            ),  # fmt: skip
        ]
        if stop and not whole:  # the engine's configuration: check other simulations too
            lines += [
                "",
                "Known-item MRR@10 under other simulations (words per query × sampling seed):",
                "",
                report.table(["known-item set", *(n for n, _ in ROBUST_METHODS)],
                             robustness(setup)),
            ]  # fmt: skip
        text = "\n".join(lines) + "\n"
        print(text)
        sections.append(text)

    body = "\n".join(
        [
            "## Fusion lab (bench/labs/fusion.py)",
            "",
            f"{report.today()} · {report.machine()} · MiniLM-L6-v2 int8 ONNX, tantivy BM25, "
            f"Python FAQ from python3.11-doc · {time.perf_counter() - t0:.0f} s",
            "",
            "Without the engine: numpy cosine over passage vectors, tantivy BM25, each "
            f"retriever's top {CANDIDATES} passages fused, answers ranked by their best passage. "
            "'worst Δ' is the lower of (method − better single mode) over the two sets: "
            "≥ 0 means hybrid is at least as good as the better single mode on both. One query "
            "moving from rank 1 to 2 changes a set's MRR by 0.003.",
            "",
            RECOMMENDATION,
            "",
            *sections,
        ]
    )
    if not args.no_write:
        path = report.update_section("fusion-lab", body)
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
