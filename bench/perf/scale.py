"""Rewind at N passages: build (or reuse) an index of real text, then time hybrid searches.

Text: bench/common/corpus.py's corpus (Python FAQ answers and docs, Wikipedia lead paragraphs,
Debian's SQLite, PostgreSQL and git manuals, cut by the engine's chunker), repeated with
variation past ~74k passages; 20 passages a page. Vectors: the real model's for the first
10,000 passages, synthetic unit vectors for the rest (a Gaussian fitted to the real ones:
embedding 1M passages takes ~15 h on 2 cores). The index is built through the engine's own
store, tantivy index and vector snapshot, and cached in `<cache>/<N>/` (default
.cache/scale/; it says which); a second run reuses it. Timing then happens in a fresh
process that opens the cached index, as a person's host would after a restart.

Times: `--queries` (200) queries (the 175 FAQ questions, then known-item queries of 3 rare
words) through `Rewind.search` in hybrid mode, query embedding excluded (computed first,
then served from the embedder's cache), after one untimed pass of 175 other queries (known-
item, 4 words, another seed) so that the page cache is as warm as in a host that has been
running: the first pass over a cold 1M index measured p50 48 ms against 18 + 8 ms for its
dense and BM25 halves timed warm. recall@10: the dense top 10 (k=10, the smallest
candidate pool) against exact float32 search over the same vectors before storage.
bytes_per_passage: the memory the vector index scans per passage on every search (its
1-bit code, passage id and page id); the snapshot's bytes on disk (codes + int8 rows) and
the store's vector bytes (float16) are printed beside it.

The store is not encrypted (Settings.encrypt_at_rest off): an encrypted store keeps no
vector snapshot on disk and builds the same codes in memory when a search first needs them
(README, "Encryption at rest"), so its scan is the same but its start cost and memory are
not what is measured here.

    python3 -m bench.perf.scale --passages 1000000 [--json] [--cache DIR] [--queries 200]

Unset OPENBLAS_CORETYPE for benchmark runs only (docs: ../shared/notes/eval-data.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from rewind import config
from rewind.config import Settings
from rewind.index.derived.vectors import VectorIndex
from rewind.index.store.records import PageRecord, PassageRecord
from rewind.models import specs
from rewind.models.embedder import OnnxEmbedder
from rewind.profile.engine import Rewind
from rewind.search import SearchQuery

from bench.common.corpus import SyntheticVectors, bench_queries, passages, real_vectors
from bench.common.data import default_cache, faq_pairs, known_item_queries, python_docs
from bench.common.report import (
    load_average,
    machine,
    quantile,
    table,
    today,
    update_section,
)

REAL = 10_000
PER_PAGE = 20
TEXT_COMMIT_PAGES = 2_500  # pages per tantivy commit while building (50k passages)
DOMAINS = {"faq": "docs.python.org", "python": "docs.python.org", "wiki": "en.wikipedia.org",
           "sqlite3-doc": "sqlite.org", "postgresql-doc-15": "postgresql.org",
           "git-doc": "git-scm.com"}
DEFAULT_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "scale"
# The unencrypted store: its vector snapshot is memory-mapped (see the docstring).
SETTINGS = Settings(encrypt_at_rest=False)


def embedder() -> OnnxEmbedder:
    spec = specs.embedding_spec(Settings().default_embedding_model)
    return OnnxEmbedder(spec, config.model_dir(), Settings())


class Vectors:
    """Row i's float32 vector: the model's for the first REAL rows, synthetic after."""

    def __init__(self, emb: OnnxEmbedder, log=print):
        texts = [p.text for _, p in passages(REAL)]
        self.real = real_vectors(texts, emb, default_cache(),
                                 progress=lambda a, b: log(f"embedding {a}/{b}"))
        self.synthetic = SyntheticVectors(self.real)

    def rows(self, start: int, stop: int) -> np.ndarray:
        out = np.empty((stop - start, self.real.shape[1]), np.float32)
        cut = min(max(REAL, start), stop)
        out[: cut - start] = self.real[start:cut]
        if stop > cut:
            out[cut - start:] = self.synthetic.rows(cut - REAL, stop - REAL)
        return out


def build(folder: Path, n: int, emb: OnnxEmbedder, vecs: Vectors, log=print) -> dict:
    """Index n passages into folder/data through the engine's stores; returns build facts."""
    t0 = time.perf_counter()
    eng = Rewind.open(folder / "data", SETTINGS, embedder=emb)
    store = eng.stores.writer
    store.set_meta("embedding_model", emb.model_id)
    rng = np.random.default_rng(0)
    now = time.time()
    row_pids = np.empty(n, np.int64)
    batch: list[tuple[int, object]] = []
    text_s = 0.0

    def flush(page: int) -> None:
        rows = [r for r, _ in batch]
        first = batch[0][1]
        domain = DOMAINS[first.doc.split(":", 1)[0]]
        when = now - float(rng.uniform(0, 3 * 365 * 86400))
        rec = PageRecord(url=f"https://{domain}/p{page}", domain=domain, title=first.title,
                         content_hash=str(page), source="bench", first_visit=when,
                         last_visit=when, visit_count=1, dwell_s=60.0)
        ps = [PassageRecord(p.text, i, (0, len(p.text))) for i, (_, p) in enumerate(batch)]
        _pid, ids = store.upsert_page(rec, ps, vecs.rows(rows[0], rows[-1] + 1), emb.model_id)
        row_pids[rows[0]:rows[-1] + 1] = ids

    page = 0
    for row, p in passages(n):
        batch.append((row, p))
        if len(batch) == PER_PAGE or row == n - 1:
            flush(page)
            batch, page = [], page + 1
            if page % TEXT_COMMIT_PAGES == 0 or row == n - 1:
                t1 = time.perf_counter()
                eng.text_index.catch_up(store)
                text_s += time.perf_counter() - t1
                log(f"{row + 1:,} passages, {time.perf_counter() - t0:.0f} s")
    t1 = time.perf_counter()
    with eng.searcher() as searcher:  # builds and writes the vector snapshot
        searcher._vectors.refresh(searcher.store)
    vector_s = time.perf_counter() - t1
    eng.close()
    np.save(folder / "row_pids.npy", row_pids)
    facts = {"passages": n, "build_s": round(time.perf_counter() - t0, 1),
             "text_index_s": round(text_s, 1), "vector_snapshot_s": round(vector_s, 1),
             "real_vectors": min(n, REAL), "pages": page}
    (folder / "build.json").write_text(json.dumps(facts))
    return facts


def exact_top10(folder: Path, n: int, vecs: Vectors, qvecs: np.ndarray) -> np.ndarray:
    """Row indices of each query's exact float32 top 10 (cached beside the index)."""
    dest = folder / f"exact-top10-{len(qvecs)}.npy"
    if dest.exists():
        return np.load(dest)
    best_s = np.full((len(qvecs), 10), -np.inf, np.float32)
    best_r = np.zeros((len(qvecs), 10), np.int64)
    for start in range(0, n, 100_000):
        stop = min(n, start + 100_000)
        s = qvecs @ vecs.rows(start, stop).T
        all_s = np.concatenate([best_s, s], axis=1)
        all_r = np.concatenate([best_r, np.broadcast_to(np.arange(start, stop), s.shape)], axis=1)
        top = np.argsort(-all_s, axis=1, kind="stable")[:, :10]
        best_s = np.take_along_axis(all_s, top, 1)
        best_r = np.take_along_axis(all_r, top, 1)
    np.save(dest, best_r)
    return best_r


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text()
                  .splitlines() if ":" in line)
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def rss_parts(folder: Path) -> dict[str, float]:
    """Resident MB of this process by what is mapped (/proc/self/smaps): the vector
    snapshot, the text index, the store, other files (libraries, models) and anonymous
    memory (Python's heap, numpy arrays, tantivy's and SQLite's caches)."""
    parts: dict[str, float] = {}
    kind = "anonymous"
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if len(head) >= 5 and "-" in head[0] and not head[0].endswith(":"):
            path = head[5] if len(head) > 5 else ""
            kind = ("vector snapshot" if path.endswith(".rvec") else
                    "text index" if str(folder) in path and "/text_index/" in path else
                    "store" if str(folder) in path else
                    "other files" if path.startswith("/") else "anonymous")
        elif head and head[0] == "Rss:":
            parts[kind] = parts.get(kind, 0.0) + int(head[1]) / 1024
    return {k: round(v, 1) for k, v in sorted(parts.items())}


def trade_offs(index, store, qvecs: np.ndarray, exact: list[list[int]], n: int) -> list[dict]:
    """Dense recall@10 and time (k=10) for other pool sizes of the search's stages: 1-bit
    codes with exact rescoring alone (rescore = candidates: no later stage), without the
    bit-score stage (refine = candidates), all four stages, Matryoshka codes (the first 256
    of 384 dimensions: a separate index, built in memory), and (up to 100k) an int8 scan of
    everything. After an int8 stage the engine's `exact` best are read exactly."""
    e = index.exact
    variants = [("1-bit, exact", index, c, c, c, c) for c in (1000, 3000)]
    variants += [("1-bit, int8, exact", index, c, c, 100, e) for c in (5000, 15_000, 20_000)]
    variants += [("1-bit, bit scores, int8, exact", index, c, f, 100, e)
                 for c in (15_000, 30_000) for f in (1000, 2000, 4000)]
    short = VectorIndex(index.model_id, index.dim, None, bits=256)
    short.refresh(store)
    variants += [("1-bit of 256 dims, bit scores, int8, exact", short, c, index.refine, 100, e)
                 for c in (15_000, 30_000)]
    if n <= 100_000:
        variants.append(("int8 scan, exact", index, n, n, 100, e))
    out = []
    for name, idx, c, f, r, x in variants:
        chosen = (idx.candidates, idx.refine, idx.rescore, idx.exact)
        idx.candidates, idx.refine, idx.rescore, idx.exact = c, f, r, x
        ms, recalls = [], []
        for v, e in zip(qvecs, exact, strict=True):
            t = time.perf_counter()
            got = [h.passage_id for h in idx.search(v, 10)]
            ms.append((time.perf_counter() - t) * 1000)
            recalls.append(len(set(got) & set(e)) / 10)
        idx.candidates, idx.refine, idx.rescore, idx.exact = chosen
        out.append({"stages": name, "candidates": c, "refine": f, "rescore": r, "exact": x,
                    "scanned_bytes": idx.bytes_per_passage(),
                    "recall": round(float(np.mean(recalls)), 4),
                    "p50_ms": round(statistics.median(ms), 2),
                    "p95_ms": round(quantile(ms, 0.95), 2)})
    return out


def warm_up_queries() -> list[str]:
    """Known-item queries of another draw (4 words, seed 1): never the timed ones."""
    return [q.text for q in known_item_queries(faq_pairs(python_docs()), n_terms=4, seed=1)]


def measure(folder: Path, n: int, n_queries: int, log=print) -> dict:
    emb = embedder()
    queries = bench_queries(n=n_queries)
    qvecs = np.stack([emb.embed_query(q.text) for q in queries])  # cached: excluded below
    facts = json.loads((folder / "build.json").read_text())
    row_pids = np.load(folder / "row_pids.npy")
    t0 = time.perf_counter()
    eng = Rewind.open(folder / "data", SETTINGS, writer=False, embedder=emb)
    eng.search(SearchQuery("warm up"))
    open_s = time.perf_counter() - t0
    for text in warm_up_queries():  # other queries: the page cache warm, as in a running host
        eng.search(SearchQuery(text))
    timings: dict[str, list[float]] = {}
    for mode in ("hybrid", "semantic", "keyword"):
        ms = []
        for q in queries:
            t = time.perf_counter()
            eng.search(SearchQuery(q.text, mode=mode))
            ms.append((time.perf_counter() - t) * 1000)
        timings[mode] = ms
    with eng.searcher() as searcher:
        index = searcher._vectors
        dense = [[h.passage_id for h in index.search(v, 10)] for v in qvecs]
        store_vec = searcher.store.vector_bytes(index.model_id)
    rss, peak = rss_mb()  # the searching process, before the benchmark's own exact search
    parts = rss_parts(folder)
    exact = [row_pids[e].tolist() for e in exact_top10(folder, n, Vectors(emb, log), qvecs)]
    recall = float(np.mean([len(set(d) & set(e)) / 10 for d, e in zip(dense, exact,
                                                                        strict=True)]))
    with eng.searcher() as searcher:
        stages = trade_offs(searcher._vectors, searcher.store, qvecs, exact, n)
    hy = timings["hybrid"]
    out = {
        "passages": n,
        "p50_ms": round(statistics.median(hy), 2),
        "p95_ms": round(quantile(hy, 0.95), 2),
        "recall_at_10_vs_exact": round(recall, 4),
        "bytes_per_passage": index.bytes_per_passage(),
        "rss_mb": round(rss, 1),
        "rss_parts_mb": parts,
        "build_s": facts["build_s"],
        "peak_rss_mb": round(peak, 1),
        "snapshot_bytes_per_passage": round(index.snapshot_bytes() / n, 1),
        "store_vector_bytes_per_passage": round(store_vec / n, 1),
        "open_s": round(open_s, 2),
        "semantic_p50_ms": round(statistics.median(timings["semantic"]), 2),
        "semantic_p95_ms": round(quantile(timings["semantic"], 0.95), 2),
        "keyword_p50_ms": round(statistics.median(timings["keyword"]), 2),
        "keyword_p95_ms": round(quantile(timings["keyword"], 0.95), 2),
        "queries": len(queries),
        "real_vectors": facts["real_vectors"],
        "candidates": index.candidates, "refine": index.refine, "rescore": index.rescore,
        "exact": index.exact,
        "stages": stages,
        "load_average": round(load_average(), 1),
        "cache": str(folder),
    }
    eng.close()
    return out


def engine_pools(result: dict) -> str:
    """The engine's pool sizes in a result (those measured before `refine` had none)."""
    refine = f"{result['refine']:,}, " if "refine" in result else ""
    exact = f", {result['exact']}" if "exact" in result else ""
    return f"{result['candidates']:,}, {refine}{result['rescore']}{exact}"


def report(results: list[dict]) -> None:
    header = ("passages", "hybrid p50 ms", "hybrid p95 ms", "semantic p95", "keyword p95",
              "recall@10", "scanned B", "snapshot B", "store B", "RSS MB", "build s", "load")
    rows = [(f"{r['passages']:,}", r["p50_ms"], r["p95_ms"], r["semantic_p95_ms"],
             r["keyword_p95_ms"], f"{r['recall_at_10_vs_exact']:.3f}", r["bytes_per_passage"],
             f"{r['snapshot_bytes_per_passage']:.0f}",
             f"{r['store_vector_bytes_per_passage']:.0f}", f"{r['rss_mb']:.0f}",
             f"{r['build_s']:.0f}", r.get("load_average", "?")) for r in results]
    stage_tables = "\n\n".join(
        f"{r['passages']:,} passages:\n\n" + table(
            ("stages", "candidates", "refine", "rescore", "exact", "scanned B", "recall@10",
             "p50 ms", "p95 ms"),
            [(v["stages"], f"{v['candidates']:,}", f"{v.get('refine', v['candidates']):,}",
              v["rescore"], f"{v.get('exact', v['rescore']):,}", v.get("scanned_bytes", ""),
              f"{v['recall']:.3f}", v["p50_ms"], v["p95_ms"]) for v in r.get("stages", [])])
        for r in results)
    update_section("scale", f"""## Rewind at scale (bench/perf/scale.py)

{today()} · {machine()}

Real text (Python FAQ answers and docs, Wikipedia lead paragraphs, Debian's SQLite,
PostgreSQL and git manuals; ~74k passages, repeated with sentences shuffled and some dropped
beyond), 20 passages a page; vectors: the real model (MiniLM int8) for the first 10,000
passages, synthetic unit vectors from a Gaussian fitted to them for the rest. 200 queries
(175 FAQ questions, 25 known-item), engine side (`Rewind.search`, query embedding excluded),
in a fresh process opening the cached index. recall@10: the dense top 10 against exact
float32 search. Bytes a passage: scanned in memory on every search (1-bit code + ids) /
the snapshot file on disk (codes, int8 rows, ids) / the store's vector blobs (float16).
load: the 1-minute load average when the size was measured (2 cores, shared with other
work: at a load of 8, times are several times those of an idle machine).

{table(header, rows)}

Dense search's stages (k=10, the vector index alone): recall@10 against exact float32 and
time, for other pool sizes. `1-bit, exact`: the Hamming scan's candidates rescored from the
store (no later stage); `1-bit, int8, exact`: the candidates' int8 cosines keep `rescore`,
and the best `exact` of them are read from the store and ranked first by exact cosine (the
rest follow in int8's order); `bit scores`: before that, the candidates' codes scored
against the query's components keep `refine` for the int8 stage (the engine: candidates,
refine, rescore, exact
{engine_pools(results[-1]) if results else ""}, rescore at least 1.25 k when k is larger).

{stage_tables}
""")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--passages", type=int, required=True)
    ap.add_argument("--json", action="store_true", help="print only the result line")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--report", action="store_true",
                    help="write docs/benchmarks.md's scale table from every cached result "
                    "(measuring only sizes without one)")
    args = ap.parse_args()
    folder = args.cache / str(args.passages)
    quiet = args.json

    def log(msg: str) -> None:
        print(msg, file=sys.stderr if quiet else sys.stdout, flush=True)

    if not (folder / "build.json").exists():
        log(f"building {args.passages:,} passages in {folder} (cached for later runs)")
        folder.mkdir(parents=True, exist_ok=True)
        emb = embedder()
        facts = build(folder, args.passages, emb, Vectors(emb, log), log)
        log(f"built: {facts}")
        # time in a fresh process (as a module: `bench` is found from the working directory)
        os.execv(sys.executable, [sys.executable, "-m", "bench.perf.scale", *sys.argv[1:]])
    if args.report and (folder / "result.json").exists():
        result = json.loads((folder / "result.json").read_text())  # measured before
    else:
        log(f"reusing the index in {folder}")
        result = measure(folder, args.passages, args.queries, log)
        (folder / "result.json").write_text(json.dumps(result))
    if args.report:
        found = [json.loads(p.read_text()) for p in args.cache.glob("*/result.json")]
        report(sorted(found, key=lambda r: r["passages"]))
    if not quiet:
        log(f"real-model vectors for {result['real_vectors']:,} passages, synthetic for the rest")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
