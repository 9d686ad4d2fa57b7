"""Search and answers of the real engine on the development sets (bench/common/devsets.py).

Job: per source, build the full store and one store per fold (a copy of the full store with
that fold's answers forgotten), then
1. search: every question and known-item query through `Rewind.search` (hybrid, the
   default), MRR@10 / nDCG@10 / R@10 of the answerable ones, and how often an unanswerable
   question's first hit is labelled "high";
2. ask: `Answerer.ask` (what `rewind ask --json` calls) with the default offline LLM and
   extractively (`extractive=True`), alternating, on --ask answerable questions spread over
   the set, their unanswerable counterparts, and the questions nothing answers: answered and
   citing the gold page, "couldn't find", the share of shown sentences the checker marks
   supported (and "ok": supported by the source the model cited), first token p50/p95;
3. signals: the relevance gate's signals (search/relevance.py) and its probability for
   every question, with its outcome, one JSON line each, into --signals (build/, ignored by
   git). (The gate itself is fitted by bench/quality/fit_relevance.py.)
Writes the `devsets` section of --out, tune and held-out sources marked. Held-out figures
are for reporting: never tune on them.

Never: touch the user's data directory, or change settings beyond the report (as in
bench/quality/answers.py: the per-domain caps are lifted, every source is one synthetic site).

Run (about 25 minutes on 2 idle cores with the LLM):
    .venv/bin/python -m bench.quality.relevance [--set NAME ...] [--ask 40] [--no-llm]
        [--setting FIELD=VALUE] [--signals build/devsets-signals.jsonl] [--no-write]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bench.common import devsets, report
from bench.common.metrics import evaluate
from bench.quality.answers import LLM, WARM_UP_QUESTION, _import_answer, spread
from bench.quality.quality import MODEL, _import_engine, model_dir_for, spec_dir

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 10
VISITED_DAYS_AGO = 7
SHOWN = ("ok", "corrected", "added", "quoted")  # statuses of the sentences an answer shows


def ingest(engine_mod: Any, data_dir: Path, settings: Any, embedder: Any, model_dir: Path,
           docs: Sequence[devsets.Doc]) -> tuple[dict[str, str], list[str], int]:  # fmt: skip
    """Ingest every doc; returns (doc id -> stored url, refused doc ids, passages)."""
    urls: dict[str, str] = {}
    refused: list[str] = []
    passages = 0
    meta = {"visited_at": time.time() - VISITED_DAYS_AGO * 86400}
    with engine_mod.Rewind.open(data_dir, settings, writer=True, embedder=embedder,
                                model_dir=model_dir) as eng:  # fmt: skip
        for d in docs:
            try:
                res = eng.ingest(d.url, d.text, {**meta, "title": d.title})
            except Exception:  # RewindError: too few words; the doc is left out, and said so
                refused.append(d.doc_id)
                continue
            urls[d.doc_id] = res.url
            passages += res.passages
    return urls, refused, passages


def fold_store(engine_mod: Any, full: Path, dest: Path, settings: Any, embedder: Any,
               model_dir: Path, gone: Sequence[str]) -> None:  # fmt: skip
    """A copy of the full store without the stored urls `gone` (neighbours stay)."""
    shutil.copytree(full, dest)
    with engine_mod.Rewind.open(dest, settings, writer=True, embedder=embedder,
                                model_dir=model_dir) as eng:  # fmt: skip
        for url in gone:
            if not eng.forget_url(url):
                raise SystemExit(f"{dest.name}: could not forget {url}")


def store_dirs(engine_mod: Any, full: Path, tmp: Path, ds: devsets.DevSet,
               urls: dict[str, str], settings: Any, embedder: Any, model_dir: Path,
               stores: Sequence[str]) -> Iterator[tuple[str, Path]]:  # fmt: skip
    """Each of `stores` as a data folder: the full store, or a copy of it without that
    fold's answers (made when it is reached)."""
    for store in stores:
        if store == "full":
            yield store, full
            continue
        dest = tmp / store
        fold_store(engine_mod, full, dest, settings, embedder, model_dir,
                   [urls[d] for d in ds.removed[store] if d in urls])
        yield store, dest


def gate_signals(eng: Any, question: str) -> dict[str, float]:
    """The relevance gate's signals of `question` and its probability that it is answered."""
    from rewind.search import PassageQuery, relevance

    with eng.searcher() as s:
        found = s.passages(PassageQuery(question))
        values = relevance.read(s, question, found, []).query
    return {**values, "p_answerable": relevance.gauge().answerable.probability(values)}


def _closest_cut() -> float:
    from rewind.search import relevance

    return relevance.gauge().closest


def ask_record(res: Any, q: devsets.Question, gold_url: str | None, kind: str
               ) -> dict[str, Any]:  # fmt: skip
    from rewind.answers.prompt import COULD_NOT_FIND

    by_n = {s["n"]: s["url"] for s in res.sources}
    cited: list[str] = []
    if res.supported:
        for c in res.citations:
            if c["status"] in SHOWN:
                cited += [by_n[n] for n in c["sources"] if n in by_n and by_n[n] not in cited]
    shown = [c for c in res.citations if c["status"] in SHOWN] if res.supported else []
    near = res.closest or {}
    return {
        "mode": kind,
        "answered": bool(res.supported),
        "could_not_find": res.answer.startswith(COULD_NOT_FIND),
        # The closest passage, quoted (answers/closest.py): shown where "couldn't find"
        # was before, so "before" is could_not_find or closest, from the same run.
        "closest": res.outcome == "closest",
        "closest_gold": gold_url is not None and near.get("url") == gold_url,
        "closest_cut": _closest_cut(),  # the gate's threshold for it in this run
        "cites_gold": gold_url is not None and gold_url in cited,
        "gold_in_sources": gold_url is not None and gold_url in by_n.values(),
        "shown": len(shown),
        "shown_supported": sum(c["status"] != "no_claim" for c in shown),
        "shown_ok": sum(c["status"] == "ok" for c in shown),
        "first_token_ms": res.timings.get("first_token_ms"),
        "first_words_ms": res.timings.get("first_words_ms"),
        "total_ms": res.timings.get("total_ms"),
        "answer": res.answer,
    }


def run_source(ds: devsets.DevSet, ctx: dict[str, Any], n_ask: int, llm: bool,
               progress: Any) -> dict[str, Any]:  # fmt: skip
    engine_mod, answer_mod = ctx["engine"], ctx["answer"]
    base, embedder, emb_dir, llm_dir = ctx["settings"], ctx["embedder"], ctx["emb_dir"], ctx[
        "llm_dir"]
    out: dict[str, Any] = {"name": ds.name, "split": ds.split, "note": ds.note, "rows": []}
    answerable = [q for q in ds.asked() if q.answerable and q.store == "full"]
    chosen = {answerable[i].gold_doc for i in spread(len(answerable), n_ask)} if n_ask else set()
    with tempfile.TemporaryDirectory(prefix=f"rewind-devsets-{ds.name}-") as tmp:
        full = Path(tmp) / "full"
        t0 = time.perf_counter()
        urls, refused, n_passages = ingest(engine_mod, full, base, embedder, emb_dir, ds.docs)
        out.update(docs=len(urls), passages=n_passages, refused=refused,
                   ingest_s=time.perf_counter() - t0)
        progress(f"{ds.name}: {len(urls)} docs, {n_passages} passages in {out['ingest_s']:.0f} s")
        url_doc = {u: d for d, u in urls.items()}
        for store, data_dir in store_dirs(engine_mod, full, Path(tmp), ds, urls, base,
                                          embedder, emb_dir, ds.stores()):  # fmt: skip
            qs = [q for q in ds.questions if q.store == store
                  and (q.gold_doc is None or q.gold_doc in urls)]  # fmt: skip
            with engine_mod.Rewind.open(data_dir, base, writer=False, embedder=embedder,
                                        model_dir=emb_dir) as eng:  # fmt: skip
                # One model for every store: loaded by the first ask, never closed here.
                model = ctx.get("llm_obj", "auto") if llm else None
                answerer = answer_mod.Answerer(eng, model_dir=llm_dir, model=model)
                for i, q in enumerate(qs):
                    resp = eng.search(ctx["search"].SearchQuery(q.question, limit=LIMIT))
                    ranked = [url_doc.get(h.url, f"?{h.url}") for h in resp.results]
                    row: dict[str, Any] = {
                        "source": ds.name, "split": ds.split, "id": q.id, "kind": q.kind,
                        "question": q.question, "answerable": q.answerable, "store": store,
                        "gold": q.gold_doc, "ranked": ranked,
                        "gold_rank": (ranked.index(q.gold_doc) + 1
                                      if q.gold_doc in ranked else 0) if q.answerable else None,
                        "top_confidence": resp.results[0].confidence if resp.results else None,
                        "signals": gate_signals(eng, q.question),
                    }  # fmt: skip
                    if q.kind == "question" and (q.gold_doc in chosen or q.gold_doc is None):
                        gold_url = urls.get(q.gold_doc) if q.gold_doc else None
                        modes = ["llm", "extractive"] if llm else ["extractive"]
                        for mode in modes if i % 2 == 0 else modes[::-1]:
                            if mode == "llm" and "warm" not in ctx:
                                ctx["warm"] = answerer.ask(WARM_UP_QUESTION)  # loads it
                                if ctx["warm"].model is None:
                                    p = answerer.llm_problem
                                    raise SystemExit(f"no language model: {p and p.message}")
                                ctx["llm_obj"] = answerer.llm()
                            res = answerer.ask(q.question, extractive=mode == "extractive")
                            row[mode] = ask_record(res, q, gold_url, mode)
                    out["rows"].append(row)
            progress(f"  {ds.name} {store}: {len(qs)} questions")
    return out


# ----------------------------------------------------------------------------- reporting


def _share(rows: list[dict], pred: Any) -> str:
    n = sum(1 for r in rows if pred(r))
    return f"{n / len(rows):.2f} ({n}/{len(rows)})" if rows else "-"


def search_row(label: str, rows: list[dict]) -> list[str]:
    def scores(kind: str) -> list[str]:
        rs = [r for r in rows if r["kind"] == kind and r["answerable"]]
        return evaluate([(r["ranked"], [r["gold"]]) for r in rs]).row() if rs else ["-"] * 3

    unans = [r for r in rows if r["kind"] == "question" and not r["answerable"]]
    n_q = sum(r["kind"] == "question" and r["answerable"] for r in rows)
    return [label, str(n_q), *scores("question"), *scores("known-item"),
            _share(unans, lambda r: r["top_confidence"] == "high")]  # fmt: skip


def ask_row(label: str, rows: list[dict], mode: str) -> list[str]:
    asked = [r for r in rows if mode in r]
    ans = [r[mode] for r in asked if r["answerable"]]
    una = [r[mode] for r in asked if not r["answerable"]]
    shown = sum(a["shown"] for a in ans + una)
    sup = sum(a["shown_supported"] for a in ans + una)
    ok = sum(a["shown_ok"] for a in ans + una)
    ft = [a["first_token_ms"] for a in ans + una if a["first_token_ms"] is not None]
    q = report.quantile
    return [
        label, mode,
        _share(ans, lambda a: a["answered"] and a["cites_gold"]),
        _share(ans, lambda a: a.get("closest_gold", False)),
        _share(ans, lambda a: a["gold_in_sources"]),
        _share(una, lambda a: a["could_not_find"] or a.get("closest", False)),
        _share(una, lambda a: a["could_not_find"]),
        f"{sup / shown:.2f} / {ok / shown:.2f} ({shown})" if shown else "-",
        f"{q(ft, 0.5):.0f} / {q(ft, 0.95):.0f}" if ft else "-",
    ]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--set", action="append", default=[], choices=devsets.names(),
                    help="a source (repeatable; default: all)")
    ap.add_argument("--ask", type=int, default=40, help="answerable questions asked per source"
                    " (with their unanswerable counterparts; 0: search only)")
    ap.add_argument("--no-llm", action="store_true", help="ask extractively only")
    ap.add_argument("--setting", action="append", default=[], metavar="FIELD=VALUE",
                    help="override a Settings field, to compare")
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--model-dir", type=Path, default=None, help="holds both models")
    ap.add_argument("--signals", type=Path, default=ROOT / "build" / "devsets-signals.jsonl")
    ap.add_argument("--out", type=Path, default=report.BENCH_DOC)
    ap.add_argument("--no-write", action="store_true", help="only print the figures")
    args = ap.parse_args(argv)

    def progress(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    config, engine_mod, search = _import_engine()
    answer_mod = _import_answer()
    from rewind.models import specs
    from rewind.models.embedder import OnnxEmbedder

    t_start = time.perf_counter()
    load_start = report.load_average()
    cache = args.cache or devsets.data.default_cache()
    emb_dir = model_dir_for(config, MODEL, args.model_dir, cache)
    llm_dir = spec_dir(config, specs.llm_spec(LLM), args.model_dir, cache)
    base = config.Settings(default_embedding_model=MODEL, llm_model=LLM)
    for item in args.setting:
        name, _, value = item.partition("=")
        kind = type(getattr(base, name))
        parsed = value.lower() in ("1", "true", "yes") if kind is bool else kind(value)
        base = dataclasses.replace(base, **{name: parsed})
    base = dataclasses.replace(base, max_pages_per_domain=base.max_limit,
                               answer_pages_per_domain=base.max_limit)  # fmt: skip
    embedder = OnnxEmbedder(specs.embedding_spec(MODEL), emb_dir,
                            dataclasses.replace(base, query_cache_size=0))  # fmt: skip
    ctx: dict[str, Any] = {"load": (load_start, 0.0), "engine": engine_mod,
                           "answer": answer_mod, "search": search, "settings": base,
                           "embedder": embedder, "emb_dir": emb_dir, "llm_dir": llm_dir}
    results = []
    for name in args.set or devsets.names():
        results.append(run_source(devsets.load(name, args.cache), ctx, args.ask,
                                  not args.no_llm, progress))  # fmt: skip

    ctx["load"] = (load_start, report.load_average())
    if "llm_obj" in ctx:
        ctx["llm_obj"].close()
    args.signals.parent.mkdir(parents=True, exist_ok=True)
    with args.signals.open("w", encoding="utf-8") as f:
        for res in results:
            for r in res["rows"]:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    progress(f"wrote {args.signals}")
    body = render(results, args, ctx, time.perf_counter() - t_start)
    print(body)
    if not args.no_write:
        progress(f"wrote {report.update_section('devsets', body, args.out)}")
    return 0


def render(results: list[dict], args: Any, ctx: dict, took_s: float) -> str:
    groups = [(f"{r['name']} ({r['split']})", r["rows"]) for r in results]
    for split in ("tune", "held-out"):
        rows = [x for r in results if r["split"] == split for x in r["rows"]]
        if rows and sum(r["split"] == split for r in results) > 1:
            groups.append((f"**all {split}**", rows))
    llm_name = ctx["warm"].model if "warm" in ctx else "(not run)"
    sources = "; ".join(
        f"{r['name']} ({r['split']}): {r['docs']} docs, {r['passages']} passages, {r['note']}"
        + (f", {len(r['refused'])} refused by the engine" if r["refused"] else "")
        for r in results)  # fmt: skip
    modes = ["llm", "extractive"] if not args.no_llm else ["extractive"]
    lines = [
        "## Development sets (bench/quality/relevance.py)",
        "",
        f"{report.today()} · {report.machine()} · embedding {MODEL} · LLM {llm_name} · "
        f"{took_s:.0f} s in all · load average (1 min) {ctx['load'][0]:.1f} at the start, "
        f"{ctx['load'][1]:.1f} at the end (other jobs share the machine: latency is not quiet)"
        + (f" · settings {', '.join(args.setting)}" if args.setting else ""),
        "",
        "Sources (bench/common/devsets.py): " + sources + ". Tune sources may be tuned on; "
        "held-out sources are only reported. Each answerable question is also asked of a "
        f"store without its answer ({devsets.FOLDS} folds, neighbours kept): that is its "
        "unanswerable form. Settings are the engine's defaults, per-domain caps lifted.",
        "",
        "### Search (hybrid, limit 10)",
        "",
        report.table(["source", "questions", "MRR@10", "nDCG@10", "R@10", "known-item MRR@10",
                      "nDCG@10", "R@10", "unanswerable: first hit 'high'"],
                     [search_row(label, rows) for label, rows in groups]),
        "",
        "### Ask",
        "",
        f"`Answerer.ask` on {args.ask} answerable questions per source spread evenly (all "
        "when fewer), the same questions in their unanswerable form, and (wiki) the "
        "questions nothing answers; LLM and extractive alternate. 'shown supported / ok': "
        "of the sentences shown in answers, the share the checker marks supported, and "
        "the share supported by the very source the model cited (no citation corrected "
        "or added). First token: warm model, query embedding included. 'Closest passage' "
        "(answers/closest.py): where no answer is backed but search found a page near the "
        "question, its best passage is quoted and cited instead of \"couldn't find\"; it is "
        "not counted as answered. '+ closest passage from gold': answerable questions that "
        "get the gold page's passage that way; 'before': \"couldn't find\" or a closest "
        "passage (every closest passage stands where \"couldn't find\" stood before), so "
        "before and after come from the same run.",
        "",
        report.table(["source", "mode", "answerable: answered, citing gold",
                      "+ closest passage from gold", "gold among sources",
                      "unanswerable: \"couldn't find\" before", "after (closest passage "
                      "shown instead: the rest)",
                      "shown supported / ok (n)", "first token p50 / p95 ms"],
                     [ask_row(label, rows, m) for label, rows in groups for m in modes
                      if any(m in r for r in rows)]),
    ]  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
