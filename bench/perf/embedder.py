"""Embedding throughput and memory: OnnxEmbedder.embed_documents vs a raw onnxruntime loop.

Job: embed N passages of 200 words (real prose: standard-library docstrings) at batch sizes
8/16/32, once through `OnnxEmbedder` (length-sorted batches, padding to each batch's longest)
and once through a plain loop (input order, the same tokenizer truncation and padding, mean
pooling in numpy), each configuration in a fresh process so its peak RSS is its own.
Prints a markdown table; `--write` puts it in docs/benchmarks.md (section "embedder").
Never: download anything; it needs the offline default model installed (build.py install).

    .venv/bin/python -m bench.perf.embedder [--n 128] [--write]
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

MODEL = "all-minilm-l6-v2-int8"
WORDS_PER_PASSAGE = 200  # Settings.max_passage_words
MODULES = [
    "argparse",
    "asyncio.events",
    "asyncio.tasks",
    "collections",
    "email.message",
    "http.client",
    "json",
    "logging",
    "pathlib",
    "typing",
    "unittest.case",
    "subprocess",
    "threading",
    "functools",
    "os",
    "re",
    "shutil",
    "tarfile",
    "zipfile",
    "decimal",
    "statistics",
    "inspect",
    "textwrap",
    "datetime",
    "calendar",
]  # noqa: E501


def passages(n: int) -> list[str]:
    """n passages of 200 words of English prose from standard-library docstrings."""
    words: list[str] = []
    for name in MODULES:
        mod = importlib.import_module(name)
        for obj in [mod] + [obj for _, obj in inspect.getmembers(mod)]:
            doc = inspect.getdoc(obj) if inspect.ismodule(obj) or callable(obj) else None
            if doc:
                words += doc.split()
    words = [w for w in words if w]
    need = n * WORDS_PER_PASSAGE
    if len(words) < need:
        words = (words * (need // len(words) + 1))[:need]
    return [" ".join(words[i : i + WORDS_PER_PASSAGE]) for i in range(0, need, WORDS_PER_PASSAGE)]


def run_ours(texts: list[str], batch: int, model_dir: Path) -> float:
    from rewind.config import Settings
    from rewind.models.multilingual import open_embedder

    settings = dataclasses.replace(Settings(), embed_batch_size=batch)
    emb = open_embedder(settings, model_dir)
    emb.embed_documents(texts[:batch])  # warm-up
    t0 = time.perf_counter()
    emb.embed_documents(texts)
    return time.perf_counter() - t0


def run_raw(texts: list[str], batch: int, model_dir: Path) -> float:
    import numpy as np
    import onnxruntime as ort
    from rewind.config import Settings
    from rewind.models import specs
    from tokenizers import Tokenizer

    spec = specs.embedding_spec(MODEL)
    path = specs.model_path(spec, model_dir)
    tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    tok.enable_truncation(spec.max_tokens)
    tok.enable_padding(pad_id=spec.pad_id, pad_token=spec.pad_token)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = Settings().onnx_threads
    sess = ort.InferenceSession(str(path / "model.onnx"), opts, providers=["CPUExecutionProvider"])

    def embed(chunk: list[str]) -> np.ndarray:
        encs = tok.encode_batch(chunk)
        ids = np.array([e.ids for e in encs], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (h,) = sess.run(["last_hidden_state"], feeds)
        m = mask[..., None].astype(np.float32)
        v = (h * m).sum(1) / m.sum(1)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    embed(texts[:batch])  # warm-up
    t0 = time.perf_counter()
    for i in range(0, len(texts), batch):
        embed(texts[i : i + batch])
    return time.perf_counter() - t0


def one(kind: str, batch: int, n: int, model_dir: Path) -> dict[str, float]:
    texts = passages(n)
    secs = (run_ours if kind == "ours" else run_raw)(texts, batch, model_dir)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return {"passages_per_s": n / secs, "seconds": secs, "peak_rss_mb": rss_mb}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=128, help="passages per configuration")
    ap.add_argument("--batches", default="8,16,32")
    ap.add_argument("--model-dir", type=Path, default=None, help="default: $REWIND_MODEL_DIR")
    ap.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    ap.add_argument("--one", nargs=2, metavar=("KIND", "BATCH"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    from rewind import config
    from rewind.models import installed, specs

    model_dir = args.model_dir or config.model_dir()
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), args.n, model_dir)))
        return 0
    st = installed.status(specs.embedding_spec(MODEL), model_dir)
    if not st.installed:
        print(f"{MODEL}: {st.summary}", file=sys.stderr)
        return 1

    load_before = os.getloadavg()[0]
    rows = []
    for batch in [int(b) for b in args.batches.split(",")]:
        row: list[object] = [batch]
        for kind in ("ours", "raw"):
            cmd = [sys.executable, "-m", "bench.perf.embedder", "--n", str(args.n)]
            cmd += ["--model-dir", str(model_dir), "--one", kind, str(batch)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            row += [f"{r['passages_per_s']:.1f}", f"{r['peak_rss_mb']:.0f}"]
        rows.append(row)
        print(rows[-1], file=sys.stderr)

    from bench.common import report

    header = ["batch", "OnnxEmbedder p/s", "peak RSS MB", "raw loop p/s", "raw peak RSS MB"]
    body = (
        f"## Embedding throughput ({MODEL}, {report.today()})\n\n"
        f"{args.n} passages of {WORDS_PER_PASSAGE} words (standard-library docstrings; "
        f"truncated at 256 tokens), intra_op_num_threads={config.Settings().onnx_threads}, "
        "one fresh process per row and column. Raw loop: input order, tokenizer padding "
        "to each batch's longest, numpy mean pooling.\n\n"
        f"{report.table(header, rows)}\n\nMachine: {report.machine()}; 1-minute load "
        f"average {load_before:.1f} before and {os.getloadavg()[0]:.1f} after (the cores are "
        "shared: compare the columns of a row, not runs on different days).\n"
    )
    print(body)
    if args.write:
        print(f"wrote {report.update_section('embedder', body)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
