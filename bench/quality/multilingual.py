"""Search in every language: MRR@10 per language, question language, mode and model.

Job: for each embedding model (MiniLM, the offline default; multilingual-e5-small) and each
language of bench/common/lang_devsets.py (English, German, French, Spanish, Italian, Japanese,
Chinese), build a store of that language's pages with the real engine (`Rewind.ingest`, one
store per language, as a person reading in that language would have), then search it with
the pages' headings in the language ("native"), the English headings ("English") and
known-item queries (three rare words), in keyword, semantic and hybrid mode, and report
MRR@10 on the held-out chapters (and the dev chapters apart). Writes the `multilingual`
section of docs/benchmarks.md.
Never: touch the user's data directory; change the engine's settings beyond lifting the
per-domain cap (every page of a set lives on one synthetic site).

Run: .venv/bin/python -m bench.quality.multilingual [--langs de,ja] [--models NAME,...]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench.common import lang_devsets, report
from bench.common.metrics import evaluate
from bench.quality.quality import _import_engine, model_dir_for

MODELS = ("all-minilm-l6-v2-int8", "multilingual-e5-small")
MODES = ("keyword", "semantic", "hybrid")
KINDS = ("native", "english", "known-item")
LIMIT = 10


def run_lang(eng_mod, search, settings, embedder, model_dir: Path, ls: lang_devsets.LangSet
             ) -> tuple[dict, dict]:  # fmt: skip
    """{(kind, mode, split): MRR@10}, and what building the store took."""
    from rewind.profile.language_mix import pages_per_language

    with tempfile.TemporaryDirectory(prefix="rewind-bench-lang-") as tmp:
        d = Path(tmp)
        t0 = time.perf_counter()
        passages = 0
        url_doc = {}
        with eng_mod.Rewind.open(d, settings, writer=True, embedder=embedder,
                                 model_dir=model_dir) as eng:  # fmt: skip
            for s in ls.docs:
                res = eng.ingest(ls.url(s.sid), s.text, {"title": "",
                                                         "visited_at": time.time() - 86400})
                url_doc[res.url] = s.sid
                passages += res.passages
            mix = pages_per_language(eng.text_index)
        built = {"pages": len(ls.docs), "passages": passages,
                 "seconds": time.perf_counter() - t0, "mix": mix}
        runs: dict[tuple[str, str, str], list] = {}
        with eng_mod.Rewind.open(d, settings, writer=False, embedder=embedder,
                                 model_dir=model_dir) as eng:  # fmt: skip
            for q in ls.queries:
                for mode in MODES:
                    resp = eng.search(search.SearchQuery(q.text, mode=mode, limit=LIMIT))
                    ranked = [url_doc.get(h.url, "?") for h in resp.results]
                    for split in (q.split, "all"):
                        runs.setdefault((q.kind, mode, split), []).append((ranked, [q.gold]))
    return {k: (evaluate(v).mrr, len(v)) for k, v in runs.items()}, built


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--langs", default="en,de,fr,es,ja,zh")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--model-dir", type=Path, default=None)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    config, eng_mod, search = _import_engine()
    from rewind.models.multilingual import open_embedder

    cache = Path(tempfile.gettempdir()) / "rewind-bench-models"
    t_all = time.perf_counter()
    load0 = report.load_average()
    langs = args.langs.split(",")
    sets = {lang: lang_devsets.load(lang) for lang in langs}
    results: dict[tuple[str, str], tuple[dict, dict]] = {}
    for model in args.models.split(","):
        md = model_dir_for(config, model, args.model_dir, cache)
        settings = config.Settings(default_embedding_model=model,
                                   max_pages_per_domain=config.Settings().max_limit)
        embedder = open_embedder(settings, md)
        for lang in langs:
            scores, built = run_lang(eng_mod, search, settings, embedder, md, sets[lang])
            results[(model, lang)] = (scores, built)
            print(f"{model} {lang}: {built['passages']} passages in {built['seconds']:.0f} s; "
                  + ", ".join(f"{k}/{m} {scores[(k, m, 'held-out')][0]:.3f}"
                              for k in KINDS for m in MODES
                              if (k, m, "held-out") in scores), flush=True)
    body = render(results, sets, args, time.perf_counter() - t_all, load0)
    if not args.no_write:
        print(f"wrote {report.update_section('multilingual', body)}")
    else:
        print(body)
    return 0


def render(results, sets, args, took_s: float, load0: float) -> str:
    models = args.models.split(",")
    langs = args.langs.split(",")
    lines = [
        "## Search in every language (bench/quality/multilingual.py)", "",
        f"{report.today()} · {report.machine()} · load average {load0:.1f} at the start, "
        f"{report.load_average():.1f} at the end · {took_s:.0f} s in all", "",
        "Development sets from the Debian Reference 2.100 in English and six translations "
        "(bench/common/lang_devsets.py): a page is a section's own text without its heading, one "
        "store per language; queries are the section headings in the pages' language "
        "(native) and the English originals of the same headings (English), plus known-item "
        "queries (three of a page's rarest terms). Headings are short topic phrases, not "
        "questions: harder than FAQ questions for the meaning-based modes. Chapters 1-6 are "
        "the dev split, 7-12 and the appendix held out; nothing was tuned on either. The "
        "engine's defaults, per-domain cap lifted; pages carry no declared language (the "
        "detector decides, as for a page whose `lang` is missing).", "",
        "Sets: " + "; ".join(f"{lang}: {sets[lang].note}" for lang in langs), "",
        "### Held-out chapters, MRR@10", "",
    ]
    for split in ("held-out", "dev"):
        if split == "dev":
            lines += ["### Dev chapters, MRR@10", ""]
        header = ["language", "queries", "model"] + [f"{m}" for m in MODES]
        rows = []
        for lang in langs:
            for kind in KINDS:
                if lang == "en" and kind == "english":
                    continue
                for model in models:
                    scores = results[(model, lang)][0]
                    if (kind, "keyword", split) not in scores:
                        continue
                    n = scores[(kind, "keyword", split)][1]
                    rows.append([lang, f"{kind} ({n})", model] + [
                        f"{scores[(kind, m, split)][0]:.3f}" for m in MODES])
        lines += [report.table(header, rows), ""]
    lines += ["### Stores", ""]
    rows = []
    for (model, lang), (_s, built) in results.items():
        mix = ", ".join(f"{k} {v}" for k, v in built["mix"].items())
        rows.append([lang, model, built["pages"], built["passages"],
                     f"{built['seconds']:.0f}", f"{built['passages'] / built['seconds']:.1f}",
                     mix])
    lines += [report.table(["language", "model", "pages", "passages", "build s",
                            "passages/s", "detected languages (pages)"], rows), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
