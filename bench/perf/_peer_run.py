"""One system of bench/perf/peers.py, in its own process: ingest a workload, time its queries.

Job: read the workload folder that peers.py wrote (texts, float32 vectors, queries with
their vectors and gold answers), index it with one system, time every query in hybrid mode
(query embedding excluded: the vectors are given), take the dense top 10 alone for recall
against exact search, and print one JSON line: ingest_s, disk_bytes, peak_rss_mb, latency
samples, ranked doc ids. peers.py scores them. Systems:
- rewind: the engine (store, tantivy, vector snapshot) and `Rewind.search`, hybrid; pages
  written as a bulk writer does (history import, restore): a transaction per 2,500 pages;
- lancedb-flat: LanceDB with its full-text index, hybrid (its RRF), vectors scanned flat;
- lancedb-ann: the same with an IVF_HNSW_SQ vector index (LanceDB's most accurate ANN),
  queried with its defaults; lancedb-ann-tuned: the same index searched wider (40 of its
  partitions, HNSW ef 300) with exact rescoring of 10x the candidates (refine_factor), to
  buy recall with time;
- sqlite-vec: a vec0 table (brute force, cosine) and an FTS5 table (porter), fused by RRF.
`<system>-reuse` queries what an earlier run built (Rewind's store, or LanceDB's ANN table
once per setting given as JSON) without building it again (peers.py --ann-sweep).
Never: write outside the work folder it is given, or read another system's files.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

K = 10
PER_SIDE = 20  # candidates each side hands to RRF (sqlite-vec; LanceDB fetches `limit` a side)
RRF_K = 60
BATCH_PAGES = 2500  # Rewind's bulk ingest: pages a transaction, then the text index catches up


def load(work: Path) -> tuple[list[dict], np.ndarray, list[dict], np.ndarray]:
    texts = [json.loads(line) for line in (work / "texts.jsonl").read_text().splitlines()]
    queries = json.loads((work / "queries.json").read_text())
    return texts, np.load(work / "vectors.npy", mmap_mode="r"), queries, np.load(
        work / "qvecs.npy")


def disk_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def rrf(*rankings: list[int]) -> list[int]:
    score: dict[int, float] = {}
    for ranking in rankings:
        for rank, row in enumerate(ranking):
            score[row] = score.get(row, 0.0) + 1.0 / (RRF_K + rank + 1)
    return sorted(score, key=lambda r: (-score[r], r))


# ---------------------------------------------------------------------------- systems


def _given(queries, qvecs):
    """The embedder's contract, answering from the workload's vectors."""
    from rewind.models.specs import embedding_spec

    class Given:
        model_id, dim, max_tokens = "all-minilm-l6-v2-int8@384", 384, 256
        confidence = embedding_spec("all-minilm-l6-v2-int8").confidence
        by_text = {q["text"]: v for q, v in zip(queries, qvecs, strict=True)}

        def embed_query(self, text):
            return self.by_text.get(text, qvecs[0])  # "warm up" gets any vector

        def embed_documents(self, _texts):
            raise AssertionError("documents come with their vectors")

        def count_tokens(self, text):
            return len(text.split())

        def truncate_to_tokens(self, text, n):
            return " ".join(text.split()[:n])

    return Given()


def rewind_pages(texts) -> list[tuple[str, str, list[int]]]:
    """(url, doc id, workload rows) of each page Rewind is given: an FAQ answer is a page;
    other passages come 20 a page."""
    pages: list[list[int]] = []
    for row, t in enumerate(texts):
        if t["doc"].startswith("faq:") or not pages or len(pages[-1]) == 20 \
                or texts[pages[-1][0]]["doc"].startswith("faq:"):
            pages.append([])
        pages[-1].append(row)
    return [(f"https://bench.example/p{i}",
             texts[rows[0]]["doc"] if len(rows) == 1 else f"page:{i}", rows)
            for i, rows in enumerate(pages)]


def open_rewind(folder: Path, queries, qvecs):
    from rewind.config import Settings
    from rewind.profile.engine import Rewind

    # Unencrypted, like the peers' stores (and its vector snapshot memory-mapped).
    return Rewind.open(folder, Settings(encrypt_at_rest=False), embedder=_given(queries, qvecs))


def run_rewind(texts, vecs, queries, qvecs, folder: Path):
    from rewind.index.store.records import PageRecord, PassageRecord

    t0 = time.perf_counter()
    eng = open_rewind(folder, queries, qvecs)
    model_id = eng.embedder().model_id
    store = eng.stores.writer
    store.set_meta("embedding_model", model_id)
    pages = rewind_pages(texts)
    for start in range(0, len(pages), BATCH_PAGES):  # a bulk writer's batch: one commit
        with store.transaction():
            for i, (url, _doc, rows) in enumerate(pages[start:start + BATCH_PAGES], start):
                rec = PageRecord(url=url, domain="bench.example", title="",
                                 content_hash=str(i), source="bench", first_visit=1e9,
                                 last_visit=1e9, visit_count=1, dwell_s=60.0)
                store.upsert_page(rec, [PassageRecord(texts[r]["text"], j, (0, 1))
                                        for j, r in enumerate(rows)],
                                  np.asarray(vecs[rows[0]:rows[-1] + 1]), model_id)
        eng.text_index.catch_up(store)
    with eng.searcher() as s:
        s._vectors.refresh(s.store)
    ingest = time.perf_counter() - t0
    return (ingest, *query_rewind(eng, queries, qvecs, {u: d for u, d, _ in pages}))


def query_rewind(eng, queries, qvecs, url_doc: dict[str, str]):
    """Hybrid latencies and rankings (doc ids), then the dense top 10s (workload rows)."""
    from rewind.search import SearchQuery

    with eng.searcher() as s:
        pid_row = {pid: i for i, pid in enumerate(sorted(s.store.passage_ids()))}
    eng.search(SearchQuery("warm up"))
    ms, ranked, dense = [], [], []
    for q in queries:
        t = time.perf_counter()
        hits = eng.search(SearchQuery(q["text"], mode="hybrid", limit=K)).results
        ms.append((time.perf_counter() - t) * 1000)
        ranked.append([url_doc[h.url] for h in hits])
    with eng.searcher() as s:
        for v in qvecs:
            dense.append([pid_row[h.passage_id] for h in s._vectors.search(v, K)])
    eng.close()
    return ms, ranked, dense


def _lance_table(texts, vecs, folder: Path):
    import lancedb
    import pyarrow as pa

    db = lancedb.connect(str(folder))
    tbl = None
    for start in range(0, len(texts), 50_000):
        part = texts[start:start + 50_000]
        v = np.asarray(vecs[start:start + len(part)], np.float32)
        batch = pa.table({
            "id": pa.array(np.arange(start, start + len(part)), pa.int64()),
            "text": pa.array([t["text"] for t in part]),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(v.reshape(-1)), v.shape[1]),
        })
        tbl = db.create_table("p", data=batch) if tbl is None else tbl
        if start:
            tbl.add(batch)
    tbl.create_fts_index("text")
    return tbl


# LanceDB's IVF_HNSW_SQ searched wider, with exact rescoring of refine_factor x candidates
TUNED = {"nprobes": 40, "ef": 300, "refine_factor": 10}


def run_lancedb(texts, vecs, queries, qvecs, folder: Path, ann: bool, tuned: bool = False):
    t0 = time.perf_counter()
    tbl = _lance_table(texts, vecs, folder)
    if ann:
        tbl.create_index(metric="cosine", index_type="IVF_HNSW_SQ")
    ingest = time.perf_counter() - t0
    return (ingest, *query_lancedb(tbl, texts, queries, qvecs, TUNED if tuned else None))


def query_lancedb(tbl, texts, queries, qvecs, wider: dict | None):
    """Hybrid latencies and rankings (doc ids), then the dense top 10s (workload rows);
    `wider`: nprobes, ef and refine_factor for its ANN index (None: its defaults)."""
    def widen(query):
        if wider:
            query = query.nprobes(wider["nprobes"]).ef(wider["ef"])
            query = query.refine_factor(wider["refine_factor"])
        return query

    ms, ranked, dense = [], [], []
    for q, v in zip(queries, qvecs, strict=True):
        t = time.perf_counter()
        rows = widen(tbl.search(query_type="hybrid").vector(v).text(q["text"])
                     .distance_type("cosine")).select(["id"]).limit(K).to_list()
        ms.append((time.perf_counter() - t) * 1000)
        ranked.append([texts[r["id"]]["doc"] for r in rows])
    for v in qvecs:
        rows = widen(tbl.search(v).distance_type("cosine")).select(["id"]).limit(K).to_list()
        dense.append([r["id"] for r in rows])
    return ms, ranked, dense


def run_sqlite_vec(texts, vecs, queries, qvecs, folder: Path):
    import pysqlite3 as sqlite3
    import sqlite_vec

    t0 = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(folder / "peer.db"))
    db.enable_load_extension(True)
    sqlite_vec.load(db)
    db.execute(f"CREATE VIRTUAL TABLE vec USING vec0(embedding float[{vecs.shape[1]}]"
               " distance_metric=cosine)")
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(text, tokenize='porter unicode61')")
    for start in range(0, len(texts), 10_000):
        part = texts[start:start + 10_000]
        v = np.asarray(vecs[start:start + len(part)], np.float32)
        with db:
            db.executemany("INSERT INTO vec(rowid, embedding) VALUES (?, ?)",
                           [(start + i + 1, v[i].tobytes()) for i in range(len(part))])
            db.executemany("INSERT INTO fts(rowid, text) VALUES (?, ?)",
                           [(start + i + 1, t["text"]) for i, t in enumerate(part)])
    ingest = time.perf_counter() - t0

    def vector_rows(v, k):
        return [r[0] - 1 for r in db.execute(
            "SELECT rowid FROM vec WHERE embedding MATCH ? AND k = ? ORDER BY distance",
            (np.asarray(v, np.float32).tobytes(), k))]

    def fts_rows(text, k):
        words = [w for w in "".join(c if c.isalnum() else " " for c in text).split()]
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        return [r[0] - 1 for r in db.execute(
            "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?", (match, k))]

    ms, ranked, dense = [], [], []
    for q, v in zip(queries, qvecs, strict=True):
        t = time.perf_counter()
        fused = rrf(vector_rows(v, PER_SIDE), fts_rows(q["text"], PER_SIDE))[:K]
        ms.append((time.perf_counter() - t) * 1000)
        ranked.append([texts[r]["doc"] for r in fused])
    dense = [vector_rows(v, K) for v in qvecs]
    db.close()
    return ingest, ms, ranked, dense


def result(system: str, folder: Path, ingest: float, ms, ranked, dense) -> dict:
    return {"system": system, "ingest_s": round(ingest, 2), "disk_bytes": disk_bytes(folder),
            "peak_rss_mb": round(peak_rss_mb(), 1), "ms": ms, "ranked": ranked,
            "dense": [list(map(int, d)) for d in dense]}


def reuse(system: str, texts, queries, qvecs, folder: Path, settings: list[dict]) -> None:
    """Query what an earlier run built in `folder`, without building it again: Rewind's
    store, or LanceDB's ANN table once per setting in `settings`. One JSON line each, after
    one untimed pass of the queries (the files in the page cache, as after a build)."""
    if system == "rewind":
        docs = {url: doc for url, doc, _rows in rewind_pages(texts)}
        # untimed, then a fresh engine: its files are warm, its in-process caches are not
        query_rewind(open_rewind(folder, queries, qvecs), queries, qvecs, docs)
        eng = open_rewind(folder, queries, qvecs)
        print(json.dumps(result(system, folder, 0.0, *query_rewind(eng, queries, qvecs, docs))),
              flush=True)
        return
    import logging

    import lancedb

    logging.disable(logging.WARNING)
    tbl = lancedb.connect(str(folder)).open_table("p")
    query_lancedb(tbl, texts, queries, qvecs, settings[0])  # untimed: the files cached
    for wider in settings:
        out = result(system, folder, 0.0, *query_lancedb(tbl, texts, queries, qvecs, wider))
        print(json.dumps({**out, "settings": wider}), flush=True)


def main() -> int:
    system, work, folder = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    texts, vecs, queries, qvecs = load(work)
    if system.endswith("-reuse"):  # argv[4]: the LanceDB settings to try, as JSON
        settings = json.loads(sys.argv[4]) if len(sys.argv) > 4 else [None]
        reuse(system.removesuffix("-reuse"), texts, queries, qvecs, folder, settings)
        return 0
    shutil.rmtree(folder, ignore_errors=True)
    if system == "rewind":
        out = run_rewind(texts, vecs, queries, qvecs, folder)
    elif system in ("lancedb-flat", "lancedb-ann", "lancedb-ann-tuned"):
        import logging
        logging.disable(logging.WARNING)
        out = run_lancedb(texts, vecs, queries, qvecs, folder, ann=system != "lancedb-flat",
                          tuned=system == "lancedb-ann-tuned")
    elif system == "sqlite-vec":
        out = run_sqlite_vec(texts, vecs, queries, qvecs, folder)
    else:
        raise SystemExit(f"unknown system {system!r}")
    print(json.dumps(result(system, folder, *out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
