"""Real, offline evaluation data for the benchmarks: the Python FAQ as question/answer pairs.

Job: fetch a Debian documentation package (`python3.11-doc` for the FAQ) with the system's
own apt client into a cache folder, read its `faq/*.html` into (question, answer) pairs (the
parsing rules: bench/common/faq_html.py), and derive known-item queries (a few rare words
remembered from an answer). Never: download anything but the named packages, write outside
the cache folder, or need a third-party HTML library (the standard html.parser does).

`FaqPair` and `parse_faq_html` (bench/common/faq_html.py) are importable from here too.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import filelock

from bench.common.faq_html import FaqPair, parse_faq_html

PACKAGE = "python3.11-doc"
HTML_SUBDIR = Path("usr/share/doc/python3.11/html")


def default_cache() -> Path:
    """$REWIND_EVAL_CACHE, else <repo>/.cache/eval-data (ignored by git)."""
    env = os.environ.get("REWIND_EVAL_CACHE")
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[2] / ".cache" / "eval-data"


class EvalDataError(RuntimeError):
    """The evaluation data could not be fetched; the message says what to install or run."""


# ----------------------------------------------------------------------------- fetching


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def python_docs(cache: Path | None = None) -> Path:
    """Return the html root of the Python 3.11 docs, fetching the Debian package once.

    Idempotent: when the extracted tree is in the cache, returns at once without apt.
    """
    return debian_package(PACKAGE, HTML_SUBDIR / "faq", cache).joinpath(HTML_SUBDIR)


def debian_package(package: str, expect: Path, cache: Path | None = None) -> Path:
    """Return the folder where Debian package `package` is extracted (fetched once with
    `apt-get download` + `dpkg-deb -x`); `expect`, a path inside the package, must exist."""
    cache = Path(cache) if cache is not None else default_cache()
    dest = cache / package
    done = dest / ".complete"
    if done.exists() and (dest / expect).exists():
        return dest

    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise EvalDataError(
                f"`{tool}` is not available, so the {package} package cannot be fetched. "
                f"Run the benchmarks on a Debian/Ubuntu machine, or extract the package "
                f"yourself into {dest} (so that {dest / expect} exists) and create {done}."
            )

    cache.mkdir(parents=True, exist_ok=True)
    # Tests and benchmarks may fetch at the same time: one fetches, the others wait.
    with filelock.FileLock(str(cache / f".{package}.lock")):
        if done.exists() and (dest / expect).exists():
            return dest
        _fetch(cache, dest, package, expect)
    return dest


def _fetch(cache: Path, dest: Path, package: str, expect: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="rewind-eval-", dir=cache) as tmp_s:
        tmp = Path(tmp_s)
        got = _run(["apt-get", "download", package], tmp)
        if got.returncode != 0:
            # The package lists may be missing or stale: refresh once, then retry.
            upd = _run(["apt-get", "update"], tmp)
            got = _run(["apt-get", "download", package], tmp)
            if got.returncode != 0:
                raise EvalDataError(
                    f"`apt-get download {package}` failed: {got.stderr.strip()[-500:]}"
                    + (
                        f"\n(apt-get update also failed: {upd.stderr.strip()[-300:]})"
                        if upd.returncode != 0
                        else ""
                    )
                    + f"\nCheck the apt sources, or install the package "
                    f"(`apt-get install {package}`) and copy its files under {dest}."
                )
        debs = sorted(tmp.glob(f"{package}_*.deb"))
        if not debs:
            raise EvalDataError(f"apt-get reported success but no {package} .deb appeared")
        staging = tmp / "x"
        ext = _run(["dpkg-deb", "-x", str(debs[-1]), str(staging)], tmp)
        if ext.returncode != 0:
            raise EvalDataError(f"`dpkg-deb -x` failed: {ext.stderr.strip()[-500:]}")
        if not (staging / expect).exists():
            raise EvalDataError(f"{debs[-1].name} has no {expect}")
        if dest.exists():
            shutil.rmtree(dest)
        # Move the finished tree in one step, so a crash never leaves a half tree marked done.
        staging.rename(dest)
        (dest / ".complete").write_text(debs[-1].name + "\n")


# ----------------------------------------------------------------------------- pairs


def faq_pairs(html_root: Path) -> list[FaqPair]:
    """Question/answer pairs of every faq/*.html page under the docs' html root (sorted)."""
    faq = Path(html_root) / "faq"
    if not faq.is_dir():
        raise EvalDataError(f"{faq} does not exist: call python_docs() first")
    pairs: list[FaqPair] = []
    for f in sorted(faq.glob("*.html")):
        pairs.extend(parse_faq_html(f.read_text(encoding="utf-8"), f.stem))
    ids = [p.doc_id for p in pairs]
    if len(set(ids)) != len(ids):
        raise EvalDataError("duplicate FAQ section ids: the parser or the docs changed")
    return pairs


# ----------------------------------------------------------------------------- queries

# English function words plus words every FAQ answer uses; a query made of them is not
# "something remembered from the page". Our own list, kept short on purpose.
_STOPWORD_TEXT = """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn doing
    don down during each either else etc even ever every few for from further get gets got had
    hadn has hasn have haven having he her here hers herself him himself his how however if in
    into is isn it its itself just let like may me might more most much must mustn my myself
    need no nor not now of off often on once one only or other others ought our ours ourselves
    out over own same shall shan she should shouldn since so some such than that the their
    theirs them themselves then there these they this those though through thus to too under
    until up upon us use used uses using very via was wasn way we well were weren what when
    where whether which while who whom whose why will with within without won would wouldn yes
    yet you your yours yourself yourselves"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_TOKEN = re.compile(r"[a-z][a-z0-9]*")
MIN_TERM_LEN = 4  # "very short tokens" (ids like x, f, os) are poor remembered words


def terms(text: str) -> list[str]:
    """Lower-cased alphanumeric words as a keyword index sees them (split on '_', '.', etc.)."""
    return _TOKEN.findall(text.lower())


def _candidate_terms(text: str) -> set[str]:
    return {t for t in terms(text) if len(t) >= MIN_TERM_LEN and t not in STOPWORDS}


@dataclass(frozen=True)
class Query:
    text: str
    gold: str  # FaqPair.doc_id of the relevant answer


def question_queries(pairs: list[FaqPair]) -> list[Query]:
    """The FAQ headings as queries; gold = their own answer."""
    return [Query(p.question, p.doc_id) for p in pairs]


def known_item_queries(
    pairs: list[FaqPair], n_terms: int = 3, seed: int = 0, pool: int = 8
) -> list[Query]:
    """Known-item simulation: a few of an answer's rarest words as the query; gold = the answer.

    Terms are ranked by document frequency over the answers (rarest first; ties broken by
    higher frequency inside the answer, then alphabetically, so the ranking is deterministic),
    and `n_terms` are sampled from the `pool` rarest with a seeded RNG per answer. Words are
    kept in the order they first appear in the answer, as a person would recall them.
    """
    if not 1 <= n_terms <= 10:
        raise ValueError("n_terms must be between 1 and 10")
    cands = [_candidate_terms(p.answer_text) for p in pairs]
    df: Counter[str] = Counter()
    for c in cands:
        df.update(c)
    out: list[Query] = []
    for i, (p, c) in enumerate(zip(pairs, cands, strict=True)):
        if not c:
            continue
        toks = terms(p.answer_text)
        tf = Counter(toks)
        ranked = sorted(c, key=lambda t: (df[t], -tf[t], t))
        top = ranked[: max(pool, n_terms)]
        rng = random.Random(f"{seed}:{i}")  # per-answer stream: stable if pairs are added
        chosen = set(rng.sample(top, min(n_terms, len(top))))
        first = {t: toks.index(t) for t in chosen}
        out.append(Query(" ".join(sorted(chosen, key=first.__getitem__)), p.doc_id))
    return out
