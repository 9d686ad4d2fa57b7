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

With `--set` (bench/common/devsets.py's sources, tune and held-out), each set gets its own
store (its answers, neighbours and distractors, titles kept) and its own rows, and the
`first-words-sets` section is written instead: a change tuned on the Python FAQ is checked
on questions it was not tuned on.

Never: touch the user's data directory or change settings beyond what the report says.

Run (about 3 minutes at the defaults on 2 idle cores):
    .venv/bin/python -m bench.perf.first_words [--questions 30] [--out docs/benchmarks.md]
        [--no-write] [--set debian-faq --set git-faq ...] [--variant budget-200 ...]
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

from bench.common import data, devsets, report
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
from bench.quality.relevance import ingest

TARGET_MS = 1000.0  # the model's first token
CHECKED_TARGET_MS = 1500.0  # the first checked words a person sees (the quote, or a
# sentence of the model's that held)
# name -> (label, the settings that variant answers with on top of the bench's own); the
# first one run is "before", what the others are compared with.
VARIANTS: dict[str, tuple[str, dict]] = {
    "long-headers": ("each source's address, visits and reading time",
                     {"answer_source_details": True}),
    "budget-300": ("one-line sources (title, site, date), budget 300",
                   {"answer_token_budget": 300}),
    "budget-200": ("one-line sources, budget 200", {"answer_token_budget": 200}),
}


@dataclasses.dataclass(frozen=True)
class Asked:
    """A question and its gold answer, as bench/quality/answer_runs.py's ask_row grades them."""

    question: str
    doc_id: str
    answer_text: str


@dataclasses.dataclass
class QuestionSet:
    name: str  # "python-faq (answers only)" or a devsets source with its split
    asked: list[Asked]
    url_doc: dict[str, str]  # stored url -> doc id


def stages(r) -> tuple[float, float, float]:
    """(retrieval, packing, reading the prompt to the first word) ms of one ask."""
    t = r.timings
    before = (t["load_ms"] or 0) + t["retrieval_ms"] + t["context_ms"]
    return t["retrieval_ms"], t["context_ms"], t["first_token_ms"] - before


def faq_set(engine_mod, data_dir: Path, settings, embedder, emb_dir: Path, cache: Path,
            n: int) -> QuestionSet:
    """The Python FAQ's answers alone, untitled (bench/quality/quality.py's store)."""
    pairs = data.faq_pairs(data.python_docs(cache))
    url_doc, _, _, _ = build_store(engine_mod, data_dir, settings, embedder, emb_dir, pairs,
                                   visited_at=time.time() - VISITED_DAYS_AGO * 86400)
    kept = [p for p in pairs if p.doc_id in set(url_doc.values())]
    asked = [Asked(p.question, p.doc_id, p.answer_text)
             for p in (kept[i] for i in spread(len(kept), n))]
    return QuestionSet("python-faq (answers only)", asked, url_doc)


def dev_set(name: str, engine_mod, data_dir: Path, settings, embedder, emb_dir: Path,
            cache: Path, n: int) -> QuestionSet:
    """A development set's full store and up to n of its answerable questions."""
    ds = devsets.load(name, cache)
    docs = ds.store_docs("full")
    urls, _, _ = ingest(engine_mod, data_dir, settings, embedder, emb_dir, docs)
    text = {d.doc_id: d.text for d in docs}
    answerable = [q for q in ds.asked() if q.store == "full" and q.answerable
                  and q.gold_doc in urls]
    asked = [Asked(q.question, q.gold_doc, text[q.gold_doc])
             for q in (answerable[i] for i in spread(len(answerable), n))]
    return QuestionSet(f"{name} ({ds.split})", asked, {u: d for d, u in urls.items()})


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=30, help="per set")
    ap.add_argument("--cache", type=Path, default=data.default_cache())
    ap.add_argument("--out", type=Path, default=report.BENCH_DOC)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--set", action="append", default=[], choices=devsets.names(),
                    help="development sets to ask (default: the Python FAQ's answers alone)")
    ap.add_argument("--variant", action="append", default=[], choices=list(VARIANTS),
                    help="variants to run, the first is 'before' (default: all)")
    args = ap.parse_args(argv)
    chosen = args.variant or list(VARIANTS)

    config, engine_mod, _ = _import_engine()
    from rewind.answers import answer as answer_mod
    from rewind.answers.llm import GgufLlm
    from rewind.models import specs as models
    from rewind.models.embedder import OnnxEmbedder

    load_start = report.load_average()
    t_start = time.perf_counter()
    emb_dir = model_dir_for(config, MODEL, None, args.cache)
    spec = models.llm_spec(LLM)
    llm_dir = spec_dir(config, spec, None, args.cache)
    settings = config.Settings(default_embedding_model=MODEL, llm_model=LLM, answer_top_k=TOP_K)
    settings = dataclasses.replace(settings, max_pages_per_domain=settings.max_limit,
                                   answer_pages_per_domain=settings.max_limit)
    embedder = OnnxEmbedder(models.embedding_spec(MODEL), emb_dir,
                            dataclasses.replace(settings, query_cache_size=0))
    variant = {k: dataclasses.replace(settings, **VARIANTS[k][1]) for k in chosen}
    llms = {k: GgufLlm(spec, llm_dir, variant[k]) for k in chosen}  # loaded once, every set
    table = []
    ratios = []
    loads = []
    for set_name in args.set or [None]:
        with tempfile.TemporaryDirectory(prefix="rewind-first-words-") as tmp:
            data_dir = Path(tmp) / "data"
            qs = (dev_set(set_name, engine_mod, data_dir, settings, embedder, emb_dir,
                          args.cache, args.questions) if set_name else
                  faq_set(engine_mod, data_dir, settings, embedder, emb_dir, args.cache,
                          args.questions))
            with engine_mod.Rewind.open(data_dir, settings, writer=False,
                                        embedder=embedder, model_dir=emb_dir) as eng:
                loads.append(report.load_average())
                rows, again = ask_all(eng, qs, variant, answer_mod, llms)
        t, r = grade(qs, rows, again, with_set=bool(args.set))
        table += t
        ratios.append(r)
    for llm in llms.values():
        llm.close()
    load_end = report.load_average()
    body = render(args, len(qs.asked), table, ratios, load_start, loads, load_end,
                  time.perf_counter() - t_start)
    print(body)
    if not args.no_write:
        report.update_section("first-words-sets" if args.set else "first-words", body, args.out)
    return 0


def ask_all(eng, qs: QuestionSet, variant: dict, answer_mod, llms: dict
            ) -> tuple[dict, dict]:
    """Every question of qs asked with each variant, in a rotating order per question."""
    answerers = {k: answer_mod.Answerer(eng, model=llms[k]) for k in variant}

    def ask(k: str, question: str):
        eng.settings = variant[k]  # packing and the gate read the engine's settings
        return answerers[k].ask(question)

    rows: dict[str, list] = {k: [] for k in variant}
    for k in answerers:
        ask(k, WARM_UP_QUESTION)  # warms the model on this store; not measured
    names = list(answerers)
    for i, p in enumerate(qs.asked):
        for k in names[i % len(names):] + names[: i % len(names)]:
            rows[k].append(ask(k, p.question))
        print(f"  {qs.name} {i + 1}/{len(qs.asked)}", file=sys.stderr, flush=True)
    again = {}
    for k in answerers:  # the same question again: the same answer?
        again[k] = ask(k, qs.asked[0].question).answer == rows[k][0].answer
    return rows, again


def ms(res, key):
    return [r.timings[key] for r in res if r.timings.get(key) is not None]


def med(xs) -> str:
    return f"{statistics.median(xs):.0f}" if xs else "-"


def grade(qs: QuestionSet, rows: dict, again: dict,
          with_set: bool) -> tuple[list[list[str]], str]:
    """Table rows for one set's variants, and its first-words ratios against the first."""
    before = next(iter(rows.values()))
    table = []
    for k, res in rows.items():
        first, total = ms(res, "first_token_ms"), ms(res, "total_ms")
        shown = ms(res, "first_words_ms")
        shown_p95 = report.quantile(shown, 0.95) if shown else float("nan")
        graded = [ask_row(r, "llm", p, qs.url_doc) for r, p in
                  zip(res, qs.asked, strict=True)]
        parts = [stages(r) for r in res if r.timings.get("first_token_ms") is not None]
        p95 = report.quantile(first, 0.95) if first else float("nan")
        table.append([*([qs.name] if with_set else []), VARIANTS[k][0], len(first),
                      med(first), f"{p95:.0f}", "yes" if p95 <= TARGET_MS else "**no**",
                      f"{len(shown)}: {med(shown)} / {shown_p95:.0f}",
                      "yes" if shown_p95 <= CHECKED_TARGET_MS else "**no**",
                      *(med([x[j] for x in parts]) for j in range(3)),
                      med(total), f"{report.quantile(total, 0.95):.0f}",
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
        f"{VARIANTS[k][0]} {statistics.median(ms(res, 'first_token_ms')) / f_before:.2f}"
        for k, res in list(rows.items())[1:])
    return table, (f"{qs.name}: {ratios}" if with_set else ratios)


def render(args, n_asked: int, table, ratios, load_start, loads, load_end, took_s) -> str:
    sets = bool(args.set)
    what = (f"Up to {args.questions} answerable questions of each development set "
            "(bench/common/devsets.py; tune and held-out sources as marked), each set asked "
            "of its own store (its answers, neighbours and distractors, titles kept)"
            if sets else f"{n_asked} Python FAQ questions asked of one store of the FAQ's "
            "answers")
    return "\n".join([
        "## First words and answers across question sets (bench/perf/first_words.py --set)"
        if sets else "## First words of an answer (bench/perf/first_words.py)",
        "",
        f"{report.today()} · {report.machine()} · load average (1 min) {load_start:.1f} at the "
        f"start, {', '.join(f'{x:.1f}' for x in loads)} before the asks"
        f"{' of each set' if sets else ''}, {load_end:.1f} after · {took_s:.0f} s in all",
        "",
        f"{what} (answer_top_k {TOP_K}, the default answer budget unless the variant says) "
        "with the offline default SmolLM2-135M-Instruct (the Q8_0 file `rewind setup` makes), "
        "one Answerer per variant, models loaded and warm, the variants in a rotating order "
        "per question. Stages (medians): retrieval (query embedding, search, the relevance "
        "gate), packing the sources, then reading the prompt to the first word (the system "
        "prompt's state is kept between questions: llama.cpp reuses the cached prefix). "
        "\"Same as before\": the answer text the first variant gave. \"Again\": the first "
        f"question asked once more gives the same answer. Targets: the model's first word p95 "
        f"≤ {TARGET_MS:.0f} ms; the first checked words a person sees (nothing unchecked is "
        f"shown: the quote, or the first sentence of the model's that held, from the question "
        f"asked) p95 ≤ {CHECKED_TARGET_MS:.0f} ms, over the answers that showed any.",
        "",
        report.table([*(["set"] if sets else []), "variant", "n", "first words p50 ms", "p95",
                      "p95 met", "first checked words shown: n, p50 / p95 ms",
                      f"≤ {CHECKED_TARGET_MS:.0f} ms", "retrieval", "packing",
                      "prompt to first word",
                      "total p50 ms", "total p95", "source tokens p50", "same as before",
                      "supported", "gold among sources", "gold cited", "answer F1", "again"],
                     table),
        "",
        "First words, median, against the first variant: " + "; ".join(ratios) + ".",
    ])


if __name__ == "__main__":
    raise SystemExit(main())
