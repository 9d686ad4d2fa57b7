"""What encryption at rest costs: ingest, search and opening a store, plain against sealed.

The same real pages (Python tutorial and FAQ, chunked by the engine) are indexed into a
plain store (`encrypt_at_rest=False`) and a sealed one, in alternating rounds so load on
this shared machine hits both alike. Vectors come from the real model, computed once and
replayed (embedding costs the same either way and would hide the difference); the time
measured is what encryption touches: validating, sealing, SQLite, tantivy's keyed terms.
Then the same queries run on both (keyword and hybrid; the query embedding is cached after
the first round), and the stores are opened again and their vectors loaded (unsealing every
vector). Medians and ratios from one run.

    .venv/bin/python -m bench.perf.encryption [--pages 40] [--rounds 3]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from rewind import config
from rewind.capture.extract import html_document
from rewind.capture.ingest import PageInput
from rewind.config import Settings
from rewind.models import specs
from rewind.models.embedder import OnnxEmbedder
from rewind.profile.engine import Rewind
from rewind.search import SearchQuery

from bench.common.data import python_docs
from bench.common.report import load_average, machine, table, today, update_section

QUERIES = ["virtual environment packages", "how do I read a file line by line",
           "list comprehension", "exceptions and try except finally", "global interpreter lock",
           "Tkinter", "decorators", "string formatting", "dictionary keys order",
           "modules and packages import"]


class ReplayEmbedder:
    """The real model's vectors, computed once per text and replayed."""

    def __init__(self, real: OnnxEmbedder) -> None:
        self.real = real
        self.model_id, self.dim, self.max_tokens = real.model_id, real.dim, real.max_tokens
        self.count_tokens, self.truncate_to_tokens = real.count_tokens, real.truncate_to_tokens
        self.confidence = real.confidence
        self._docs: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}
        self.model_s = 0.0  # time the real model took for the documents



    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in texts if t not in self._docs]
        if todo:
            t0 = time.perf_counter()
            vecs = self.real.embed_documents(todo)
            self.model_s += time.perf_counter() - t0
            for t, v in zip(todo, vecs, strict=True):
                self._docs[t] = v
        return np.stack([self._docs[t] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self._queries:
            self._queries[text] = self.real.embed_query(text)
        return self._queries[text]


def ingest(pages, settings, emb, data: Path) -> float:
    with Rewind.open(data, settings, embedder=emb, model_dir=config.model_dir()) as eng:
        t0 = time.perf_counter()
        for pg in pages:
            eng.index_page(pg)
        return time.perf_counter() - t0


def searches(data: Path, settings, emb) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"keyword": [], "hybrid": []}
    with Rewind.open(data, settings, writer=False, embedder=emb,
                     model_dir=config.model_dir()) as eng:
        for mode in out:
            eng.search(SearchQuery(QUERIES[0], mode=mode))  # load the vectors first
            for q in QUERIES:
                t0 = time.perf_counter()
                eng.search(SearchQuery(q, mode=mode))
                out[mode].append((time.perf_counter() - t0) * 1000)
    return out


def open_and_load(data: Path, settings, emb) -> float:
    t0 = time.perf_counter()
    with Rewind.open(data, settings, writer=False, embedder=emb,
                     model_dir=config.model_dir()) as eng:
        eng.vector_state()  # loads every vector (unsealing each one in a sealed store)
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    html = python_docs()
    paths = (sorted((html / "tutorial").glob("*.html")) + sorted((html / "faq").glob("*.html")))
    paths = paths[: args.pages]
    pages = []
    for p in paths:
        d = html_document(p.read_text())
        pages.append(PageInput(url=f"http://docs.python.local/{p.parent.name}/{p.name}",
                               title=d.title, document=d, visited_at=1.7e9))
    base = dataclasses.replace(Settings(), content_check=False)  # the same work either way
    modes = {"plain": dataclasses.replace(base, encrypt_at_rest=False),
             "encrypted": dataclasses.replace(base, encrypt_at_rest=True)}
    emb = ReplayEmbedder(OnnxEmbedder(specs.embedding_spec(base.default_embedding_model),
                                      config.model_dir(), base))
    times: dict[str, dict[str, list[float]]] = {m: {"ingest": [], "keyword": [], "hybrid": [],
                                                    "open": []} for m in modes}
    passages = 0
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("REWIND_KEY_DIR", str(Path(tmp) / "keys"))
        os.environ.setdefault("REWIND_KEYRING", "off")
        with Rewind.open(Path(tmp) / "warm", modes["plain"], embedder=emb) as eng:
            for pg in pages:  # every vector computed once, before anything is timed
                passages += eng.index_page(pg).passages
        for r in range(args.rounds):
            for mode, s in modes.items():
                data = Path(tmp) / f"{mode}-{r}"
                times[mode]["ingest"].append(ingest(pages, s, emb, data))
                got = searches(data, s, emb)
                times[mode]["keyword"] += got["keyword"]
                times[mode]["hybrid"] += got["hybrid"]
                times[mode]["open"].append(open_and_load(data, s, emb))
            print(f"round {r + 1}/{args.rounds} done", flush=True)

    def med(mode: str, key: str) -> float:
        return statistics.median(times[mode][key])

    rows = []
    for key, label, unit in [("ingest", f"ingest {len(pages)} pages (vectors replayed)", "s"),
                             ("keyword", "keyword search, median of queries", "ms"),
                             ("hybrid", "hybrid search, median of queries", "ms"),
                             ("open", "open + load every vector", "ms")]:
        p, e = med("plain", key), med("encrypted", key)
        fmt = "{:.2f}" if unit == "s" else "{:.1f}"
        rows.append((f"{label} ({unit})", fmt.format(p), fmt.format(e), f"{e / p:.2f}x"))
    model_s = emb.model_s
    plain_total = med("plain", "ingest") + model_s
    enc_total = med("encrypted", "ingest") + model_s
    body = (
        "## Encryption at rest: what it costs (bench/perf/encryption.py)\n\n"
        f"{today()} · {machine()} · load average {load_average():.1f} at the end\n\n"
        f"{len(pages)} real pages (Python tutorial and FAQ), {passages} passages, "
        f"{args.rounds} alternating rounds; {len(QUERIES)} queries a mode a round. "
        "Vectors come from the real model, computed once and replayed, so ingest times "
        "are what encryption touches (sealing, SQLite, tantivy's keyed terms), not the "
        "model. Medians:\n\n"
        + table(("", "plain", "encrypted", "ratio"), rows)
        + f"\n\nWith the model in the loop (it took {model_s:.1f} s for these passages, "
        f"once, in this run), ingest costs {plain_total:.1f} s plain and {enc_total:.1f} s "
        f"encrypted: **{(enc_total / plain_total - 1) * 100:+.1f} %**.\n"
    )
    print(body)
    update_section("encryption", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
