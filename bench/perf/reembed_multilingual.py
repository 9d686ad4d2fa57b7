"""Re-embedding with the multilingual model: how long the background job takes to give N
passages multilingual-e5-small vectors, and what each runtime knob changes.

Job: the Debian Reference 2.100 in English and six translations (bench/common/lang_devsets.py:
every section's whole text, the languages interleaved so that any sample has the same mix),
ingested as pages by the real engine (its chunker cuts the passages) with the fake
embedder, which costs nothing; then the re-embedding job (reembedding.py: batches read
from the store, embedded, written in one transaction each; the old vectors deleted) moves
the store to multilingual-e5-small, timed, with the embedder loaded beforehand. When the
sections give fewer passages than asked, they are ingested again under other URLs (the
same texts: embedding costs what a text's length costs, nothing is cached). Each variant
(`--variant name:knob=value,...`: Settings knobs, e.g. reembed_batch, embed_batch_size,
onnx_threads; or model_dir=PATH, batch_tokens=N) runs on its own copy of the store, one
after another; the load average is read before and after each. Writes the
`reembed-multilingual` section of docs/benchmarks.md (with --write).

Never: touch the user's data directory.

Run: .venv/bin/python -m bench.perf.reembed_multilingual --passages 1000
         [--variant base: --variant big:reembed_batch=256 ...] [--write]
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import lang_devsets, report

NAME = "multilingual-e5-small"
LANGS = ("en", "de", "fr", "es", "ja", "zh", "it")
# Variant knobs that are not Settings: another model folder (e.g. a graph converted by an
# older e5_convert.py, to time before and after in one run) and E5Embedder.batch_tokens.
EMBEDDER_KNOBS = {"model_dir": str, "batch_tokens": int}


def texts_by_language(cache: Path | None) -> list[tuple[str, str]]:
    """(language, section text) of every section with text, the languages interleaved."""
    per: dict[str, list[str]] = {}
    for lang in LANGS:
        sections, _files = lang_devsets._read(lang_devsets.LANGS.get(lang, "en"), cache, False)
        per[lang] = [s.text for s in sections.values() if len(s.text.split()) >= 5
                     or len(s.text) >= 40]
    out = []
    for i in range(max(map(len, per.values()))):
        out += [(lang, per[lang][i]) for lang in LANGS if i < len(per[lang])]
    return out


def build(data_dir: Path, n: int, texts: list[tuple[str, str]]) -> dict[str, int]:
    """A store of at least `n` passages with fake vectors; passages per language."""
    import rewind.profile.engine
    from rewind.config import Settings
    from rewind.models.embedder import FakeEmbedder

    per: dict[str, int] = {}
    total, round_ = 0, 0
    settings = Settings(max_pages_per_domain=Settings().max_limit)
    with rewind.profile.engine.Rewind.open(data_dir, settings, embedder=FakeEmbedder()) as eng:
        while total < n:
            for i, (lang, text) in enumerate(texts):
                res = eng.ingest(f"https://debian-reference.example/{round_}/{lang}/{i}", text,
                                 {"title": "", "visited_at": time.time() - 86400})
                per[lang] = per.get(lang, 0) + res.passages
                total += res.passages
                if total >= n:
                    break
            round_ += 1
    return per


def run_job(data_dir: Path, knobs: dict[str, Any], model_dir: Path) -> dict[str, float]:
    """The job moving the store at `data_dir` to the multilingual model, with `knobs`."""
    import rewind.profile.engine
    import rewind.profile.reembedding
    from rewind.config import Settings
    from rewind.models import specs
    from rewind.models.multilingual import E5Embedder

    knobs = dict(knobs)
    model_dir = Path(knobs.pop("model_dir", model_dir))
    batch_tokens = knobs.pop("batch_tokens", None)
    base = Settings(max_pages_per_domain=Settings().max_limit)
    settings = dataclasses.replace(base, **knobs)
    spec = specs.embedding_spec(NAME)
    e5 = E5Embedder(spec, model_dir, settings)
    if batch_tokens is not None:  # 0: runs of embed_batch_size whatever their lengths
        e5.batch_tokens = batch_tokens or 1 << 30
    e5.embed_documents(["warm up"])
    with rewind.profile.engine.Rewind.open(data_dir, settings, model_dir=model_dir) as eng:
        n = eng.reader().passage_count()
        job = rewind.profile.reembedding.Reembedder(eng, background=False,
                                            make_embedder=lambda _mid: e5)
        load0 = report.load_average()
        c0, t0 = time.process_time(), time.perf_counter()
        job.start(e5.model_id)
        job.run()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert eng.model_id() == e5.model_id, eng.model_id()
    return {"passages": n, "wall_s": wall, "cpu_s": cpu, "load0": load0,
            "load1": report.load_average()}


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    from rewind.config import Settings

    name, _, rest = text.partition(":")
    knobs: dict[str, Any] = {}
    defaults = Settings()
    for part in filter(None, rest.split(",")):
        key, _, value = part.partition("=")
        if key in EMBEDDER_KNOBS:
            knobs[key] = EMBEDDER_KNOBS[key](value)
        else:
            knobs[key] = type(getattr(defaults, key))(value)
    return name, knobs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--passages", type=int, default=1000)
    ap.add_argument("--variant", action="append", default=None,
                    help="name:knob=value,...  (default: the settings as they are)")
    ap.add_argument("--model-dir", type=Path, default=None)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    from rewind import config

    model_dir = args.model_dir or config.model_dir()
    variants = [parse_variant(v) for v in (args.variant or ["defaults:"])]
    t_all = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="rewind-reembed-ml-") as tmp:
        seed = Path(tmp) / "seed"
        per = build(seed, args.passages, texts_by_language(None))
        print(f"store: {sum(per.values())} passages {per}", file=sys.stderr, flush=True)
        for name, knobs in variants:
            d = Path(tmp) / name
            shutil.copytree(seed, d)
            r = run_job(d, knobs, model_dir)
            shutil.rmtree(d)
            r["per_s"] = r["passages"] / r["wall_s"]
            r["per_cpu_s"] = r["passages"] / r["cpu_s"]
            r["10k_min"] = 10_000 / r["per_s"] / 60
            print(f"{name} {knobs}: {r}", file=sys.stderr, flush=True)
            rows.append((name, knobs, r))
    body = render(rows, per, time.perf_counter() - t_all)
    print(body)
    if args.write:
        print(f"wrote {report.update_section('reembed-multilingual', body)}", file=sys.stderr)
    return 0


def render(rows: list, per: dict[str, int], took_s: float) -> str:
    lines = [
        "## Re-embedding with the multilingual model (bench/perf/reembed_multilingual.py)", "",
        f"{report.today()} · {report.machine()} · {took_s:.0f} s in all", "",
        "The re-embedding job (reembedding.py) moving a store to multilingual-e5-small (the "
        "int8 ONNX graph): Debian Reference sections in seven languages as the engine chunks "
        "them, passages per language " + ", ".join(f"{k} {v}" for k, v in per.items())
        + "; each variant on its own copy of the store, one after another. Minutes for "
        "10,000 passages are extrapolated from the passages a second of that run.", "",
    ]
    header = ["variant", "knobs", "passages", "wall s", "passages/s", "passages/CPU-s",
              "10k passages, min", "load before / after"]
    table = [[name, ", ".join(f"{k}={v}" for k, v in knobs.items()) or "defaults",
              str(r["passages"]), f"{r['wall_s']:.0f}", f"{r['per_s']:.1f}",
              f"{r['per_cpu_s']:.1f}", f"{r['10k_min']:.1f}",
              f"{r['load0']:.1f} / {r['load1']:.1f}"] for name, knobs, r in rows]
    lines += [report.table(header, table), ""]
    if len(rows) > 1:
        best = max(rows, key=lambda row: row[2]["per_cpu_s"])
        median = statistics.median(r["per_cpu_s"] for *_x, r in rows)
        lines += [f"Most passages a CPU-second: {best[0]} (median of all runs {median:.1f})."]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
