"""The real pages the content check is fitted and reported on (bench/common/real_pages.py): the fit
and held-out sources never overlap, the Wikipedia halves are disjoint, and cached page sets
read back as they were written. No network: the Wikipedia half is read from a file made
here."""

from __future__ import annotations

import json
from pathlib import Path

from bench.common import real_pages
from bench.common.real_pages import RealPage


def test_fit_and_held_out_sources_are_apart():
    fit, held = set(real_pages.names("fit")), set(real_pages.names("held-out"))
    assert fit and held and not fit & held
    assert fit | held == set(real_pages.SOURCES)
    packages = {s.package for s in real_pages.SOURCES.values() if s.split == "fit"}
    docs_held = {s.package for s in real_pages.SOURCES.values()
                 if s.split == "held-out" and not s.package.startswith("pypi:")}
    assert not packages & docs_held  # no documentation site on both sides


def test_wikipedia_halves_are_disjoint_and_complete(tmp_path: Path):
    source = real_pages.SOURCES["wiki-fit"]
    spec = source.package.removeprefix("pypi:").replace("==", "-")
    path = tmp_path / spec / source.html
    path.parent.mkdir(parents=True)
    titles = [f"Topic {i:02d}" for i in range(11)]
    path.write_text(json.dumps({t: {"extract": f"{t} is a subject. " * 8} for t in titles}))
    fit = real_pages.load("wiki-fit", "browser", tmp_path)
    held = real_pages.load("wiki-held-out", "browser", tmp_path)
    assert {p.id for p in fit} | {p.id for p in held} == set(titles)
    assert not {p.id for p in fit} & {p.id for p in held}
    assert all(p.passages and p.title == p.id for p in fit + held)


def test_cached_pages_read_back(tmp_path: Path):
    pages = [RealPage("django-docs", "file", "a.html", "A", ("one passage", "two")),
             RealPage("django-docs", "file", "b/c.html", "C — [email]", ("three",))]
    path = tmp_path / "django-docs.file.abc.jsonl"
    made = real_pages._cached(path, lambda: iter(pages))
    assert made == pages
    again = real_pages._cached(path, lambda: iter([]))  # read from the file, not made again
    assert again == pages
