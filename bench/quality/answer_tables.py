"""The answer benchmark's tables (bench/quality/answers.py): the rows of its report, made
from a `Run` of bench/quality/answer_runs.py.

Job: timings (median and p95 of every stage, against the targets), build_context (time,
tokens, passages, results over their budget), citations and answer text (the gold answer
among the sources and the citations, token F1), and the questions the store cannot answer,
one column per kind of answer. Never: ask or measure anything, or write the report (answers.py
writes it through bench/common/report.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bench.common import report
from bench.common.metrics import token_prf
from bench.quality.answer_runs import KINDS, AskRow, Run

# Targets on 2 cores, met when the p95 is within them.
FIRST_TOKEN_TARGET_MS = 1000.0
TOTAL_TARGET_MS = 4000.0
CONTEXT_P95_TARGET_MS = 100.0


def held_out_rows(run: Run) -> list[list[str]]:
    def row(label: str, pred: Callable[[AskRow], bool]) -> list[str]:
        return [label, *(_share(sum(map(pred, run.held_out[k])), len(run.held_out[k]))
                         for k in KINDS)]  # fmt: skip

    return [
        row('"couldn\'t find" (right: the answer is not in the store)', lambda r: r.could_not_find),
        row("answered anyway (the checker found support in other pages)", lambda r: r.supported),
    ]


def _ms(xs: Sequence[float], p: float) -> str:
    return f"{report.quantile(xs, p):.0f}" if xs else "-"


def _share(n: int, d: int) -> str:
    return f"{n / d:.2f} ({n}/{d})" if d else "-"


def _mean(xs: Sequence[float]) -> str:
    return f"{sum(xs) / len(xs):.3f}" if xs else "-"


def _page(doc: str) -> str:
    return doc.split("/", 1)[0]


def timing_rows(run: Run) -> list[list[str]]:
    """First token and total (with their targets), then every other stage AskResult times."""
    targets = {"first_token_ms": FIRST_TOKEN_TARGET_MS, "total_ms": TOTAL_TARGET_MS}
    rows = []
    for kind in KINDS:
        keys = list(targets)
        for r in run.rows[kind]:
            keys += [k for k in r.timings if k not in keys]
        for key in keys:
            xs = [v for r in run.rows[kind] if (v := r.timings.get(key)) is not None]
            if xs or key in targets:
                rows.append(_timing_row(kind, key, xs, targets.get(key) if kind == "llm" else None))
        if kind == "llm" and run.follow_ups:
            rows.append(_timing_row(
                "llm", "first_token_ms", run.follow_up_first_token, FIRST_TOKEN_TARGET_MS,
                label=f"LLM first_token of a follow-up over the same sources "
                f"({len(run.follow_up_first_token)} of {run.follow_ups} kept them)"))  # fmt: skip
    return rows


def _timing_row(kind: str, key: str, xs: list[float], target: float | None,
                label: str | None = None) -> list[str]:  # fmt: skip
    met = "-"
    if target is not None and xs:
        met = "yes" if report.quantile(xs, 0.95) <= target else "**no**"
    return [
        label or f"{'LLM' if kind == 'llm' else 'extractive'} {key.removesuffix('_ms')}",
        str(len(xs)), _ms(xs, 0.5), _ms(xs, 0.95),
        f"≤ {target:.0f}" if target is not None else "", met,
    ]  # fmt: skip


def context_rows(run: Run, budgets: Sequence[int]) -> list[list[str]]:
    rows = []
    for b in budgets:
        rs = [r for r in run.context if r.budget == b]
        took = [r.took_ms for r in rs]
        pack = [r.took_ms - r.retrieval_ms for r in rs]
        over = sum(r.over for r in rs)
        met = "yes" if took and report.quantile(took, 0.95) < CONTEXT_P95_TARGET_MS else "**no**"
        rows.append([
            str(b), str(len(rs)), _ms(took, 0.5), _ms(took, 0.95), met,
            _ms([r.retrieval_ms for r in rs], 0.5), _ms(pack, 0.5), _ms(pack, 0.95),
            f"{sum(r.recount for r in rs) / max(1, len(rs)):.0f}",
            str(max((r.recount for r in rs), default=0)),
            f"{sum(r.items for r in rs) / max(1, len(rs)):.1f}",
            str(over) if over == 0 else f"**{over}**",
        ])  # fmt: skip
    return rows


def quality_rows(run: Run) -> list[list[str]]:
    """Citations and answer text, one column per kind of answer."""
    out: list[list[str]] = []

    def row(label: str, f: Callable[[list[AskRow]], str]) -> None:
        out.append([label, *(f(run.rows[k]) for k in KINDS)])

    def frac(pred: Callable[[AskRow], bool], among: Callable[[AskRow], bool] = lambda r: True
             ) -> Callable[[list[AskRow]], str]:  # fmt: skip
        def f(rs: list[AskRow]) -> str:
            pool = [r for r in rs if among(r)]
            return _share(sum(map(pred, pool)), len(pool))

        return f

    def cited_precision(rs: list[AskRow]) -> str:
        refs = [d == r.gold for r in rs for d in r.cited_docs]
        return _share(sum(refs), len(refs))

    def f1(text: Callable[[AskRow], str], among: Callable[[AskRow], bool] = lambda r: True,
           part: int = 2) -> Callable[[list[AskRow]], str]:  # fmt: skip
        return lambda rs: _mean([token_prf(text(r), r.gold_text)[part] for r in rs if among(r)])

    def answered(r: AskRow) -> bool:
        return r.supported

    row("supported (checker)", frac(lambda r: r.supported))
    row('"couldn\'t find" answer', frac(lambda r: r.could_not_find))
    row("supported, some sentence left out", frac(lambda r: r.left_out > 0, answered))
    row("mean sources given / context tokens", lambda rs: (
        f"{sum(len(r.source_docs) for r in rs) / max(1, len(rs)):.1f} / "
        f"{sum(r.context_tokens for r in rs) / max(1, len(rs)):.0f}"))  # fmt: skip
    row("gold answer among the sources", frac(lambda r: r.gold in r.source_docs))
    row("Source 1 is the gold answer", frac(lambda r: r.source_docs[:1] == [r.gold]))
    row(
        "Source 1 is on the gold FAQ page",
        frac(lambda r: bool(r.source_docs) and _page(r.source_docs[0]) == _page(r.gold)),
    )
    row("cited sources include the gold answer", frac(lambda r: r.gold in r.cited_docs))
    row("  same, among supported answers", frac(lambda r: r.gold in r.cited_docs, answered))
    row("first cited source is the gold answer", frac(lambda r: r.cited_docs[:1] == [r.gold]))
    row(
        "cited sources include the gold FAQ page",
        frac(lambda r: _page(r.gold) in map(_page, r.cited_docs)),
    )
    row("citations that are the gold answer", cited_precision)
    row("token F1, checked answer (couldn't find = 0)", f1(lambda r: r.answer))
    row(
        "  precision / recall",
        lambda rs: f"{f1(lambda r: r.answer, part=0)(rs)} / {f1(lambda r: r.answer, part=1)(rs)}",
    )
    row("token F1, checked answer, supported only", f1(lambda r: r.answer, answered))
    row("token F1, text before checking", f1(lambda r: r.raw))
    return out
