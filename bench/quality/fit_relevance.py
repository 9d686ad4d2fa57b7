"""Fit the relevance gate (host/rewind/search/relevance.py) on the tune sources, report it on
the held-out ones, and write its models and thresholds to relevance.json.

For every development set (bench/common/devsets.py) a store is built with the real engine (the
full corpus, and one store per fold without that fold's answers: their neighbours stay),
every question and known-item query is searched there, and relevance.read gives its signals:
one row per query (answerable or not) and one per result page (the gold page or not).
Two logistic models are fitted on the TUNE sources only (logistic.fit); thresholds are chosen
there for stated targets (below), then everything is measured on each source, held-out ones
marked. Stores are cached under the bench cache (keyed by source and model).

Targets the thresholds are chosen for (on the tune sets):
- fold: keep at least FOLD_KEEP of the gold pages a search shows (recall of relevant hits);
- refuse: keep at least REFUSE_KEEP of the answerable questions (the model then decides);
- extract: let at most EXTRACT_FALSE of the unanswerable questions through to an extract;
- closest: show the closest passage (answers/closest.py) for at least CLOSEST_KEEP of the
  tune questions whose closest passage came from the gold page. That needs what ask did,
  so it is chosen from bench/quality/relevance.py's rows (`--closest-from`, its signals file),
  and a full refit keeps the value it finds.

    python -m bench.quality.fit_relevance [--no-write] [--sources a,b]
    python -m bench.quality.fit_relevance --closest-from build/devsets-signals.jsonl [--no-write]
Never: look at held-out rows while fitting or choosing a threshold.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rewind import logistic
from rewind.config import Settings
from rewind.models import specs
from rewind.models.embedder import OnnxEmbedder
from rewind.profile import engine
from rewind.profile.engine import Rewind
from rewind.search import PassageQuery, SearchQuery, relevance

from bench.common import data, devsets, report
from bench.quality import relevance as relevance_run

ROOT = Path(__file__).resolve().parents[2]

MODEL = "all-minilm-l6-v2-int8"
LIMIT = 10
FOLD_KEEP = 0.97
REFUSE_KEEP = 0.95
EXTRACT_FALSE = 0.10
CLOSEST_KEEP = 0.90
OUT = ROOT / "host" / "rewind" / "search" / "relevance.json"


def build(ds: devsets.DevSet, cache: Path, settings: Settings, embedder: Any,
          model_dir: Path) -> tuple[Path, dict[str, str]]:
    """The full store (cached) and doc id -> stored url."""
    folder = cache / f"{ds.name}-{MODEL}"
    full = folder / "full"
    index = folder / "urls.json"
    if not index.exists():
        shutil.rmtree(folder, ignore_errors=True)
        urls, _refused, _n = relevance_run.ingest(engine, full, settings, embedder, model_dir,
                                                  ds.docs)
        index.write_text(json.dumps(urls))
    return full, json.loads(index.read_text())


def fold(full: Path, store: str, gone: Sequence[str], settings: Settings, embedder: Any,
         model_dir: Path) -> Path:
    dest = full.parent / store
    if not dest.exists():
        relevance_run.fold_store(engine, full, dest, settings, embedder, model_dir, gone)
    return dest


def rows_of(ds: devsets.DevSet, cache: Path, settings: Settings, embedder: Any,
            model_dir: Path) -> tuple[list[dict], list[dict]]:
    full, urls = build(ds, cache, settings, embedder, model_dir)
    doc_of = {u: d for d, u in urls.items()}
    queries, hits = [], []
    for store in ds.stores():
        path = full if store == "full" else fold(
            full, store, [urls[d] for d in ds.removed[store] if d in urls], settings,
            embedder, model_dir)
        with Rewind.open(path, settings, writer=False, embedder=embedder,
                         model_dir=model_dir) as eng:
            for q in ds.questions:
                if q.store != store or (q.gold_doc is not None and q.gold_doc not in urls):
                    continue
                results = eng.search(SearchQuery(q.question, limit=LIMIT)).results
                with eng.searcher() as s:
                    found = s.passages(PassageQuery(q.question))
                    best = {}
                    for h in found.hits:
                        best.setdefault(h.page_id, h)
                    shown = [best[r.page_id] for r in results if r.page_id in best]
                    reading = relevance.read(s, q.question, found, shown)
                base = {"source": ds.name, "split": ds.split, "id": q.id, "kind": q.kind,
                        "store": store}
                queries.append({**base, "answerable": int(q.answerable), **reading.query})
                for r, h in zip(results, shown, strict=False):
                    gold = q.answerable and doc_of.get(r.url) == q.gold_doc
                    hits.append({**base, "relevant": int(gold), **reading.hits[h.passage_id]})
    return queries, hits


def auc(scores: Sequence[float], labels: Sequence[int]) -> float:
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def closest_cut(rows: Sequence[dict]) -> tuple[float, int]:
    """The closest-passage threshold: the gate's probability above which CLOSEST_KEEP of the
    tune questions whose closest passage came from the gold page keep it (both ask modes of
    bench/quality/relevance.py's rows); and how many such questions it was chosen on."""
    ps = [r["signals"]["p_answerable"] for r in rows
          if r["split"] == "tune" and r["answerable"]
          for mode in ("llm", "extractive") if r.get(mode, {}).get("closest_gold")]
    return threshold_keeping(ps, CLOSEST_KEEP), len(ps)


CLOSEST_TABLE_CUTS = (0.30, 0.40, 0.45, 0.50, 0.55)  # other choices, for the report


def fit_closest(signals: Path, no_write: bool) -> int:
    """Choose the closest threshold from bench/quality/relevance.py's rows (a run made without one:
    every page near enough for the model showed its closest passage), report what it and
    other choices do on every source, and write both unless `no_write`."""
    rows = [json.loads(line) for line in signals.read_text().splitlines() if line.strip()]
    gauge = json.loads(OUT.read_text())
    made_with = {r[m].get("closest_cut") for r in rows for m in ("llm", "extractive") if m in r}
    if any(c is not None and c > gauge["refuse"] for c in made_with):
        raise SystemExit(f"{signals} was made with a closest threshold in place: choose it from "
                         "a run without one (relevance.json's closest at its refuse)")
    cut, n = closest_cut(rows)
    if not n:
        raise SystemExit(f"{signals}: no tune question got a closest passage from its gold "
                         "page (run bench/quality/relevance.py with the closest passage on)")
    cut = max(cut, gauge["refuse"])  # below "refuse" the gate says no: nothing is shown anyway
    text = render_closest(rows, cut, n, gauge["refuse"], signals)
    print(text)
    if not no_write:
        gauge["closest"] = round(cut, 4)
        gauge["closest_from"] = f"{n} tune asks of bench/quality/relevance.py ({report.today()})"
        gauge.setdefault("targets", {})["closest_keep"] = CLOSEST_KEEP
        OUT.write_text(json.dumps(gauge, indent=1) + "\n")
        report.update_section("closest-threshold", text)
    return 0


def render_closest(rows: Sequence[dict], cut: float, n: int, refuse: float,
                   signals: Path) -> str:
    def share(items: list, pred: Any) -> str:
        k = sum(1 for x in items if pred(x))
        return f"{k / len(items):.2f} ({k}/{len(items)})" if items else "-"

    cuts = [("none (every near page)", refuse)] + [
        (f"{c:g}" + (" (chosen)" if c == round(cut, 4) else ""), c)
        for c in sorted({*CLOSEST_TABLE_CUTS, round(cut, 4)})]
    table = []
    for split in ("tune", "held-out"):
        for mode in ("llm", "extractive"):
            asked = [(r, r[mode]) for r in rows if r["split"] == split and mode in r]
            ans = [(r["signals"]["p_answerable"], a) for r, a in asked if r["answerable"]]
            una = [(r["signals"]["p_answerable"], a) for r, a in asked if not r["answerable"]]
            for label, c in cuts:
                table.append([
                    f"{split}", mode, label,
                    share(ans, lambda x, c=c: x[1].get("closest_gold") and x[0] >= c),
                    share(una, lambda x: x[1]["could_not_find"] or x[1].get("closest")),
                    share(una, lambda x, c=c: x[1]["could_not_find"]
                          or (x[1].get("closest") and x[0] < c)),
                ])
    return "\n".join([
        "## The closest passage's threshold (bench/quality/fit_relevance.py --closest-from)", "",
        f"{report.today()} · from {signals.name}, the rows of a bench/quality/relevance.py run "
        "in which every page near enough for the model showed its closest passage "
        "(answers/closest.py). "
        f"Chosen on the tune sources: closest = {cut:.4f}, which keeps {CLOSEST_KEEP:.0%} of "
        f"the {n} tune asks (both modes) whose closest passage came from the gold page; below "
        "it the answer is \"couldn't find\" as before. Held-out sources are reported only. "
        "Each row re-reads the same run: a closest passage under the threshold would have been "
        "\"couldn't find\" (nothing else changes), so the rows compare like with like.", "",
        report.table(["split", "mode", "closest threshold",
                      "answerable: closest passage from gold",
                      "unanswerable: \"couldn't find\" without the closest passage",
                      "with it at this threshold"], table),
    ])


def threshold_keeping(scores: Sequence[float], share: float) -> float:
    """The highest cut that keeps at least `share` of `scores` (those >= the cut)."""
    s = sorted(scores, reverse=True)
    return s[max(0, min(len(s) - 1, int(share * len(s) + 0.999999) - 1))] if s else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=data.default_cache())
    ap.add_argument("--sources", default=",".join(devsets.SPLITS))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--rows", type=Path, default=None,
                    help="read the signal rows from this file if it exists, else save them there")
    ap.add_argument("--closest-from", type=Path, default=None, metavar="SIGNALS",
                    help="only choose the closest-passage threshold, from "
                    "bench/quality/relevance.py's rows (its --signals file)")
    args = ap.parse_args(argv)
    t0 = time.time()
    if args.closest_from:
        return fit_closest(args.closest_from, args.no_write)
    if args.rows and args.rows.exists():
        saved = json.loads(args.rows.read_text())
        return fit_and_report(saved["queries"], saved["hits"], args, t0)
    settings = Settings()
    model_dir = Path(__import__("rewind.config", fromlist=["x"]).model_dir())
    embedder = OnnxEmbedder(specs.embedding_spec(MODEL), model_dir, settings)
    cache = args.cache / "relevance-stores"
    qrows: list[dict] = []
    hrows: list[dict] = []
    for name in args.sources.split(","):
        ds = devsets.load(name, args.cache)
        q, h = rows_of(ds, cache, settings, embedder, model_dir)
        print(f"{name} ({ds.split}): {len(q)} queries, {len(h)} result rows", file=sys.stderr)
        qrows += q
        hrows += h
    if args.rows:
        args.rows.write_text(json.dumps({"queries": qrows, "hits": hrows}))
    return fit_and_report(qrows, hrows, args, t0)


def fit_and_report(qrows: list[dict], hrows: list[dict], args: Any, t0: float) -> int:
    tune_q = [r for r in qrows if r["split"] == "tune" and r["kind"] == "question"]
    tune_h = [r for r in hrows if r["split"] == "tune"]
    hit_model = logistic.fit(tune_h, [r["relevant"] for r in tune_h], relevance.HIT_FEATURES,
                             class_weight=True)
    ans_model = logistic.fit(tune_q, [r["answerable"] for r in tune_q],
                             relevance.QUERY_FEATURES, class_weight=True)
    for r in hrows:
        r["p"] = hit_model.probability(r)
    for r in qrows:
        r["p"] = ans_model.probability(r)
    fold_cut = threshold_keeping([r["p"] for r in tune_h if r["relevant"]], FOLD_KEEP)
    refuse_cut = threshold_keeping([r["p"] for r in tune_q if r["answerable"]], REFUSE_KEEP)
    extract_cut = threshold_keeping([r["p"] for r in tune_q if not r["answerable"]],
                                    EXTRACT_FALSE)
    extract_cut = max(extract_cut, refuse_cut)
    gauge = {"hit": hit_model.to_dict(), "answerable": ans_model.to_dict(),
             "fold": round(fold_cut, 4), "refuse": round(refuse_cut, 4),
             "extract": round(extract_cut, 4),
             "fitted_on": sorted({r["source"] for r in tune_q}),
             "targets": {"fold_keep": FOLD_KEEP, "refuse_keep": REFUSE_KEEP,
                         "extract_false": EXTRACT_FALSE}}
    if OUT.exists():  # chosen from ask outcomes (fit_closest), which this fit does not have
        old = json.loads(OUT.read_text())
        for key in ("closest", "closest_from"):
            if key in old:
                gauge[key] = old[key]
        if "closest_keep" in old.get("targets", {}):
            gauge["targets"]["closest_keep"] = old["targets"]["closest_keep"]
    text = render(qrows, hrows, gauge, time.time() - t0)
    print(text)
    if not args.no_write:
        OUT.write_text(json.dumps(gauge, indent=1) + "\n")
        report.update_section("relevance-gate", text)
    return 0


MEDIUM = specs.embedding_spec(MODEL).confidence.medium


def shown(hit: dict, gauge: dict) -> bool:
    """As search/pages.py decides: the model says relevant and a content word matched or the
    meaning is at least the model's "medium" match."""
    return hit["p"] >= gauge["fold"] and (hit["kw_share"] > 0 or hit["cos"] >= MEDIUM)


def _share(rows: list[dict], pred: Any) -> str:
    return f"{sum(1 for r in rows if pred(r)) / len(rows):.1%}" if rows else "-"


def render(qrows: list[dict], hrows: list[dict], gauge: dict, took: float) -> str:
    lines = [
        "## Relevance gate (bench/quality/fit_relevance.py)", "",
        f"{report.today()} · {report.machine()} · {MODEL} · {took:.0f} s", "",
        "Signals of every development-set query in its store (relevance.read), two logistic "
        "models fitted on the tune sources only "
        f"({', '.join(gauge['fitted_on'])}); thresholds chosen there: fold keeps "
        f"{FOLD_KEEP:.0%} of the gold pages shown (a result is also folded when neither a "
        "content word matched nor its cosine reached the model's medium match), refuse keeps "
        f"{REFUSE_KEEP:.0%} of the "
        f"answerable questions, extract lets at most {EXTRACT_FALSE:.0%} of the unanswerable "
        f"ones through. fold={gauge['fold']}, refuse={gauge['refuse']}, "
        f"extract={gauge['extract']}.", ""]
    rows = []
    for source in dict.fromkeys(r["source"] for r in qrows):
        q = [r for r in qrows if r["source"] == source and r["kind"] == "question"]
        h = [r for r in hrows if r["source"] == source]
        ans = [r for r in q if r["answerable"]]
        una = [r for r in q if not r["answerable"]]
        gold = [r for r in h if r["relevant"]]
        other = [r for r in h if not r["relevant"]]
        rows.append([
            source, q[0]["split"] if q else "-", len(ans), len(una),
            f"{auc([r['p'] for r in q], [r['answerable'] for r in q]):.3f}",
            _share(una, lambda r: r["p"] < gauge["refuse"]),
            _share(ans, lambda r: r["p"] >= gauge["refuse"]),
            _share(una, lambda r: r["p"] >= gauge["extract"]),
            f"{auc([r['p'] for r in h], [r['relevant'] for r in h]):.3f}",
            _share(gold, lambda r: shown(r, gauge)),
            _share(other, lambda r: not shown(r, gauge))])
    lines.append(report.table(
        ["source", "split", "answerable", "unanswerable", "AUC answerable",
         "unanswerable refused", "answerable kept", "unanswerable past extract",
         "AUC hit", "gold pages shown", "other pages folded"], rows))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
