"""Engine-side search latency at 10k and 100k passages, per mode, query embedding excluded.

Passages are real text: the Python documentation (Debian's python3.11-doc) cut by the
engine's own chunker, repeated with a suffix to reach the size. Vectors: embedding 100k
passages takes hours on 2 cores, so the real model embeds a sample and the bulk gets random
unit vectors (the search cost does not depend on the values). Query vectors come from the
real model and are warmed in the embedder's cache before timing, so the figures are the
engine's: dense top-k, BM25, fusion, grouping, MMR, snippets.

    .venv/bin/python -m bench.perf.latency [--sizes 10000 100000] [--queries 100]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rewind import config
from rewind.capture.chunker import chunk_blocks
from rewind.capture.extract import html_document
from rewind.config import Settings
from rewind.index.store.records import PageRecord, PassageRecord
from rewind.models import specs
from rewind.models.embedder import OnnxEmbedder
from rewind.profile.engine import Rewind
from rewind.search import SearchQuery

from bench.common.data import faq_pairs, python_docs
from bench.common.report import machine, today, update_section

REAL_SAMPLE = 300
PER_PAGE = 20


def corpus(html: Path) -> list[str]:
    texts = []
    for path in sorted(html.rglob("*.html")):
        doc = html_document(path.read_text(errors="replace"))
        texts += [c.text for c in chunk_blocks(doc.blocks, Settings())[1]]
    return texts


def build(data: Path, texts: list[str], n: int, emb: OnnxEmbedder) -> Rewind:
    eng = Rewind.open(data, Settings(), embedder=emb)
    rng = np.random.default_rng(0)
    real = emb.embed_documents(texts[:REAL_SAMPLE])
    store = eng.stores.writer
    store.set_meta("embedding_model", emb.model_id)
    now = time.time()
    for start in range(0, n, PER_PAGE):
        rows = [texts[i % len(texts)] + ("" if i < len(texts) else f" (copy {i // len(texts)})")
                for i in range(start, min(n, start + PER_PAGE))]
        vecs = rng.standard_normal((len(rows), emb.dim)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        for j in range(len(rows)):
            if start + j < REAL_SAMPLE:
                vecs[j] = real[start + j]
        page = start // PER_PAGE
        site = f"site{page % 50}.example"
        rec = PageRecord(url=f"https://{site}/p{page}", domain=site,
                         title=f"Page {page}", content_hash=str(page), source="bench",
                         first_visit=now - page, last_visit=now - page, visit_count=1, dwell_s=60)
        store.upsert_page(rec, [PassageRecord(t, i, (0, len(t))) for i, t in enumerate(rows)],
                          vecs, emb.model_id)
    eng.text_index.catch_up(store)
    return eng


def timed(eng: Rewind, queries: list[str], mode: str) -> list[float]:
    out = []
    for q in queries:
        t0 = time.perf_counter()
        eng.search(SearchQuery(q, mode=mode))
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=100)
    args = ap.parse_args()
    html = python_docs()
    texts = corpus(html)
    queries = [p.question for p in faq_pairs(html)][: args.queries]
    spec = specs.embedding_spec(Settings().default_embedding_model)
    emb = OnnxEmbedder(spec, config.model_dir(), Settings())
    for q in queries:
        emb.embed_query(q)  # warm the cache: query embedding is excluded
    rows = ["| passages | mode | p50 ms | p95 ms |", "|---:|---|---:|---:|"]
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.time()
            eng = build(Path(tmp) / "data", texts, n, emb)
            print(f"built {n} passages in {time.time() - t0:.0f} s", flush=True)
            eng.search(SearchQuery("warm up"))
            for mode in ("keyword", "semantic", "hybrid"):
                ms = timed(eng, queries, mode)
                p50 = statistics.median(ms)
                p95 = statistics.quantiles(ms, n=20)[-1]
                rows.append(f"| {n:,} | {mode} | {p50:.1f} | {p95:.1f} |")
                print(rows[-1], flush=True)
            eng.close()
    text = "\n".join([
        "## Search latency, engine side (bench/perf/latency.py)",
        "",
        f"{today()} · {machine()}",
        "",
        f"{len(queries)} FAQ questions; text: the Python docs chunked by the engine, repeated "
        f"to size; vectors: the real model for the first {REAL_SAMPLE} passages, random unit "
        "vectors for the rest; query embedding excluded (cached). 20 passages a page.",
        "",
        *rows,
    ])
    update_section("latency", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
