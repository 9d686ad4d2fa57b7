"""How well each retrieval signal separates answerable from unanswerable questions, on the
TUNE sources only (the rows bench/relevance.py wrote to build/devsets-signals.jsonl).

Job: per signal of bench/signals.py, the ROC AUC of "the history holds the answer" (answerable
form vs the same questions asked of a store without their answer, plus questions nothing
answers), pooled over the tune sources and per tune source; and the precision and recall of
today's "couldn't find" (LLM and extractive) on the same rows, the trade-off a gate must beat.
Writes the `devsets-signals` section of --out.
Never: read a held-out row (they are dropped on load, before anything is computed).

Run: .venv/bin/python -m bench.gate_signals [--signals build/devsets-signals.jsonl]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

if not __package__:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import devsets, report  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def auc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """P(a random positive scores above a random negative), ties counted half."""
    if not pos or not neg:
        raise ValueError("AUC needs both positives and negatives")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def load_tune(path: Path) -> list[dict]:
    """Question rows of the tune sources; held-out rows never leave this function."""
    tune = set(devsets.names("tune"))
    rows = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["source"] in tune and r["split"] == "tune" and r["kind"] == "question":
                rows.append(r)
    return rows


def signal_rows(rows: list[dict]) -> list[list[str]]:
    sources = sorted({r["source"] for r in rows})
    names = list(rows[0]["signals"]) if rows else []
    out = []
    for name in names:
        cells = [name]
        for group in [rows] + [[r for r in rows if r["source"] == s] for s in sources]:
            pos = [r["signals"][name] for r in group if r["answerable"]]
            neg = [r["signals"][name] for r in group if not r["answerable"]]
            cells.append(f"{auc(pos, neg):.3f}" if pos and neg else "-")
        out.append(cells)
    return sorted(out, key=lambda c: -abs(float(c[1]) - 0.5) if c[1] != "-" else 0)


def refusal_rows(rows: list[dict]) -> list[list[str]]:
    """Precision / recall of "couldn't find" as the engine answers today."""
    out = []
    for mode in ("llm", "extractive"):
        asked = [r for r in rows if mode in r]
        if not asked:
            continue
        said = [r for r in asked if r[mode]["could_not_find"]]
        right = sum(not r["answerable"] for r in said)
        unans = sum(not r["answerable"] for r in asked)
        out.append([mode, str(len(asked)),
                    f"{right / len(said):.2f} ({right}/{len(said)})" if said else "-",
                    f"{right / unans:.2f} ({right}/{unans})" if unans else "-"])  # fmt: skip
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--signals", type=Path, default=ROOT / "build" / "devsets-signals.jsonl")
    ap.add_argument("--out", type=Path, default=report.BENCH_DOC)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if not args.signals.exists():
        raise SystemExit(f"{args.signals} does not exist: run python -m bench.relevance first")
    rows = load_tune(args.signals)
    if not rows:
        raise SystemExit(f"{args.signals} has no tune rows: run bench.relevance on "
                         f"{', '.join(devsets.names('tune'))}")  # fmt: skip
    sources = sorted({r["source"] for r in rows})
    n_pos = sum(r["answerable"] for r in rows)
    lines = [
        "## Answerability signals on the tune sets (bench/gate_signals.py)",
        "",
        f"{report.today()} · from {args.signals.name} (bench/relevance.py) · tune sources "
        f"only: {', '.join(sources)}; {n_pos} answerable and {len(rows) - n_pos} unanswerable "
        "questions (each question in both forms). ROC AUC of each signal of bench/signals.py "
        "for \"the history holds the answer\": 0.5 is chance, below 0.5 the signal works "
        "reversed. Sorted by distance from 0.5 (pooled).",
        "",
        report.table(["signal", "AUC pooled", *sources], signal_rows(rows)),
        "",
        "\"Couldn't find\" as the engine decides today, on the tune questions that were asked "
        "(precision: of the \"couldn't find\" replies, the share that were right; recall: of "
        "the unanswerable questions, the share that got it):",
        "",
        report.table(["mode", "asked", "precision", "recall"], refusal_rows(rows)),
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        print(f"wrote {report.update_section('devsets-signals', body, args.out)}",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
