"""Ingest throughput against the raw model: what the store and indexes add to embedding.

The same real pages (Python docs, chunked by the engine) go through `Rewind.index_page`
(validate, hash, embed, SQLite transaction, tantivy commit) and, separately, through the
embedder alone. Rounds alternate (raw, ingest, raw, ingest, ...) so load on this shared
machine hits both alike; the report gives medians and their ratio.

    .venv/bin/python -m bench.perf.ingest [--pages 12] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rewind import config
from rewind.capture.extract import html_document
from rewind.capture.ingest import PageInput, prepare
from rewind.config import Settings
from rewind.models import specs
from rewind.models.embedder import OnnxEmbedder
from rewind.profile.engine import Rewind

from bench.common.data import python_docs
from bench.common.report import machine, today, update_section


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=12)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    settings = Settings()
    html = python_docs()
    paths = sorted((html / "tutorial").glob("*.html"))[: args.pages]
    docs = [(p, html_document(p.read_text())) for p in paths]
    emb = OnnxEmbedder(specs.embedding_spec(settings.default_embedding_model),
                       config.model_dir(), settings)
    pages = [PageInput(url=f"http://docs.python.local/{p.name}", title=d.title, document=d,
                       visited_at=1.0) for p, d in docs]
    texts = [[x.text for x in prepare(pg, settings, max_tokens=emb.max_tokens,
                                      count_tokens=emb.count_tokens).passages] for pg in pages]
    n = sum(len(t) for t in texts)
    emb.embed_documents(texts[0][:4])  # warm up the session

    raw_s, ingest_s = [], []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        for t in texts:
            emb.embed_documents(t)
        raw_s.append(time.perf_counter() - t0)
        with tempfile.TemporaryDirectory() as tmp:
            eng = Rewind.open(Path(tmp) / "data", settings, embedder=emb)
            t0 = time.perf_counter()
            for pg in pages:
                eng.index_page(pg)
            ingest_s.append(time.perf_counter() - t0)
            eng.close()
    raw, ing = statistics.median(raw_s), statistics.median(ingest_s)
    overhead = (ing - raw) / raw * 100
    load = os.getloadavg()[0]
    lines = [
        "## Ingest throughput (bench/perf/ingest.py)",
        "",
        f"{today()} · {machine()} · load average {load:.1f} at the end",
        "",
        f"{len(pages)} real pages (Python tutorial), {n} passages, {args.rounds} alternating "
        "rounds, medians:",
        "",
        "| path | seconds | passages/s |",
        "|---|---:|---:|",
        f"| raw model (embed_documents only) | {raw:.1f} | {n / raw:.1f} |",
        f"| index_page (validate, embed, SQLite, tantivy) | {ing:.1f} | {n / ing:.1f} |",
        "",
        f"Ingest overhead over raw embedding: **{overhead:+.1f} %** (target <= 10 %).",
    ]
    print("\n".join(lines))
    update_section("ingest", "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
