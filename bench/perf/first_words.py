"""First words of an answer with the offline default LLM (Q8_0, warm): before and after a
change to how it is run, in one run.

Job: build the Python FAQ store (bench/quality/quality.py's `build_store`), then ask N FAQ
questions of one Answerer per variant over the same engine (VARIANTS: the settings each
runs with; "before" is how main ran it), taking the variants in a rotating order per
question so load on a shared machine falls on all alike; each model is loaded and warmed
once before. Reports first-token and total ms (median, p95), the stages before the first
word (retrieval with the query embedding and the relevance gate, packing, then reading the
prompt to the first word), the source tokens in the prompt, how often a variant's answer is
the text "before" gave, how often it is supported, and whether asking the first question
again gives the same answer (seeded decoding), and, against each question's gold FAQ answer,
how often it is among the sources and cited, and the answer's token F1 (as
bench/quality/answers.py). Writes the `first-words` section of --out, with the load beside
the figures.

Never: touch the user's data directory or change settings beyond what the report says.

Run (about 3 minutes at the defaults on 2 idle cores):
    .venv/bin/python -m bench.perf.first_words [--questions 30] [--out docs/benchmarks.md]
        [--no-write]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import data, report
from bench.common.metrics import token_prf
from bench.quality.answers import (
    LLM,
    TOP_K,
    VISITED_DAYS_AGO,
    WARM_UP_QUESTION,
    ask_row,
    spread,
)
from bench.quality.quality import MODEL, _import_engine, build_store, model_dir_for, spec_dir

TARGET_MS = 1000.0
# label -> the settings that variant answers with (on top of the bench's own); the first is
# "before": how main ran the model.
VARIANTS: dict[str, dict] = {
    "before: each source's address, visits and reading time": {"answer_source_details": True},
    "after: one-line sources (title, site, date)": {},
    "after: one-line sources, budget 200": {"answer_token_budget": 200},
}


def stages(r) -> tuple[float, float, float]:
    """(retrieval, packing, reading the prompt to the first word) ms of one ask."""
    t = r.timings
    before = (t["load_ms"] or 0) + t["retrieval_ms"] + t["context_ms"]
    return t["retrieval_ms"], t["context_ms"], t["first_token_ms"] - before


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=30)
    ap.add_argument("--cache", type=Path, default=data.default_cache())
    ap.add_argument("--out", type=Path, default=report.BENCH_DOC)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    config, engine_mod, _ = _import_engine()
    from rewind.answers import answer as answer_mod
    from rewind.answers.llm import GgufLlm
    from rewind.models import specs as models
    from rewind.models.embedder import OnnxEmbedder

    load_start = report.load_average()
    t_start = time.perf_counter()
    pairs = data.faq_pairs(data.python_docs(args.cache))
    emb_dir = model_dir_for(config, MODEL, None, args.cache)
    spec = models.llm_spec(LLM)
    llm_dir = spec_dir(config, spec, None, args.cache)
    settings = config.Settings(default_embedding_model=MODEL, llm_model=LLM, answer_top_k=TOP_K)
    settings = dataclasses.replace(settings, max_pages_per_domain=settings.max_limit,
                                   answer_pages_per_domain=settings.max_limit)
    embedder = OnnxEmbedder(models.embedding_spec(MODEL), emb_dir,
                            dataclasses.replace(settings, query_cache_size=0))
    rows: dict[str, list] = {k: [] for k in VARIANTS}
    again: dict[str, bool] = {}
    with tempfile.TemporaryDirectory(prefix="rewind-first-words-") as tmp:
        url_doc, _, _, _ = build_store(engine_mod, Path(tmp) / "data", settings, embedder,
                                       emb_dir, pairs,
                                       visited_at=time.time() - VISITED_DAYS_AGO * 86400)
        kept = [p for p in pairs if p.doc_id in set(url_doc.values())]
        asked = [kept[i] for i in spread(len(kept), args.questions)]
        with engine_mod.Rewind.open(Path(tmp) / "data", settings, writer=False,
                                    embedder=embedder, model_dir=emb_dir) as eng:
            variant = {k: dataclasses.replace(settings, **patch) for k, patch in VARIANTS.items()}
            answerers = {k: answer_mod.Answerer(eng, model=GgufLlm(spec, llm_dir, variant[k]))
                         for k in VARIANTS}

            def ask(k: str, question: str):
                eng.settings = variant[k]  # packing and the gate read the engine's settings
                return answerers[k].ask(question)

            for k in answerers:
                ask(k, WARM_UP_QUESTION)  # loads and warms the model; not measured
            load_before = report.load_average()
            names = list(answerers)
            for i, p in enumerate(asked):
                for k in names[i % len(names):] + names[: i % len(names)]:
                    rows[k].append(ask(k, p.question))
                print(f"  {i + 1}/{len(asked)}", file=sys.stderr, flush=True)
            for k, a in answerers.items():  # the same question again: the same answer?
                again[k] = ask(k, asked[0].question).answer == rows[k][0].answer
                a.close()
    load_end = report.load_average()

    def ms(res, key):
        return [r.timings[key] for r in res if r.timings.get(key) is not None]

    before = next(iter(rows.values()))
    table = []
    for k, res in rows.items():
        first, total = ms(res, "first_token_ms"), ms(res, "total_ms")
        graded = [ask_row(r, "llm", p, url_doc, answer_mod) for r, p in
                  zip(res, asked, strict=True)]
        parts = [stages(r) for r in res if r.timings.get("first_token_ms") is not None]
        p95 = report.quantile(first, 0.95)
        table.append([k, len(first), f"{statistics.median(first):.0f}", f"{p95:.0f}",
                      "yes" if p95 <= TARGET_MS else "**no**",
                      *(f"{statistics.median(x[j] for x in parts):.0f}" for j in range(3)),
                      f"{statistics.median(total):.0f}", f"{report.quantile(total, 0.95):.0f}",
                      f"{statistics.median(r.context_tokens for r in res):.0f}",
                      f"{sum(r.answer == b.answer for r, b in zip(res, before, strict=True))}"
                      f"/{len(res)}",
                      f"{sum(r.supported for r in res)}/{len(res)}",
                      f"{sum(g.gold in g.source_docs for g in graded)}/{len(res)}",
                      f"{sum(g.gold in g.cited_docs for g in graded)}/{len(res)}",
                      f"{statistics.mean(token_prf(g.answer, g.gold_text)[2] for g in graded):.3f}",
                      "yes" if again[k] else "**no**"])
    f_before = statistics.median(ms(before, "first_token_ms"))
    ratios = ", ".join(
        f"{k.split(':')[0]} {statistics.median(ms(res, 'first_token_ms')) / f_before:.2f}"
        for k, res in list(rows.items())[1:])
    body = "\n".join([
        "## First words of an answer (bench/perf/first_words.py)",
        "",
        f"{report.today()} · {report.machine()} · load average (1 min) {load_start:.1f} at the "
        f"start, {load_before:.1f} before the asks, {load_end:.1f} after · "
        f"{time.perf_counter() - t_start:.0f} s in all",
        "",
        f"{len(asked)} Python FAQ questions asked of one store (answer_top_k {TOP_K}, the default "
        "answer budget unless the variant says) with the offline default "
        "SmolLM2-135M-Instruct (the Q8_0 file `rewind setup` makes), one Answerer per "
        "variant, models loaded and warm, the variants in a "
        "rotating order per question. Stages (medians): retrieval (query embedding, search, "
        "the relevance gate), packing the sources, then reading the prompt to the first word "
        "(the system prompt's state is kept between questions: llama.cpp reuses the cached "
        "prefix). \"Same as before\": the answer text the first variant gave. \"Again\": the "
        f"first question asked once more gives the same answer. Target: first words p95 ≤ "
        f"{TARGET_MS:.0f} ms.",
        "",
        report.table(["variant", "n", "first words p50 ms", "p95", "p95 met", "retrieval",
                      "packing", "prompt to first word", "total p50 ms", "total p95",
                      "source tokens p50", "same as before", "supported", "gold among sources",
                      "gold cited", "answer F1", "again"], table),
        "",
        f"First words, median, against before: {ratios}.",
    ])
    print(body)
    if not args.no_write:
        report.update_section("first-words", body, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
