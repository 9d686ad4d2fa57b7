"""Answer benchmark of the real engine and the default LLM on the Python FAQ.

Job: build a Rewind store in a temporary folder with the FAQ answers (without their
questions; one opaque URL per answer: bench/quality/quality.py's `build_store`), then measure
1. `Answerer.ask` with the default LLM (SmolLM2-135M-Instruct) and 5 passages
   (settings.answer_top_k): first-token and total ms, median and p95, over N questions
   with the model loaded once and warm. The first ask (it loads the model) is left out of
   those figures and reported on its own line;
2. `build_context` (Answerer.build_context: retrieval + packing, counted with the LLM's own
   tokenizer) over the FAQ questions at several budgets, p50/p95, and how many contexts
   came out over their budget (must be 0: the script exits 1 if any did);
3. citations: how often the sources cited in the checked answer, and separately Source 1,
   are the gold FAQ answer; the share of answers the checker calls supported, and of
   "I couldn't find that" answers;
4. SQuAD token F1 of the checked answer (citation tags removed) against the gold answer
   text, for the LLM and, for comparison, the extractive answer (`ask(..., extractive=True)`,
   no model): the 135M model is weak.
LLM and extractive asks alternate per question (which goes first alternates too), and each
question's budgets are taken in a rotating order, so load on a shared machine falls on every
variant alike. Query embedding is included everywhere (the embedder's query cache is off:
every question a person asks is new). Writes the `answers` section of --out.

Never: touch the user's data directory, or change the engine's settings beyond what the
report says (the per-domain caps are lifted, as in bench/quality/quality.py: all answers share one
synthetic site, so the cap of 3 pages a domain would hide the other answers; use
--keep-domain-cap to measure with it).

Run (about 4 minutes at the defaults on 2 idle cores; asks get several times slower when
anything else runs):
    .venv/bin/python -m bench.quality.answers [--questions 40] [--budgets 500 1500 3000]
        [--context-questions 0] [--out docs/benchmarks.md] [--no-write] [--dump ROWS.jsonl]
Smoke run:
    .venv/bin/python -m bench.quality.answers --questions 5 --budgets 1500 --context-questions 20 \\
        --out /tmp/answers-bench.md
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import data, report
from bench.common.metrics import token_prf
from bench.quality.quality import MODEL, _import_engine, build_store, model_dir_for, spec_dir

LLM = "smollm2-135m-instruct-q8_0"  # the offline default LLM; --llm picks another spec
TOP_K = 5  # passages given to the model (settings.answer_top_k)
VISITED_DAYS_AGO = 7  # when the answers were "read" (see main)
BUDGETS = (500, 1500, 3000)
FIRST_TOKEN_TARGET_MS = 1000.0
TOTAL_TARGET_MS = 4000.0
CONTEXT_P95_TARGET_MS = 100.0
KINDS = ("llm", "extractive")
# Asked right after a question: the same sources lead the prompt, so llama.cpp reuses their
# cached state and only reads the new question (prompt-prefix reuse for follow-ups).
FOLLOW_UP = " Answer in one sentence."
# A question outside the FAQ, for the first (cold) ask when every FAQ question is measured.
WARM_UP_QUESTION = "How do I read a text file line by line?"


@dataclass
class AskRow:
    kind: str  # "llm" | "extractive"
    gold: str  # FaqPair.doc_id
    gold_text: str  # its answer text
    answer: str  # the checked answer, citation tags removed ("" for couldn't-find)
    raw: str  # the model's (or extractor's) text before checking, tags removed
    supported: bool
    could_not_find: bool
    left_out: int  # sentences the checker left out as unsupported
    source_docs: list[str]  # doc id of Source 1, 2, ... ("?url" when not an FAQ answer)
    cited_docs: list[str]  # doc ids cited in the checked answer, first citation first
    timings: dict[str, float | None]
    context_tokens: int
    model: str | None


@dataclass
class ContextRow:
    budget: int
    took_ms: float  # whole build_context: retrieval (query embedding included) + packing
    retrieval_ms: float
    tokens: int  # BuiltContext.total_tokens
    recount: int  # the packed text counted again, whole, with the same tokenizer
    items: int

    @property
    def over(self) -> bool:
        return max(self.tokens, self.recount) > self.budget


@dataclass
class Run:
    rows: dict[str, list[AskRow]] = field(default_factory=lambda: {k: [] for k in KINDS})
    first_ask: AskRow | None = None
    first_ask_wall_ms: float = 0.0
    context: list[ContextRow] = field(default_factory=list)
    tokenizer: str = ""
    follow_up_first_token: list[float] = field(default_factory=list)  # same sources only
    follow_ups: int = 0  # asked; those whose sources differed are not timed above
    # Questions whose answer was left out of the store: "couldn't find" is the right reply.
    held_out: dict[str, list[AskRow]] = field(default_factory=lambda: {k: [] for k in KINDS})


def _import_answer() -> Any:
    try:
        from rewind.answers import answer
    except ImportError as exc:
        raise SystemExit(f"rewind.answers is not importable ({exc}); see host/rewind") from exc
    return answer


def spread(n_items: int, n: int) -> list[int]:
    """`n` indices spread evenly over range(n_items) (all of them when n >= n_items)."""
    if n <= 0 or n >= n_items:
        return list(range(n_items))
    return sorted({(i * n_items) // n for i in range(n)})


def ask_row(res: Any, kind: str, gold: data.FaqPair | None,
            url_doc: dict[str, str]) -> AskRow:  # fmt: skip
    by_n = {s["n"]: url_doc.get(s["url"], f"?{s['url']}") for s in res.sources}
    cited: list[int] = []
    if res.supported:  # a couldn't-find answer lists the closest pages: those are no citations
        for c in res.citations:
            if c["status"] in ("ok", "corrected", "added"):
                cited += [n for n in c["sources"] if n not in cited]
    from rewind.answers.citations import CITE
    from rewind.answers.prompt import COULD_NOT_FIND

    cnf = res.answer.startswith(COULD_NOT_FIND)

    def bare(text: str) -> str:  # "It does [Source 2]." -> "It does."
        return re.sub(r"[ \t]+([.,;:!?])", r"\1", CITE.sub("", text))

    return AskRow(
        kind=kind,
        gold=gold.doc_id if gold else "",
        gold_text=gold.answer_text if gold else "",
        answer="" if cnf else bare(res.answer),
        raw=bare(res.raw_answer),
        supported=res.supported,
        could_not_find=cnf,
        left_out=len(res.unsupported),
        source_docs=[by_n[n] for n in sorted(by_n)],
        cited_docs=[by_n.get(n, f"?{n}") for n in cited],
        timings=dict(res.timings),
        context_tokens=res.context_tokens,
        model=res.model,
    )


def run_asks(answerer: Any, questions: Sequence[data.FaqPair], warm_up: str,
             url_doc: dict[str, str], out: Run,
             progress: Callable[[str], None]) -> None:  # fmt: skip
    """The cold first ask, then every question with the LLM and extractively, alternating."""
    t0 = time.perf_counter()
    first = answerer.ask(warm_up)
    out.first_ask_wall_ms = (time.perf_counter() - t0) * 1000
    if first.model is None:
        problem = answerer.llm_problem
        raise SystemExit(f"no language model answered: {problem.message if problem else '?'}"
                         f" {problem.hint if problem else ''}")  # fmt: skip
    out.first_ask = ask_row(first, "llm", None, url_doc)
    for i, p in enumerate(questions):
        order = KINDS if i % 2 == 0 else KINDS[::-1]
        for kind in order:
            res = answerer.ask(p.question, extractive=kind == "extractive")
            out.rows[kind].append(ask_row(res, kind, p, url_doc))
            if kind == "llm":
                res_llm = res
        follow = answerer.ask(p.question + FOLLOW_UP)  # after both: the LLM's cache holds p
        out.follow_ups += 1
        same = [s["url"] for s in follow.sources] == [s["url"] for s in res_llm.sources]
        # no first token when the follow-up was answered "couldn't find" without the model
        if same and follow.timings.get("first_token_ms") is not None:
            out.follow_up_first_token.append(follow.timings["first_token_ms"])
        llm_row = out.rows["llm"][-1]
        progress(f"  ask {i + 1}/{len(questions)}: total {llm_row.timings['total_ms']} ms, "
                 f"{'supported' if llm_row.supported else 'not supported'}")  # fmt: skip


def run_contexts(answerer: Any, questions: Sequence[data.FaqPair], budgets: Sequence[int],
                 out: Run) -> None:  # fmt: skip
    """build_context for every question at every budget, budgets in a rotating order."""
    tok = answerer.tokenizer()
    out.tokenizer = tok.name
    if "no language model" in tok.name or "approximate" in tok.name:
        raise SystemExit(f"build_context would count with {tok.name!r}, not the LLM's tokenizer")
    answerer.build_context("warm up", None, budgets[0])  # first-call costs (index reload)
    for i, p in enumerate(questions):
        r = i % len(budgets)
        for b in [*budgets[r:], *budgets[:r]]:
            t0 = time.perf_counter()
            built = answerer.build_context(p.question, None, b)
            took = (time.perf_counter() - t0) * 1000
            out.context.append(ContextRow(b, took, built.retrieval_ms, built.total_tokens,
                                          tok.count(built.text), len(built.items)))  # fmt: skip


def run_held_out(answerer: Any, questions: Sequence[data.FaqPair], url_doc: dict[str, str],
                 out: Run) -> None:  # fmt: skip
    """Each question with the LLM and extractively, over a store that lacks its answer."""
    for i, p in enumerate(questions):
        for kind in KINDS if i % 2 == 0 else KINDS[::-1]:
            res = answerer.ask(p.question, extractive=kind == "extractive")
            out.held_out[kind].append(ask_row(res, kind, p, url_doc))


def held_out_rows(run: Run) -> list[list[str]]:
    def row(label: str, pred: Callable[[AskRow], bool]) -> list[str]:
        return [label, *(_share(sum(map(pred, run.held_out[k])), len(run.held_out[k]))
                         for k in KINDS)]  # fmt: skip

    return [
        row('"couldn\'t find" (right: the answer is not in the store)', lambda r: r.could_not_find),
        row("answered anyway (the checker found support in other pages)", lambda r: r.supported),
    ]


# ----------------------------------------------------------------------------- reporting


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


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument(
        "--questions",
        type=int,
        default=40,
        help="FAQ questions asked, with the LLM and extractively (spread evenly)",
    )
    ap.add_argument(
        "--context-questions",
        type=int,
        default=0,
        help="FAQ questions for build_context (0: all of them)",
    )
    ap.add_argument(
        "--budgets", type=int, nargs="+", default=list(BUDGETS), help="build_context token budgets"
    )
    ap.add_argument("--cache", type=Path, default=data.default_cache())
    ap.add_argument("--model", default=MODEL, help="embedding model spec name (models.json)")
    ap.add_argument("--llm", default=LLM, help="LLM spec name (models.json)")
    ap.add_argument("--model-dir", type=Path, default=None, help="holds both models")
    ap.add_argument(
        "--keep-domain-cap",
        action="store_true",
        help="keep the engine's per-domain caps (see the docstring)",
    )
    ap.add_argument(
        "--held-out",
        type=int,
        default=30,
        help="FAQ questions asked of a store without their answers (0: skip)",
    )
    ap.add_argument("--out", type=Path, default=report.BENCH_DOC, help="the report to update")
    ap.add_argument("--no-write", action="store_true", help="only print the figures")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="override a Settings field (e.g. answer_token_budget=300), to compare")
    ap.add_argument(
        "--dump",
        type=Path,
        default=None,
        help="also write every ask (answers, sources, timings) here as JSON lines",
    )
    args = ap.parse_args(argv)
    if args.questions < 1 or any(b < 1 for b in args.budgets):
        ap.error("--questions and --budgets must be positive")

    def progress(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    config, engine_mod, _search = _import_engine()
    answer_mod = _import_answer()
    from rewind.models import specs
    from rewind.models.embedder import OnnxEmbedder

    t_start = time.perf_counter()
    load_start = report.load_average()
    pairs = data.faq_pairs(data.python_docs(args.cache))
    emb_dir = model_dir_for(config, args.model, args.model_dir, args.cache)
    llm_spec = specs.llm_spec(args.llm)
    llm_dir = spec_dir(config, llm_spec, args.model_dir, args.cache)
    base = config.Settings(default_embedding_model=args.model, llm_model=args.llm,
                           answer_top_k=TOP_K)  # fmt: skip
    for item in args.set:
        name, _, value = item.partition("=")
        kind = type(getattr(base, name))  # an unknown field raises AttributeError: good
        parsed = value.lower() in ("1", "true", "yes") if kind is bool else kind(value)
        base = dataclasses.replace(base, **{name: parsed})
    if not args.keep_domain_cap:
        base = dataclasses.replace(base, max_pages_per_domain=base.max_limit,
                                   answer_pages_per_domain=base.max_limit)  # fmt: skip
    # No query cache: each measured question is embedded, as a new question would be.
    embedder = OnnxEmbedder(specs.embedding_spec(args.model), emb_dir,
                            dataclasses.replace(base, query_cache_size=0))  # fmt: skip

    run = Run()
    with tempfile.TemporaryDirectory(prefix="rewind-answers-") as tmp:
        data_dir = Path(tmp) / "data"
        # Visited a week ago: the sources' "Visited: <date>" lines, part of the
        # prompt, then stay the same all run long ("just now" turns into "1 minute ago"
        # after a minute and changes the model's answers from run to run).
        url_doc, refused, ingest_s, n_passages = build_store(
            engine_mod, data_dir, base, embedder, emb_dir, pairs,
            visited_at=time.time() - VISITED_DAYS_AGO * 86400)  # fmt: skip
        indexed = set(url_doc.values())
        kept = [p for p in pairs if p.doc_id in indexed]
        asked = [kept[i] for i in spread(len(kept), args.questions)]
        asked_ids = {p.doc_id for p in asked}
        warm_up = next((p.question for p in kept if p.doc_id not in asked_ids), WARM_UP_QUESTION)
        ctx_qs = [kept[i] for i in spread(len(kept), args.context_questions)]
        progress(f"indexed {len(kept)} answers ({n_passages} passages) in {ingest_s:.0f} s")

        with engine_mod.Rewind.open(data_dir, base, writer=False, embedder=embedder,
                                    model_dir=emb_dir) as eng:  # fmt: skip
            answerer = answer_mod.Answerer(eng, model_dir=llm_dir)
            load_before = report.load_average()
            t_asks = time.perf_counter()
            run_asks(answerer, asked, warm_up, url_doc, run, progress)
            asks_s = time.perf_counter() - t_asks
            t_ctx = time.perf_counter()
            run_contexts(answerer, ctx_qs, args.budgets, run)
            ctx_s = time.perf_counter() - t_ctx
            answerer.close()

        held = [p for p in kept if p.doc_id not in asked_ids and p.question != warm_up]
        held = [held[i] for i in spread(len(held), args.held_out)] if args.held_out else []
        if held:
            held_ids = {p.doc_id for p in held}
            url_doc_h, _, _, _ = build_store(
                engine_mod, Path(tmp) / "held-out", base, embedder, emb_dir,
                [p for p in pairs if p.doc_id not in held_ids],
                visited_at=time.time() - VISITED_DAYS_AGO * 86400)  # fmt: skip
            with engine_mod.Rewind.open(Path(tmp) / "held-out", base, writer=False,
                                        embedder=embedder, model_dir=emb_dir) as eng:  # fmt: skip
                answerer = answer_mod.Answerer(eng, model_dir=llm_dir)
                run_held_out(answerer, held, url_doc_h, run)
                answerer.close()
            progress(f"asked {len(held)} questions whose answers were left out")
        load_after = report.load_average()

    over = sum(r.over for r in run.context)
    llm_name = next((r.model for r in run.rows["llm"] if r.model), args.llm)
    first = run.first_ask
    assert first is not None
    ft = first.timings

    facets = f", answer_facets {base.answer_facets}" if hasattr(base, "answer_facets") else ""
    lines = [
        "## Answers (bench/quality/answers.py)",
        "",
        f"{report.today()} · {report.machine()} · embedding {args.model} · LLM {llm_name} · "
        f"{time.perf_counter() - t_start:.0f} s in all · load average (1 min) "
        f"{load_start:.1f} at the start, {load_before:.1f} before the measured part, "
        f"{load_after:.1f} after",
        "",
        f"The real engine over {len(kept)} Python FAQ answers ({n_passages} passages, indexed "
        f"in {ingest_s:.0f} s) without their questions, one opaque URL each (as "
        "bench/quality/quality.py). `Answerer.ask` with answer_top_k "
        f"{base.answer_top_k} and the default answer budget ({base.answer_token_budget} "
        f"tokens{facets}; an extract draws on {base.extract_token_budget}) on {len(asked)} "
        "FAQ questions spread evenly over the set, each "
        "asked with the LLM and extractively (`extractive=True`, no model), in alternating order. "
        "Settings are the engine's defaults"
        + (" except the per-domain caps, lifted (all answers share one synthetic site)."
           if not args.keep_domain_cap else ".")
        + " The query cache is off: every question is embedded, as a new one would be. "
        f"Pages are marked visited {VISITED_DAYS_AGO} days before the run, so the prompt "
        "does not change with the clock while it runs."
        + (f" The engine refused {len(refused)} answer(s), left out: "
           + ", ".join(d for d, _ in refused) + "." if refused else ""),
        "",
        "### Ask latency, model loaded and warm (ms)",
        "",
        f"The first ask (\"{warm_up}\", not one of the measured questions) loads the model "
        f"and is left out below: first token {ft.get('first_token_ms')} ms, total "
        f"{ft.get('total_ms')} ms ({run.first_ask_wall_ms:.0f} ms wall). Targets on 2 cores: "
        f"first token ≤ {FIRST_TOKEN_TARGET_MS / 1000:.0f} s, total ≤ "
        f"{TOTAL_TARGET_MS / 1000:.0f} s; 'met' compares the p95. {asks_s:.0f} s for all asks. "
        f"Each question is followed by a follow-up (the question + \"{FOLLOW_UP.strip()}\"): "
        "when it finds the same sources, llama.cpp reuses the cached prompt (sources first, "
        "question last) and reads only the new words.",
        "",
        report.table(["stage", "n", "median", "p95", "target", "p95 met"], timing_rows(run)),
        "",
        "### build_context (ms, tokens)",
        "",
        f"`Answerer.build_context` (retrieval with query embedding + packing) for "
        f"{len(ctx_qs)} FAQ questions at each budget, budgets in a rotating order; tokens "
        f"counted with the LLM's own tokenizer ({run.tokenizer}), the packed text counted "
        f"again whole. Target: p95 < {CONTEXT_P95_TARGET_MS:.0f} ms. Over budget: "
        f"{over} (must be 0). {ctx_s:.0f} s.",
        "",
        report.table(["budget", "n", "p50", "p95", "p95 met", "retrieval p50", "pack p50",
                      "pack p95", "mean tokens", "max tokens", "mean passages",
                      "over budget"], context_rows(run, args.budgets)),
        "",
        "### Citations and answer text",
        "",
        "Gold: the FAQ answer the question heads (its FAQ page: the looser match). Cited "
        "sources: those cited in the checked answer (none for a \"couldn't find\" answer, "
        "whose page list is not a citation). Token F1: SQuAD's (lower case, no punctuation "
        "or articles, bag of tokens) of the checked answer, `[Source N]` tags removed, "
        "against the whole gold answer, so recall is low by construction for long answers.",
        "",
        report.table(["measure", f"LLM ({llm_name})", "extractive"], quality_rows(run)),
    ]  # fmt: skip
    if run.held_out["llm"]:
        n_held = len(run.held_out["llm"])
        lines += [
            "",
            "### Questions the history cannot answer",
            "",
            f"{n_held} other FAQ questions, asked of a second store holding every FAQ answer "
            "except theirs: the pages nearest in topic are there, the answer is not, so \"I "
            "couldn't find that in your history\" is the right reply.",
            "",
            report.table(["measure", f"LLM ({llm_name})", "extractive"], held_out_rows(run)),
        ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        print(f"wrote {report.update_section('answers', body, args.out)}", file=sys.stderr)
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as f:
            for r in [first, *run.rows["llm"], *run.rows["extractive"]]:
                f.write(json.dumps(dataclasses.asdict(r), ensure_ascii=False) + "\n")
        print(f"wrote {args.dump}", file=sys.stderr)
    if over:
        print(f"FAIL: {over} build_context result(s) over their budget", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
