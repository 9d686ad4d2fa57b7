"""How far can the relevance gate's "does the history answer this?" go with the models here?

The gate (host/rewind/search/relevance.py) decides from cheap retrieval signals. This probe
asks whether anything else within reach would separate answerable questions from their
unanswerable forms (the same question, its answer forgotten, its neighbours kept) better:
1. the gate as fitted (relevance.json), and the best it could do on each source with a
   threshold chosen on that very source (an oracle: the ceiling of its signals, not a
   setting): answerable questions kept when 10 % of the unanswerable ones get through, and
   unanswerable ones refused when 80 % of the answerable ones are kept (issue 11's goals);
2. sentence-level meaning: the best cosine between the question and a sentence of the
   first passages (in its page's title context, as answers/extractive.py scores them),
   alone and added to the gate's features (refitted on the tune sources only);
3. query likelihood (UPR, Sachan et al. 2022) with a GGUF language model: how much more
   likely the question is after a passage than without one (mean log-probability per
   question token), the best of the first 3 passages; --every N asks every Nth question.
AUC per source; tune sources are marked, held-out ones are only reported.

    python -m bench.labs.answerability [--sources a,b] [--gguf PATH] [--every 3] [--no-write]
Never: fit on a held-out source, or write anywhere but the cache and --out.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rewind import logistic
from rewind.answers.extractive import MAX_WORDS
from rewind.config import Settings, model_dir
from rewind.models import specs
from rewind.models.embedder import OnnxEmbedder
from rewind.profile.engine import Rewind
from rewind.search import PassageQuery, relevance
from rewind.text import content_words, sentences

from bench.common import data, devsets, report
from bench.quality.fit_relevance import MODEL, auc, build, fold

ROOT = Path(__file__).resolve().parents[2]

TOP = 3  # passages read per question
FALSE_SHARE = 0.10  # unanswerable questions let through (issue 11: couldn't find >= 90 %)
KEEP_SHARE = 0.80  # answerable questions kept (issue 11: answered >= 80 %)
PASSAGE_WORDS = 180  # a passage is cut to this for the language model


class QueryLikelihood:
    """Mean log-probability of a question's tokens after a prefix, with a GGUF model."""

    def __init__(self, path: Path) -> None:
        from llama_cpp import Llama

        self.name = f"{path.parent.name}/{path.name}"  # the model's folder names it
        self.llm = Llama(model_path=str(path), n_ctx=1024, n_threads=2, n_batch=512,
                         logits_all=True, verbose=False)  # fmt: skip

    def __call__(self, prefix: str, question: str) -> float:
        head = self.llm.tokenize(prefix.encode(), add_bos=True)
        asked = self.llm.tokenize((" " + question).encode(), add_bos=False)
        head = head[-(900 - len(asked)) :]
        tokens = head + asked
        self.llm.reset()
        self.llm.eval(tokens)
        logits = np.asarray(self.llm.scores[: len(tokens)], dtype=np.float64)
        rows = logits[len(head) - 1 : len(tokens) - 1]
        top = rows.max(axis=1, keepdims=True)
        logp = rows - top - np.log(np.exp(rows - top).sum(axis=1, keepdims=True))
        return float(np.mean(logp[np.arange(len(asked)), asked]))

    def gain(self, question: str, passages: Sequence[str]) -> float:
        alone = self("Question:", question)
        return max((self(f"Passage: {p}\n\nA question this passage answers:", question)
                    for p in passages), default=alone - 5.0) - alone  # fmt: skip


def rows_of(ds: devsets.DevSet, cache: Path, settings: Settings, embedder: Any,
            mdir: Path, ql: QueryLikelihood | None, every: int) -> list[dict]:  # fmt: skip
    full, urls = build(ds, cache, settings, embedder, mdir)
    gate = relevance.gauge()
    out: list[dict] = []
    n = 0
    for store in ds.stores():
        path = full if store == "full" else fold(
            full, store, [urls[d] for d in ds.removed[store] if d in urls], settings,
            embedder, mdir)  # fmt: skip
        with Rewind.open(path, settings, writer=False, embedder=embedder,
                         model_dir=mdir) as eng, eng.searcher() as s:  # fmt: skip
            for q in ds.questions:
                if (q.kind != "question" or q.store != store
                        or (q.gold_doc is not None and q.gold_doc not in urls)):  # fmt: skip
                    continue
                found = s.passages(PassageQuery(q.question))
                signals = dict(relevance.read(s, q.question, found, []).query)
                records = s.passage_records(h.passage_id for h in found.hits[:TOP])
                pages = s.pages({page for page, _ in records.values()})
                texts = []
                for h in found.hits[:TOP]:
                    if h.passage_id in records:
                        page_id, p = records[h.passage_id]
                        page = pages.get(page_id)
                        texts.append((page.title if page else "", p.text))
                said = [f"{t}: {x}" if t else x for t, p in texts for x in sentences(p)
                        if len(content_words(x)) >= settings.citation_min_words
                        and len(x.split()) <= MAX_WORDS]  # extractive.py's lengths
                qvec = found.query_vector
                signals["s_cos"] = (float(np.max(embedder.embed_documents(said) @ qvec))
                                    if said and qvec is not None else 0.0)  # fmt: skip
                row = {"source": ds.name, "split": ds.split, "answerable": int(q.answerable),
                       "p": gate.answerable.probability(signals), **signals}  # fmt: skip
                n += 1
                if ql is not None and n % every == 0:
                    cut = [(f"{t}\n" if t else "") + " ".join(p.split()[:PASSAGE_WORDS])
                           for t, p in texts]  # fmt: skip
                    row["ql_gain"] = ql.gain(q.question, cut)
                out.append(row)
    return out


def ceiling(rows: list[dict], key: str = "p") -> tuple[float, float]:
    """(answerable kept at FALSE_SHARE unanswerable let through, unanswerable refused at
    KEEP_SHARE answerable kept), each with the best threshold for these very rows."""
    pos = sorted((r[key] for r in rows if r["answerable"]), reverse=True)
    neg = sorted((r[key] for r in rows if not r["answerable"]), reverse=True)
    if not pos or not neg:
        return math.nan, math.nan
    let = int(FALSE_SHARE * len(neg))  # this many unanswerable may pass: cut above the next
    kept = sum(p > neg[let] for p in pos) / len(pos)
    cut = pos[max(0, math.ceil(KEEP_SHARE * len(pos)) - 1)]
    refused = sum(x < cut for x in neg) / len(neg)
    return kept, refused


def render(rows: list[dict], refit: logistic.Logistic, ql_name: str | None, every: int,
           took: float) -> str:  # fmt: skip
    def a(rs: list[dict], key: str) -> str:
        rs = [r for r in rs if key in r]
        return f"{auc([r[key] for r in rs], [r['answerable'] for r in rs]):.3f}" if rs else "-"

    table = []
    for source in dict.fromkeys(r["source"] for r in rows):
        rs = [r for r in rows if r["source"] == source]
        kept, refused = ceiling(rs)
        ql = [r for r in rs if "ql_gain" in r]
        table.append([source, rs[0]["split"], f"{sum(r['answerable'] for r in rs)} / "
                      f"{sum(not r['answerable'] for r in rs)}", a(rs, "p"),
                      f"{kept:.0%}", f"{refused:.0%}", a(rs, "s_cos"), a(rs, "p_refit"),
                      f"{a(ql, 'ql_gain')} ({len(ql)})" if ql else "-"])  # fmt: skip
    return "\n".join([
        "## How far answerability goes with these models (bench/labs/answerability.py)", "",
        f"{report.today()} · {report.machine()} · {MODEL}"
        + (f" · query likelihood with {ql_name} on 1 question in {every}" if ql_name else "")
        + f" · {took:.0f} s", "",
        "Each development-set question in its store (answerable: its answer stored; "
        "unanswerable: the same question, the answer forgotten, its neighbours kept). "
        "'gate AUC': the fitted gate's probability. 'at best' columns: the gate's signals "
        "with a threshold chosen on that very source (an oracle, so a ceiling): answerable "
        f"questions kept when {FALSE_SHARE:.0%} of the unanswerable get through, and "
        f"unanswerable refused when {KEEP_SHARE:.0%} of the answerable are kept. "
        "'sentence cosine': the best cosine of the question with a sentence of the first "
        f"{TOP} passages (title in context); 'gate + sentence': the gate's features and it, "
        "refitted on the tune sources. 'query likelihood': how much more likely the "
        "question is after the best of the first passages than alone (UPR).", "",
        report.table(["source", "split", "answerable / not", "gate AUC",
                      f"at best: kept at {FALSE_SHARE:.0%} false",
                      f"at best: refused at {KEEP_SHARE:.0%} kept", "sentence cosine AUC",
                      "gate + sentence AUC", "query likelihood AUC (n)"], table),
        "", "Refitted gate + sentence, weights of the standardised features: "
        + ", ".join(f"{f} {w:+.2f}" for f, w in zip(refit.features, refit.weights,
                                                     strict=True)) + ".",
    ])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=data.default_cache())
    ap.add_argument("--sources", default=",".join(devsets.SPLITS))
    ap.add_argument("--gguf", type=Path, default=None, help="a GGUF for query likelihood")
    ap.add_argument("--every", type=int, default=1, help="query likelihood on every Nth")
    ap.add_argument("--out", type=Path, default=report.BENCH_DOC)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.time()
    settings = Settings()
    mdir = Path(model_dir())
    embedder = OnnxEmbedder(specs.embedding_spec(MODEL), mdir, settings)
    ql = QueryLikelihood(args.gguf) if args.gguf else None
    rows: list[dict] = []
    for name in args.sources.split(","):
        ds = devsets.load(name, args.cache)
        rows += rows_of(ds, args.cache / "relevance-stores", settings, embedder, mdir, ql,
                        args.every)  # fmt: skip
        print(f"{name}: {len(rows)} questions so far", file=sys.stderr, flush=True)
    tune = [r for r in rows if r["split"] == "tune"]
    refit = logistic.fit(tune, [r["answerable"] for r in tune],
                         (*relevance.QUERY_FEATURES, "s_cos"), class_weight=True)  # fmt: skip
    for r in rows:
        r["p_refit"] = refit.probability(r)
    body = render(rows, refit, ql.name if ql else None, args.every, time.time() - t0)
    print(body)
    if not args.no_write:
        report.update_section("answerability", body, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
