"""Re-embedding benchmark: the background job against the raw model, search while it runs,
long passages split or cut, and the Matryoshka trade-off, on the Python FAQ.

Job: build a store of the Python FAQ answers as the browser sends pages (passages of up to
`max_passage_words` words, so some run past MiniLM's 256-token window), embedded with
MiniLM at 384 dimensions, then measure, in one run:
- throughput: the job (profile/reembedding.py: batches, reads, one transaction per batch)
  re-embedding every passage for MiniLM@256 and back for @384, against the raw embedder on the same
  texts (the same pieces, in batches of the job's size): overhead = job time / raw time - 1;
- search latency: hybrid searches (the FAQ questions, in turn) idle, and while a job runs
  in a background thread that gives way while a search is in flight (as in the host);
- long passages: MRR@10 of the FAQ questions and of known-item queries with passages split
  at the window (models/pieces.py) against cut at the window (one piece: what the model did
  before), overall and on the queries whose answer has a passage over the window;
- Matryoshka: MRR@10 (semantic and hybrid) and bytes a passage at 384, 256 and 128
  dimensions (float16 vectors in the store; the 1-bit code and ids scanned in memory).
"Another model" is MiniLM at another dimension: the only embedding model to be had offline
(EmbeddingGemma cannot be downloaded here); for the store it is another vector space.
Writes the `reembed` section of docs/benchmarks.md.

Never: touch the user's data directory.

Run: .venv/bin/python -m bench.perf.reembed [--queries N]
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import data, report
from bench.common.metrics import evaluate

ROOT = Path(__file__).resolve().parents[2]
MODEL = "all-minilm-l6-v2-int8"
LIMIT = 10


def _rewind() -> Any:
    import rewind.profile.engine
    import rewind.profile.reembedding
    from rewind import config
    from rewind.capture.ingest import PageInput, PassageInput
    from rewind.models import pieces, specs
    from rewind.models.embedder import OnnxEmbedder
    from rewind.search import SearchQuery

    return dict(engine=rewind.profile.engine, reembedding=rewind.profile.reembedding, config=config,
                PageInput=PageInput, PassageInput=PassageInput, specs=specs, pieces=pieces,
                OnnxEmbedder=OnnxEmbedder, SearchQuery=SearchQuery)


def browser_passages(text: str, words: int, most: int) -> list[str]:
    """The answer in passages of at most `words` words, as the extension's chunker cuts."""
    w = text.split()
    return [" ".join(w[i:i + words]) for i in range(0, len(w), words)][:most]


def build(r: dict, data_dir: Path, settings: Any, emb: Any, pairs: Sequence[data.FaqPair]
          ) -> dict[str, str]:
    """Every answer as a browser page; returns url -> doc id."""
    url_doc = {}
    with r["engine"].Rewind.open(data_dir, settings, embedder=emb) as eng:
        for p in pairs:
            parts = browser_passages(p.answer_text, settings.max_passage_words,
                                     settings.max_passages_per_page)
            res = eng.index_page(r["PageInput"](
                url=p.url, title="", passages=[r["PassageInput"](t, i) for i, t in
                                               enumerate(parts)], source="ingest"))
            if res.status != "skipped":
                url_doc[res.url] = p.doc_id
    return url_doc


def mrr(eng: Any, r: dict, queries: Sequence[data.Query], url_doc: dict[str, str],
        mode: str) -> float:
    runs = []
    for q in queries:
        hits = eng.search(r["SearchQuery"](q.text, mode=mode, limit=LIMIT)).results
        runs.append(([url_doc.get(h.url, "?") for h in hits], [q.gold]))
    return evaluate(runs).mrr


def latencies(eng: Any, r: dict, queries: Sequence[data.Query], n: int,
              busy: threading.Event | None = None, until: threading.Event | None = None
              ) -> list[float]:
    out = []
    for i in range(n):
        if until is not None and until.is_set():
            break
        if busy is not None:
            busy.set()
        t0 = time.perf_counter()
        eng.search(r["SearchQuery"](queries[i % len(queries)].text, mode="hybrid",
                                    limit=LIMIT))
        out.append((time.perf_counter() - t0) * 1000)
        if busy is not None:
            busy.clear()
        time.sleep(0.05)  # a person types; searches do not come back to back
    return out


def raw_seconds(r: dict, emb: Any, texts: Sequence[str], batch: int) -> float:
    """The raw embedder on the same pieces the job embeds, in the job's batches."""
    t0 = time.perf_counter()
    for i in range(0, len(texts), batch):
        r["pieces"].embed_passages(emb, texts[i:i + batch])
    return time.perf_counter() - t0


def job_seconds(r: dict, eng: Any, target: str, embs: dict[int, Any]) -> float:
    """The job re-embedding everything for `target` (the old vectors deleted too), with an
    embedder loaded beforehand, as the raw runs have theirs."""
    job = r["reembedding"].Reembedder(
        eng, background=False, make_embedder=lambda mid: embs[int(mid.rpartition("@")[2])])
    t0 = time.perf_counter()
    job.start(target)
    job.run()
    took = time.perf_counter() - t0
    assert eng.model_id() == target, eng.model_id()
    return took


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=data.default_cache())
    ap.add_argument("--queries", type=int, default=150, help="searches per latency sample")
    ap.add_argument("--rounds", type=int, default=2,
                    help="raw-then-job pairs each way (384 -> 256, 256 -> 384)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    r = _rewind()
    t_start = time.perf_counter()
    load0 = report.load_average()
    config, specs = r["config"], r["specs"]
    spec = specs.embedding_spec(MODEL)
    model_dir = config.model_dir()
    base = dataclasses.replace(config.Settings(),
                               max_pages_per_domain=config.Settings().max_limit)
    embs = {d: r["OnnxEmbedder"](spec, model_dir, base, dim=d) for d in (384, 256, 128)}
    e384 = embs[384]
    pairs = data.faq_pairs(data.python_docs(args.cache))
    questions = data.question_queries(pairs)
    known = data.known_item_queries(pairs, n_terms=3, seed=0)

    with tempfile.TemporaryDirectory(prefix="rewind-reembed-") as tmp:
        # -- long passages: split (now) against cut (before), each on its own store
        cut_dir, data_dir = Path(tmp) / "cut", Path(tmp) / "data"
        real = r["engine"].embed_passages
        r["engine"].embed_passages = functools.partial(real, max_pieces=1)
        build(r, cut_dir, base, e384, pairs)
        r["engine"].embed_passages = real
        url_doc = build(r, data_dir, base, e384, pairs)
        eng = r["engine"].Rewind.open(data_dir, base, model_dir=model_dir)
        store = eng.reader()
        texts = [p.text for _i, (_pg, p) in sorted(store.passages_by_ids(store.passage_ids())
                                                     .items())]
        over = {i for i, t in enumerate(texts) if e384.count_tokens(t) > e384.max_tokens}
        long_pages = set()
        for _pid, (page_id, p) in store.passages_by_ids(store.passage_ids()).items():
            if e384.count_tokens(p.text) > e384.max_tokens:
                long_pages.add(store.pages_by_ids([page_id])[page_id].url)
        long_docs = {url_doc[u] for u in long_pages if u in url_doc}
        q_long = [q for q in questions if q.gold in long_docs]
        k_long = [q for q in known if q.gold in long_docs]
        long_rows = []
        with r["engine"].Rewind.open(cut_dir, base, writer=False, embedder=e384) as cut:
            for label, qs in (("FAQ questions", questions), ("known-item", known),
                              ("FAQ questions, answer has a long passage", q_long),
                              ("known-item, answer has a long passage", k_long)):
                if not qs:
                    continue
                for mode in ("semantic", "hybrid"):
                    long_rows.append([f"{label} ({len(qs)}), {mode}",
                                      f"{mrr(cut, r, qs, url_doc, mode):.3f}",
                                      f"{mrr(eng, r, qs, url_doc, mode):.3f}"])
        print("long passages done", file=sys.stderr)

        # -- Matryoshka at 384, idle latency
        mat = {}

        def quality(dim: int) -> None:
            vi = eng.vectors.index()
            mat[dim] = (mrr(eng, r, questions, url_doc, "semantic"),
                        mrr(eng, r, questions, url_doc, "hybrid"),
                        eng.reader().vector_bytes(eng.model_id()) / eng.reader().passage_count(),
                        vi.bytes_per_passage())

        quality(384)
        idle = latencies(eng, r, questions, args.queries)
        print("idle latency done", file=sys.stderr)

        # -- throughput: raw then job, alternately to 256 and back to 384
        split = [pc for t in texts for pc in r["pieces"].split(t, embs[256])[0]]
        pairs_tp: list[tuple[str, float, float]] = []
        for _ in range(args.rounds):
            for src, dim in ((384, 256), (256, 384)):
                raw = raw_seconds(r, embs[dim], texts, base.reembed_batch)
                job = job_seconds(r, eng, f"{MODEL}@{dim}", embs)
                pairs_tp.append((f"{src} -> {dim}", raw, job))
                if dim not in mat:
                    quality(dim)
                print(f"{src} -> {dim}: raw {raw:.1f} s, job {job:.1f} s", file=sys.stderr)
        job256 = statistics.median(j for label, _r, j in pairs_tp if label.endswith("256"))

        # -- search while a job runs (-> 128), the job giving way to each search
        searching, finished = threading.Event(), threading.Event()
        job = r["reembedding"].Reembedder(
            eng, busy=searching.is_set,
            make_embedder=lambda mid: embs[int(mid.rpartition("@")[2])])
        t0 = time.perf_counter()
        job.start(f"{MODEL}@128")
        waiter = threading.Thread(target=lambda: (job._thread.join(), finished.set()))
        waiter.start()
        during = latencies(eng, r, questions, 10**9, busy=searching, until=finished)
        waiter.join()
        job_busy_s = time.perf_counter() - t0
        assert eng.model_id() == f"{MODEL}@128", eng.model_id()
        quality(128)
        print("128 done", file=sys.stderr)
        eng.close()

    n = len(texts)
    total_s = time.perf_counter() - t_start
    rows_tp = [[label, f"{n / raw:.1f}", f"{n / job:.1f}", f"{100 * (job / raw - 1):+.1f} %"]
               for label, raw, job in pairs_tp]
    overhead = statistics.median(job / raw - 1 for _l, raw, job in pairs_tp)
    lat_rows = [
        ["idle", len(idle), f"{statistics.median(idle):.1f}",
         f"{report.quantile(idle, 0.95):.1f}"],
        ["while re-embedding", len(during), f"{statistics.median(during):.1f}",
         f"{report.quantile(during, 0.95):.1f}"],
    ]
    mat_rows = [[str(d), f"{s:.3f}", f"{h:.3f}", f"{b:.0f}", f"{c}"]
                for d, (s, h, b, c) in sorted(mat.items(), reverse=True)]
    body = "\n".join([
        "## Re-embedding (bench/perf/reembed.py)",
        "",
        f"{report.today()} · {report.machine()} · load average {load0:.1f} at the start · "
        f"{total_s:.0f} s in all",
        "",
        f"The Python FAQ's {len(pairs)} answers stored as the browser sends pages: {n} "
        f"passages of up to {base.max_passage_words} words, {len(over)} of them over "
        f"MiniLM's {e384.max_tokens}-token window ({len(split) - n} more pieces at 256 "
        "dimensions). \"Another model\" is MiniLM at another Matryoshka dimension: the only "
        "embedding model to be had offline (EmbeddingGemma cannot be downloaded here); for "
        "the store it is another vector space, re-embedded passage by passage.",
        "",
        "**Throughput**: the job (`profile/reembedding.py`: batches of "
        f"{base.reembed_batch}, each read from the store, embedded, written in one "
        "transaction with the job's record) against the raw embedder on the same texts in "
        "the same batches (passages a second; the same split into pieces; each job includes "
        "deleting the old model's vectors), raw then job, in turn each way:",
        "",
        report.table(["re-embedding", "raw model /s", "job /s", "overhead"], rows_tp),
        "",
        f"Median overhead {100 * overhead:+.1f} %. The machine was shared (load average "
        f"{load0:.1f} on 2 cores at the start): single pairs move by several points either "
        "way from one run to the next.",
        "",
        "**Search while it runs**: hybrid searches (the FAQ questions in turn, 50 ms apart) "
        "with nothing else running, and while a job re-embeds the store (256 -> 128) on a "
        "background thread that gives way while a search is in flight, as in the host "
        f"(the job took {job_busy_s:.0f} s with the searches, against {job256:.0f} s "
        "alone for 384 -> 256). Milliseconds:",
        "",
        report.table(["searches", "n", "median", "p95"], lat_rows),
        "",
        "**Long passages**: MRR@10 with each passage over the window cut at the window (one "
        "vector: what Rewind did before) and split into pieces embedded separately (the "
        "passage scores as its best piece), MiniLM@384; the last rows count only the "
        "queries whose answer has a passage over the window:",
        "",
        report.table(["queries, mode", "cut", "split"], long_rows),
        "",
        "**Matryoshka**: the FAQ questions' MRR@10 at each dimension (the same passages, "
        "re-embedded by the job), the bytes of the float16 vectors in the store a passage "
        "(a split passage has several), and the bytes a passage scanned in memory on every "
        "search (its 1-bit code and ids; index/derived/vectors.py):",
        "",
        report.table(["dimensions", "semantic MRR@10", "hybrid MRR@10", "stored B/passage",
                      "scanned B/passage"], mat_rows),
    ])
    print(body)
    if not args.no_write:
        print(f"wrote {report.update_section('reembed', body)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
