"""Rewind beside the peers a developer would otherwise pick: one corpus, one set of vectors.

Systems (bench/perf/_peer_run.py): Rewind's engine; LanceDB hybrid (its full-text index + vector
search, its RRF), with its default flat vector scan and with its IVF_HNSW_SQ index (queried
with its defaults, and searched wider with exact refinement); sqlite-vec
(vec0, brute force) + SQLite FTS5, fused with RRF (k=60). All get the same passages (bench/
corpus.py: the 175 Python FAQ answers first, then real distractors), the same float32
vectors (the real model's for the first 10,000 passages, fitted synthetic ones after) and
the same 200 queries with their vectors (query embedding excluded everywhere). Each system
runs in its own fresh process, one after another: ingest time (to ready for queries), disk
size, peak RSS, hybrid p50/p95, MRR@10 / nDCG@10 on the 175 FAQ questions (and known-item
MRR@10), recall@10 of the vector search alone against exact float32 search.

Peers are benchmark-only, never project dependencies. Install them into a separate venv:

    python3 -m venv .cache/peers-venv
    .cache/peers-venv/bin/pip install -r bench/perf/requirements-peers.txt
    python3 -m bench.perf.peers --sizes 10000 100000 [--peers-python .cache/peers-venv/bin/python]

Rewind runs with this Python; the peers with --peers-python. `--ann-sweep` builds nothing: it
queries the Rewind store and LanceDB ANN table an earlier run left, searching LanceDB ever
wider until its recall reaches 0.98, beside Rewind (LanceDB's build at 1M takes ~28 min).
Writes docs/benchmarks.md's `peers` section and docs/peers-p95.png (with Rewind's
bench/perf/scale.py results, if cached).
Unset OPENBLAS_CORETYPE for benchmark runs only (../shared/notes/eval-data.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from bench.common.corpus import bench_queries, passages
from bench.common.metrics import evaluate
from bench.common.report import (
    load_average,
    machine,
    quantile,
    table,
    today,
    update_section,
)
from bench.perf._peer_run import TUNED
from bench.perf.scale import DEFAULT_CACHE as SCALE_CACHE
from bench.perf.scale import Vectors, embedder

ROOT = Path(__file__).resolve().parents[2]

SYSTEMS = ("rewind", "lancedb-flat", "lancedb-ann", "lancedb-ann-tuned", "sqlite-vec")
CACHE = ROOT / ".cache" / "peers"
PLOT = ROOT / "docs" / "peers-p95.png"


def workload(n: int, log=print) -> Path:
    """Texts, vectors, queries and exact top 10s for n passages, written once."""
    work = CACHE / str(n) / "work"
    if (work / "done").exists():
        return work
    work.mkdir(parents=True, exist_ok=True)
    emb = embedder()
    vecs = Vectors(emb, log)
    rows = list(passages(n))
    with open(work / "texts.jsonl", "w") as fh:
        for _row, p in rows:
            fh.write(json.dumps({"doc": p.doc, "text": p.text}) + "\n")
    mat = vecs.rows(0, n)
    np.save(work / "vectors.npy", mat)
    queries = bench_queries()
    qvecs = np.stack([emb.embed_query(q.text) for q in queries]).astype(np.float32)
    np.save(work / "qvecs.npy", qvecs)
    (work / "queries.json").write_text(json.dumps([q.__dict__ for q in queries]))
    exact = np.argsort(-(qvecs @ mat.T), axis=1, kind="stable")[:, :10]
    np.save(work / "exact.npy", exact)
    (work / "done").write_text("")
    return work


def run(system: str, n: int, python: str, log=print) -> dict:
    dest = CACHE / str(n) / f"{system}.json"
    if dest.exists():
        return json.loads(dest.read_text())
    work = workload(n, log)
    log(f"{system} at {n:,} passages ...")
    result = score(peer_process(python, system, n, work)[-1], n, work)
    dest.write_text(json.dumps(result))
    log(json.dumps(result))
    return result


def peer_process(python: str, system: str, n: int, work: Path, *extra: str) -> list[dict]:
    """What bench/perf/_peer_run.py printed for `system` at `n` passages (a JSON line each)."""
    # The peers' own virtual environment has no Rewind installed: it finds the host's
    # source on PYTHONPATH, and `bench` from the checkout's root (the working directory).
    env = {**os.environ, "LANCEDB_LOG": "error", "PYTHONPATH": str(ROOT / "host")}
    folder = CACHE / str(n) / system.removesuffix("-reuse")
    out = subprocess.run([python, "-m", "bench.perf._peer_run", system, str(work),
                          str(folder), *extra], capture_output=True, text=True,
                         env=env, check=False, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit(f"{system} at {n} failed:\n{out.stderr[-3000:]}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


# LanceDB's ANN index searched ever wider until its recall reaches the target: its HNSW
# graphs' ef and exact rescoring of refine_factor x the candidates (at 1M, nprobes 40 to 500
# gave the same recall, 0.922: the graphs' ef is what limits it).
SWEEP = [TUNED,
         {"nprobes": 40, "ef": 1000, "refine_factor": 10},
         {"nprobes": 40, "ef": 2000, "refine_factor": 20},
         {"nprobes": 100, "ef": 4000, "refine_factor": 50}]


def sweep(n: int, python: str, target: float = 0.98, log=print) -> None:
    """LanceDB's tuned ANN table and Rewind's store, both as an earlier run built them (their
    build times are that run's), queried in one run: Rewind, LanceDB at each of `SWEEP`,
    Rewind again. Writes the `peers-ann-sweep` section."""
    work = CACHE / str(n) / "work"
    built = {s: json.loads((CACHE / str(n) / f"{s}.json").read_text())
             for s in ("rewind", "lancedb-ann-tuned")}
    rows, figures = [], []

    def add(label: str, raw: dict, build_s: float) -> dict:
        r = score(raw, n, work)
        figures.append(r)
        rows.append((label, f"{n:,}", build_s, r["p50_ms"], r["p95_ms"], r["dense_recall10"],
                     r["mrr10"], r["known_item_mrr10"], r["load_average"]))
        log(f"{label}: {json.dumps(r)}")
        return r

    first = add("rewind", peer_process(sys.executable, "rewind-reuse", n, work)[0],
                built["rewind"]["ingest_s"])
    for raw in peer_process(python, "lancedb-ann-tuned-reuse", n, work, json.dumps(SWEEP)):
        w = raw["settings"]
        add(f"lancedb ANN, nprobes {w['nprobes']}, ef {w['ef']}, refine {w['refine_factor']}",
            raw, built["lancedb-ann-tuned"]["ingest_s"])
    last = add("rewind, again", peer_process(sys.executable, "rewind-reuse", n, work)[0],
               built["rewind"]["ingest_s"])
    equal = [r for r in figures[1:-1] if r["dense_recall10"] >= target]
    ours = min(first["p95_ms"], last["p95_ms"]), max(first["p95_ms"], last["p95_ms"])
    verdict = (f"LanceDB's first setting at recall ≥ {target}: p95 {equal[0]['p95_ms']} ms "
               f"at recall {equal[0]['dense_recall10']}, against Rewind's {ours[0]}-{ours[1]} "
               f"ms at recall {first['dense_recall10']}." if equal else
               f"No setting tried brought LanceDB's recall to {target}.")
    update_section(f"peers-ann-sweep-{n}", "\n".join([
        f"## Rewind beside LanceDB's ANN index at equal recall, {n:,} passages "
        "(bench/perf/peers.py --ann-sweep)", "",
        f"{today()} · {machine()}", "",
        "The peers workload (previous section). Both stores as the peers run built them "
        "(build s: that run's ingest, with LanceDB's IVF_HNSW_SQ index), queried in one run, "
        "each in its own process, every query sent once untimed first (the files cached): "
        "Rewind, then LanceDB searched ever wider (nprobes of its partitions, HNSW ef, exact "
        "rescoring of refine_factor × the candidates), then Rewind again. Load: the 1-minute "
        "load average when its process ended.", "",
        table(("system", "passages", "build s", "hybrid p50 ms", "hybrid p95 ms",
               "dense recall@10", "FAQ MRR@10", "known-item MRR@10", "load"), rows), "",
        verdict, ""]))


def score(raw: dict, n: int, work: Path) -> dict:
    """One system's figures from what bench/perf/_peer_run.py printed."""
    queries = json.loads((work / "queries.json").read_text())
    exact = np.load(work / "exact.npy")
    scored = {}
    for kind in ("question", "known-item"):
        idx = [i for i, q in enumerate(queries) if q["kind"] == kind]
        scored[kind] = evaluate([(raw["ranked"][i], [queries[i]["gold"]]) for i in idx])
    return {
        "system": raw["system"], "passages": n, "ingest_s": raw["ingest_s"],
        "disk_mb": round(raw["disk_bytes"] / 2**20, 1), "peak_rss_mb": raw["peak_rss_mb"],
        "p50_ms": round(float(np.median(raw["ms"])), 2),
        "p95_ms": round(quantile(raw["ms"], 0.95), 2),
        "mrr10": round(scored["question"].mrr, 3), "ndcg10": round(scored["question"].ndcg, 3),
        "known_item_mrr10": round(scored["known-item"].mrr, 3),
        "load_average": round(load_average(), 1),
        "dense_recall10": round(float(np.mean([len(set(d) & set(e.tolist())) / 10 for d, e in
                                               zip(raw["dense"], exact, strict=True)])), 3),
    }


def scale_results() -> list[dict]:
    return sorted((json.loads(p.read_text()) for p in SCALE_CACHE.glob("*/result.json")),
                  key=lambda r: r["passages"])


def plot(results: list[dict], python: str) -> None:
    """docs/peers-p95.png with the peers' python (matplotlib is benchmark-only)."""
    points = [{"system": f"{r['system']} (bench/perf/peers.py)", "passages": r["passages"],
               "p95_ms": r["p95_ms"]} for r in results]
    points += [{"system": "rewind (bench/perf/scale.py)", "passages": r["passages"],
                "p95_ms": r["p95_ms"]} for r in scale_results()]
    subprocess.run([python, "-m", "bench.common.plot", str(PLOT)], cwd=ROOT,
                   input=json.dumps(points), text=True, check=True)


def report(results: list[dict]) -> None:
    ordered = sorted(results, key=lambda r: (r["passages"], r["system"]))
    rows = [(r["system"], f"{r['passages']:,}", r["ingest_s"], r["disk_mb"], r["peak_rss_mb"],
             r["p50_ms"], r["p95_ms"], r["dense_recall10"], r["mrr10"], r["ndcg10"],
             r["known_item_mrr10"], r.get("load_average", "?")) for r in ordered]
    ratios = []
    for n in sorted({r["passages"] for r in results}):
        ours = next((r for r in results if r["passages"] == n and r["system"] == "rewind"), None)
        for r in results:
            if ours and r["passages"] == n and r["system"] != "rewind":
                ratios.append(f"{n:,}: {r['system']} p95 / Rewind p95 = "
                              f"{r['p95_ms'] / ours['p95_ms']:.1f}×")
    header = ("system", "passages", "ingest s", "disk MB", "peak RSS MB", "p50 ms", "p95 ms",
              "dense recall@10", "FAQ MRR@10", "FAQ nDCG@10", "known-item MRR@10", "load")
    update_section("peers", "\n".join([
        "## Rewind beside its peers (bench/perf/peers.py)", "",
        f"{today()} · {machine()}", "",
        "The same passages (175 Python FAQ answers first, then real distractors), the same "
        "vectors (the real model's for the first 10,000, fitted synthetic after), the same "
        "200 queries with their vectors (query embedding excluded), each system in its own "
        "process. Hybrid search everywhere; dense recall@10: the vector search alone against "
        "exact float32 search. FAQ MRR/nDCG: the 175 questions; known-item: 25 queries of 3 "
        "rare words. Peers: LanceDB 0.40 (FTS + flat scan, or IVF_HNSW_SQ: defaults, or "
        "tuned = nprobes 40, ef 300, refine_factor 10), sqlite-vec 0.1.9 "
        "(vec0 brute force) + FTS5 fused with RRF k=60.", "",
        table(header, rows), "", *[f"- {x}" for x in ratios], "",
        f"![p95 against passages]({PLOT.name})", ""]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=SYSTEMS)
    ap.add_argument("--peers-python", default=str(ROOT / ".cache" / "peers-venv" / "bin"
                                                   / "python"))
    ap.add_argument("--ann-sweep", action="store_true",
                    help="query the stores an earlier run built: LanceDB's ANN ever wider "
                         "until recall 0.98, beside Rewind")
    args = ap.parse_args()
    if args.ann_sweep:
        for n in args.sizes:
            sweep(n, args.peers_python)
        return 0
    results = []
    for n in args.sizes:
        for system in args.systems:
            python = sys.executable if system == "rewind" else args.peers_python
            results.append(run(system, n, python))
    every = [json.loads(p.read_text()) for p in CACHE.glob("*/*.json")]
    report(every)
    plot(every, args.peers_python)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
