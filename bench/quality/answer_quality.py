"""Answer quality as a person reads it: does the answer cite the right page, say what the
page's answer says, refuse what nothing answers, and say only what its pages say?

Job: per source of the development sets (bench/common/devsets.py; tune and held-out kept
apart), build the stores as bench/quality/relevance.py does (its `ingest`, `fold_store`,
`ask_record`: the full store, and a store without each fold asked of), then ask
`Answerer.ask` on --ask answerable questions spread over the set and on their unanswerable
counterparts, with the default LLM ("llm") and extractively ("extractive", the reader
alone). Per source split and path it reports (answer_audit.py):
- answered citing the gold page: the gold url among the sources the shown sentences cite;
- unanswerable refused: outcome not "answer";
- answer recall: the share of the gold answer's key words (content words of the gold
  page's first 2 sentences, less the question's) in the shown answer; the share of
  answered questions with recall >= 0.5, and the mean;
- audit: shown sentences whose content words (less the question's) are >= 90% words of the
  FULL stored text of the page they cite (not the passage; not the checker); every shown
  sentence goes to build/answer-audit/shown.jsonl with its page, to label 50 by hand;
- path: shown sentences with status "quoted" are the reader's, the others the model's;
  answers reader-only, model-only or both.
Writes the `answer-quality` section of docs/benchmarks.md (command, commit, date, load).
Never: tune on held-out figures, touch the user's data directory, or change settings
beyond relevance.py's (per-domain caps lifted).

Run (2 cores: ingest a few minutes a source, a few seconds an LLM answer):
    .venv/bin/python -m bench.quality.answer_quality [--sources python-faq,sqlite-faq]
        [--ask 12] [--no-llm] [--no-write]
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
from typing import Any

from bench.common import devsets, report
from bench.quality import answer_audit as aa
from bench.quality import relevance, run_facts
from bench.quality.answers import LLM, WARM_UP_QUESTION, _import_answer, spread
from bench.quality.checker_set import load_set
from bench.quality.quality import MODEL, _import_engine, model_dir_for, spec_dir

ROOT = Path(__file__).resolve().parents[2]
AUDIT_FILE = ROOT / "build" / "answer-audit" / "shown.jsonl"
SECTION = "answer-quality"
DEFAULT_SOURCES = ("python-faq", "django-faq", "debian-faq", "sqlite-faq", "git-faq", "wiki")


def record(res: Any, q: devsets.Question, mode: str, docs: dict[str, devsets.Doc],
           url_doc: dict[str, str], gold_url: str | None) -> dict[str, Any]:  # fmt: skip
    """relevance.ask_record's fields, and what a reader sees: the shown sentences with the
    pages they cite and their audit, the answer's recall and path."""
    out = relevance.ask_record(res, q, gold_url, mode)
    shown = aa.shown(res.citations) if res.supported else []
    sentences = []
    cited_all: list[str] = []
    for c in shown:
        urls = aa.cited_urls(c, res.sources)
        cited_all += [u for u in urls if u not in cited_all]
        ids = [url_doc.get(u) for u in urls]
        page = "\n".join(f"{docs[i].title}\n{docs[i].text}" for i in ids if i in docs)
        a = aa.audit(c["sentence"], page, q.question)
        sentences.append({"sentence": aa.plain(c["sentence"]), "status": c["status"],
                          "urls": urls, "docs": ids, "audit_share": round(a.share, 3),
                          "audit_ok": a.ok, "missing": list(a.missing),
                          "page": page})  # fmt: skip
    text = " ".join(s["sentence"] for s in sentences)
    gold = docs.get(q.gold_doc or "")
    keys = aa.key_words(gold.text, q.question) if gold else set()
    out.update(outcome=res.outcome, shown_sentences=sentences,
               cites_gold_shown=gold_url is not None and gold_url in cited_all,
               recall=aa.recall(text, keys) if res.supported else None,
               path=aa.path([c["status"] for c in shown]))  # fmt: skip
    return out


def run_source(ds: devsets.DevSet, ctx: dict[str, Any], n_ask: int, llm: bool) -> list[dict]:
    """The chosen questions of one source, asked of the stores they belong to."""
    engine_mod, answer_mod, base = ctx["engine"], ctx["answer"], ctx["settings"]
    embedder, emb_dir = ctx["embedder"], ctx["emb_dir"]
    answerable = [q for q in ds.asked() if q.answerable and q.store == "full"]
    chosen = {answerable[i].gold_doc for i in spread(len(answerable), n_ask)}
    asked = [q for q in ds.asked() if q.gold_doc in chosen]
    docs = {d.doc_id: d for d in ds.docs}
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix=f"rewind-answer-quality-{ds.name}-") as tmp:
        full = Path(tmp) / "full"
        t0 = time.perf_counter()
        urls, refused, n_pass = relevance.ingest(engine_mod, full, base, embedder, emb_dir,
                                                 ds.docs)  # fmt: skip
        log(f"{ds.name}: {len(urls)} docs, {n_pass} passages in {time.perf_counter() - t0:.0f} s")
        url_doc = {u: d for d, u in urls.items()}
        for store, data_dir in relevance.store_dirs(
                engine_mod, full, Path(tmp), ds, urls, base, embedder, emb_dir,
                sorted({q.store for q in asked})):
            qs = [q for q in asked if q.store == store and q.gold_doc in urls]
            with engine_mod.Rewind.open(data_dir, base, writer=False, embedder=embedder,
                                        model_dir=emb_dir) as eng:  # fmt: skip
                model = ctx.get("llm_obj", "auto") if llm else None
                answerer = answer_mod.Answerer(eng, model_dir=ctx["llm_dir"], model=model)
                for i, q in enumerate(qs):
                    modes = ["llm", "extractive"] if llm else ["extractive"]
                    for mode in modes if i % 2 == 0 else modes[::-1]:
                        if mode == "llm" and "warm" not in ctx:
                            ctx["warm"] = answerer.ask(WARM_UP_QUESTION)  # loads the model
                            if ctx["warm"].model is None:
                                p = answerer.llm_problem
                                raise SystemExit(f"no language model: {p and p.message}")
                            ctx["llm_obj"] = answerer.llm()
                        res = answerer.ask(q.question, extractive=mode == "extractive")
                        row = record(res, q, mode, docs, url_doc, urls.get(q.gold_doc or ""))
                        rows.append({"source": ds.name, "split": ds.split, "id": q.id,
                                     "question": q.question, "answerable": q.answerable,
                                     "store": store, **row})  # fmt: skip
            log(f"  {ds.name} {store}: {len(qs)} questions")
    return rows


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---- figures ------------------------------------------------------------------------------


def _share(rows: Sequence[dict], pred: Any) -> str:
    n = sum(1 for r in rows if pred(r))
    return f"{100 * n / len(rows):.0f}% ({n}/{len(rows)})" if rows else "-"


def quality_row(label: str, rows: Sequence[dict], mode: str) -> list[str]:
    mine = [r for r in rows if r["mode"] == mode]
    ans = [r for r in mine if r["answerable"]]
    una = [r for r in mine if not r["answerable"]]
    answered = [r for r in ans if r["outcome"] == "answer" and r["recall"] is not None]
    sents = [s for r in mine for s in r["shown_sentences"]]
    recalls = [r["recall"] for r in answered]
    paths = [r["path"] for r in mine if r["outcome"] == "answer"]
    first = sorted(r["first_words_ms"] for r in mine if r.get("first_words_ms") is not None)
    return [
        label, mode,
        _share(ans, lambda r: r["outcome"] == "answer" and r["cites_gold_shown"]),
        _share(una, lambda r: r["outcome"] != "answer"),
        _share(answered, lambda r: r["recall"] >= aa.RECALL_SHARE),
        f"{sum(recalls) / len(recalls):.2f}" if recalls else "-",
        _share(sents, lambda s: s["audit_ok"]),
        " / ".join(str(sum(p == k for p in paths)) for k in ("reader", "model", "both")),
        (f"{first[len(first) // 2]:.0f} / {first[min(len(first) - 1, int(0.95 * len(first)))]:.0f}"
         if first else "-"),
    ]  # fmt: skip


def render(rows: Sequence[dict], modes: Sequence[str], facts: str, args: Any,
           notes: Sequence[str], llm_name: str) -> str:  # fmt: skip
    groups = [(f"{s} ({split})", [r for r in rows if r["source"] == s])
              for s, split in dict.fromkeys((r["source"], r["split"]) for r in rows)]
    for split in ("tune", "held-out"):
        mine = [r for r in rows if r["split"] == split]
        if mine:
            groups.append((f"**all {split}**", mine))
    table = report.table(
        ["source (split)", "path", "answerable: answered citing the gold page",
         "unanswerable: refused", "answered: recall >= 0.5", "mean recall",
         "shown sentences the audit finds on their page", "answers: reader / model / both",
         "first checked words p50 / p95 (ms)"],
        [quality_row(label, g, m) for label, g in groups for m in modes
         if any(r["mode"] == m for r in g)])  # fmt: skip
    return "\n".join([
        "## Answer quality as a person reads it (bench/quality/answer_quality.py)", "",
        facts, "",
        f"`Answerer.ask` on {args.ask} answerable questions per source spread evenly, and "
        "the same questions asked of the store without their answer (devsets' folds); "
        f"'llm' is the default LLM ({llm_name}), 'extractive' the reader alone "
        f"(extractive=True); embedding {MODEL}. Answered citing the gold page: the gold "
        "url among the pages the shown sentences cite. Refused: outcome not \"answer\" "
        "(couldn't find, or the closest passage quoted). Recall: the share of the gold "
        "answer's key words (content words of the gold page's first "
        f"{aa.KEY_SENTENCES} sentences, less the question's) in the shown answer, over "
        "answered answerable questions. Audit (independent of the checker): a shown "
        f"sentence passes when {aa.AUDIT_SHARE:.0%} of its content words (less the "
        "question's) are in the full stored text of the page it cites; every shown "
        f"sentence is in {AUDIT_FILE.relative_to(ROOT)} for hand labelling. Path: "
        "sentences with status \"quoted\" are the reader's, the others the model's. "
        "Tune sources may be tuned on; held-out ones are only reported."
        + ("" if not notes else " " + " ".join(notes)), "",
        table,
    ])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--sources", default=",".join(DEFAULT_SOURCES),
                    help="comma-separated devsets sources")
    ap.add_argument("--ask", type=int, default=12, help="answerable questions per source "
                    "(each also asked in its unanswerable form)")
    ap.add_argument("--no-llm", action="store_true", help="the reader path only")
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--model-dir", type=Path, default=None, help="holds both models")
    ap.add_argument("--out", type=Path, default=report.BENCH_DOC)
    ap.add_argument("--no-write", action="store_true", help="only print the figures")
    args = ap.parse_args(argv)
    names = [s for s in args.sources.split(",") if s]
    for s in names:
        if s not in devsets.SPLITS:
            raise SystemExit(f"unknown source {s!r}; known: {', '.join(devsets.SPLITS)}")
    t0, load0 = time.perf_counter(), report.load_average()
    config, engine_mod, _search = _import_engine()
    from rewind.models import specs
    from rewind.models.embedder import OnnxEmbedder

    cache = args.cache or devsets.data.default_cache()
    base = config.Settings(default_embedding_model=MODEL, llm_model=LLM)
    base = dataclasses.replace(base, max_pages_per_domain=base.max_limit,
                               answer_pages_per_domain=base.max_limit)  # fmt: skip
    emb_dir = model_dir_for(config, MODEL, args.model_dir, cache)
    ctx: dict[str, Any] = {
        "engine": engine_mod, "answer": _import_answer(), "settings": base, "emb_dir": emb_dir,
        "llm_dir": spec_dir(config, specs.llm_spec(LLM), args.model_dir, cache),
        "embedder": OnnxEmbedder(specs.embedding_spec(MODEL), emb_dir,
                                 dataclasses.replace(base, query_cache_size=0))}  # fmt: skip
    unchecked: list[str] = []
    rows: list[dict] = []
    for name in names:
        rows += run_source(load_set(name, args.cache, unchecked), ctx, args.ask,
                           not args.no_llm)  # fmt: skip
    load1 = report.load_average()
    if "llm_obj" in ctx:
        ctx["llm_obj"].close()
    AUDIT_FILE.parent.mkdir(parents=True, exist_ok=True)
    with AUDIT_FILE.open("w", encoding="utf-8") as f:
        for r in rows:
            for s in r["shown_sentences"]:  # "label": for the hand labelling
                f.write(json.dumps({"source": r["source"], "split": r["split"], "id": r["id"],
                                    "mode": r["mode"], "question": r["question"], **s,
                                    "label": None}, ensure_ascii=False) + "\n")
    log(f"wrote {AUDIT_FILE}")
    notes = [f"Read although their files differ from bench/sets/checksums.json (a rebuilt "
             f"Debian doc package): {', '.join(sorted(set(unchecked)))}."] if unchecked else []
    modes = ["extractive"] if args.no_llm else ["llm", "extractive"]
    llm_name = ctx["warm"].model if "warm" in ctx else "(not run)"
    facts = run_facts.line("bench.quality.answer_quality", argv, time.perf_counter() - t0,
                           (load0, load1))  # fmt: skip
    body = render(rows, modes, facts, args, notes, llm_name)
    print(body)
    if not args.no_write:
        log(f"wrote {report.update_section(SECTION, body, args.out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
