"""When should the reader's quote be shown? The relevance gate's probability and the
reader's own score, against whether the quote cites the page that holds the answer.

Job: per development source (bench/common/devsets.py; tune and held-out apart), build the
full store and one store per fold (bench/quality/relevance.py's `ingest`/`fold_store`),
then for every answerable question (full store) and its unanswerable form (the store
without its answer): retrieve as an ask does (answers/context.py), pack the reader's
passages and run the reader (answers/extractive.py), recording the gate's probability `p`,
the best picked sentence's score, whether the quote cites the gold page, and its recall of
the gold answer's key words at several quote sizes. Then sweep two
rules — quote when p >= t; quote when p >= t or (p >= t_low and score >= s) — and print,
per split, the share of answerable questions answered citing the gold page and of
unanswerable ones refused, with each rule's settings. Rules are chosen on tune and read on
held-out. Rows go to --rows (JSON lines) for further looks.
Never: tune on held-out figures, or write outside build/ and its temporary folders.

Run (about 10 minutes on 2 cores, most of it ingest):
    .venv/bin/python -m bench.labs.reader_gate [--sources python-faq,...] [--rows FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.quality import answer_audit as aa
from bench.quality import relevance
from bench.quality.answer_quality import DEFAULT_SOURCES
from bench.quality.checker_set import load_set
from bench.quality.quality import MODEL, _import_engine, model_dir_for

ROOT = Path(__file__).resolve().parents[2]


# How many sentences the reader quotes: (at most, of them from one page at most)
SIZES = ((3, 2), (4, 2), (4, 3), (5, 3))


def reading(eng: Any, question: str, settings: Any, gold_keys: set[str]
            ) -> tuple[float | None, float, list[str], dict[str, float | None]]:
    """(gate probability, best quote score, urls the quote cites, the quote's recall of the
    gold answer's key words for each of SIZES) for one question."""
    from rewind.answers import extractive
    from rewind.answers.citations import Meaning
    from rewind.answers.context import retrieve
    from rewind.answers.llm import EmbedderTokenizer
    from rewind.answers.packing import pack

    found = retrieve(eng, question, settings, k=settings.answer_top_k)
    emb = eng.embedder()
    pool = pack(found.reading or found.evidence, settings.extract_token_budget,
                EmbedderTokenizer(emb), question, settings)
    picked = extractive.read(question, pool.sources, Meaning.of(emb),
                             found.query_vector, settings)
    url = {s.n: s.url for s in pool.sources}
    recalls: dict[str, float | None] = {}
    for most, per_page in SIZES:
        quote = extractive.quoted(extractive.read(
            question, pool.sources, Meaning.of(emb), found.query_vector, settings,
            max_sentences=most, per_source_max=per_page))
        recalls[f"{most}/{per_page}"] = aa.recall(" ".join(t for t, _n, _p in quote),
                                                  gold_keys) if gold_keys else None
    return (found.answerable, max((c.score for c in picked), default=0.0),
            sorted({url[c.source] for c in picked}), recalls)


def run_source(name: str, settings: Any, engine_mod: Any, embedder: Any, emb_dir: Path,
               unchecked: list[str]) -> list[dict]:  # fmt: skip
    ds = load_set(name, None, unchecked)
    docs = {d.doc_id: d for d in ds.docs}
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix=f"rewind-reader-gate-{name}-") as tmp:
        full = Path(tmp) / "full"
        urls, _refused, _n = relevance.ingest(engine_mod, full, settings, embedder, emb_dir,
                                              ds.docs)  # fmt: skip
        asked = [q for q in ds.asked() if q.gold_doc in urls or not q.answerable]
        for store, data_dir in relevance.store_dirs(
                engine_mod, full, Path(tmp), ds, urls, settings, embedder, emb_dir,
                sorted({q.store for q in asked})):
            with engine_mod.Rewind.open(data_dir, settings, writer=False, embedder=embedder,
                                        model_dir=emb_dir) as eng:  # fmt: skip
                for q in (q for q in asked if q.store == store):
                    doc = docs.get(q.gold_doc or "")
                    keys = aa.key_words(doc.text, q.question) if doc and q.answerable else set()
                    p, score, cited, recalls = reading(eng, q.question, settings, keys)
                    gold = urls.get(q.gold_doc or "")
                    rows.append({"source": name, "split": ds.split, "id": q.id,
                                 "answerable": q.answerable, "p": p, "score": score,
                                 "quotes": bool(cited), "gold": gold in cited if gold else False,
                                 "recall": recalls})
        print(f"{name}: {len(rows)} questions", file=sys.stderr, flush=True)
    return rows


def rates(rows: Sequence[dict], shown: Any) -> tuple[float, float]:
    """(answerable answered citing the gold page, unanswerable refused) under a rule."""
    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"]]
    right = sum(1 for r in ans if r["quotes"] and shown(r) and r["gold"])
    refused = sum(1 for r in una if not (r["quotes"] and shown(r)))
    return right / max(1, len(ans)), refused / max(1, len(una))


def sweep(rows: Sequence[dict]) -> None:
    rules: list[tuple[str, Any]] = []
    for t in (0.45, 0.5, 0.55, 0.6, 0.65, 0.6741):
        rules.append((f"p >= {t}", lambda r, t=t: (r["p"] or 0) >= t))
    for lo in (0.3, 0.4, 0.5):
        for s in (0.45, 0.5, 0.55, 0.6, 0.65):
            rules.append((f"p >= 0.6741 or (p >= {lo} and score >= {s})",
                          lambda r, lo=lo, s=s: (r["p"] or 0) >= 0.6741
                          or ((r["p"] or 0) >= lo and r["score"] >= s)))
    print("| rule | tune: answered citing gold | tune: refused | held-out: answered citing "
          "gold | held-out: refused |")
    print("|:---|---:|---:|---:|---:|")
    for label, rule in rules:
        cells = []
        for split in ("tune", "held-out"):
            mine = [r for r in rows if r["split"] == split]
            right, refused = rates(mine, rule)
            cells += [f"{right:.0%}", f"{refused:.0%}"]
        print(f"| {label} | " + " | ".join(cells) + " |")


def recall_table(rows: Sequence[dict], cut: float = 0.6741) -> None:
    """Per reader size: of the answerable questions answered citing the gold page at the
    gate's `extract` cut, the share whose quote recalls >= 0.5 of the gold's key words."""
    print("\n| quote size (sentences / of one page) | tune: recall >= 0.5 | held-out: "
          "recall >= 0.5 |")
    print("|:---|---:|---:|")
    for most, per_page in SIZES:
        key = f"{most}/{per_page}"
        cells = []
        for split in ("tune", "held-out"):
            right = [r for r in rows if r["split"] == split and r["answerable"] and r["gold"]
                     and (r["p"] or 0) >= cut and r["recall"].get(key) is not None]
            n = sum(r["recall"][key] >= aa.RECALL_SHARE for r in right)
            cells.append(f"{n / max(1, len(right)):.0%} ({n}/{len(right)})")
        print(f"| {key} | " + " | ".join(cells) + " |")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--sources", default=",".join(DEFAULT_SOURCES))
    ap.add_argument("--rows", type=Path, default=ROOT / "build" / "reader-gate.jsonl")
    ap.add_argument("--from-rows", action="store_true", help="sweep the rows already there")
    args = ap.parse_args(argv)
    if args.from_rows:
        rows = [json.loads(line) for line in args.rows.read_text().splitlines()]
        sweep(rows)
        recall_table(rows)
        return 0
    config, engine_mod, _search = _import_engine()
    from rewind.models import specs
    from rewind.models.embedder import OnnxEmbedder

    settings = config.Settings(default_embedding_model=MODEL)
    settings = dataclasses.replace(settings, max_pages_per_domain=settings.max_limit,
                                   answer_pages_per_domain=settings.max_limit)  # fmt: skip
    emb_dir = model_dir_for(config, MODEL, None, None)
    embedder = OnnxEmbedder(specs.embedding_spec(MODEL), emb_dir,
                            dataclasses.replace(settings, query_cache_size=0))
    unchecked: list[str] = []
    rows: list[dict] = []
    for name in [s for s in args.sources.split(",") if s]:
        rows += run_source(name, settings, engine_mod, embedder, emb_dir, unchecked)
    args.rows.parent.mkdir(parents=True, exist_ok=True)
    args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows))
    sweep(rows)
    recall_table(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
