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

Its parts: bench/quality/answer_runs.py asks and keeps a row of each answer,
bench/quality/answer_tables.py makes the report's tables of them; this module builds the
stores, runs both and writes the section.

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
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import data, report
from bench.quality.answer_runs import (
    FOLLOW_UP,
    LLM,
    TOP_K,
    VISITED_DAYS_AGO,
    WARM_UP_QUESTION,
    Run,
    _import_answer,
    ask_row,
    run_asks,
    run_contexts,
    run_held_out,
    spread,
)
from bench.quality.answer_tables import (
    CONTEXT_P95_TARGET_MS,
    FIRST_TOKEN_TARGET_MS,
    TOTAL_TARGET_MS,
    context_rows,
    held_out_rows,
    quality_rows,
    timing_rows,
)
from bench.quality.quality import MODEL, _import_engine, build_store, model_dir_for, spec_dir

# What other benchmarks import from here (first_words, relevance, answer_quality), defined in
# answer_runs.py.
__all__ = ["LLM", "TOP_K", "VISITED_DAYS_AGO", "WARM_UP_QUESTION", "_import_answer", "ask_row",
           "main", "spread"]

BUDGETS = (500, 1500, 3000)


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
