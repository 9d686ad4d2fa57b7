"""History visits as "visited, not read" pages: cleaning (visits.py) and, through the real
engine (tantivy, SQLite, the capture gate), the import and the backfill of their text."""

from __future__ import annotations

import dataclasses

import pytest
from rewind.capture.ingest import PageInput
from rewind.capture.visits import VisitInput, address_words, merged, prepare_visit
from rewind.config import Settings
from rewind.errors import RewindError
from rewind.profile.engine import Rewind
from rewind.search import SearchQuery

T0 = 1_760_000_000.0


def visit(url: str, title: str = "", first: float = T0, last: float = T0 + 60, n: int = 2):
    return VisitInput(url, title, first, last, n)


def test_a_visit_is_cleaned_like_a_page():
    v = prepare_visit(visit("https://Blog.Example/a?utm_source=x#top",
                            "Inbox \x07of maya@example.com"), Settings())
    assert v.url == "https://blog.example/a"
    assert v.domain == "blog.example"
    assert "\x07" not in v.title and "maya@example.com" not in v.title
    assert v.passage.is_title and v.passage.text == v.title
    assert (v.first_visit, v.last_visit, v.visit_count) == (T0, T0 + 60, 2)


def test_a_page_without_a_title_is_found_by_its_address():
    v = prepare_visit(visit("https://docs.python.org/3/tutorial/data-structures.html"),
                      Settings())
    assert v.title == ""
    assert v.passage.text == "docs.python.org › 3 › tutorial › data structures html"
    assert address_words("https://x.example/") == "x.example"


@pytest.mark.parametrize("bad", [
    visit("javascript:alert(1)"),
    visit("https://x.example/", first=float("nan")),
    visit("https://x.example/", last=-5),
])
def test_bad_visits_are_refused(bad):
    with pytest.raises(RewindError):
        prepare_visit(bad, Settings())


def test_a_first_visit_after_the_last_is_not_believed():
    v = prepare_visit(visit("https://x.example/", first=T0 + 999, last=T0), Settings())
    assert v.first_visit == v.last_visit == T0


def test_merging_keeps_the_widest_visits_and_never_a_lesser_count():
    v = prepare_visit(visit("https://x.example/", "X", first=T0, last=T0 + 10, n=3), Settings())
    new = merged(None, v, now=T0 + 100)
    assert new.source == "history" and not new.read and new.visit_count == 3
    read = dataclasses.replace(new, source="browser", first_visit=T0 + 5, last_visit=T0 + 50,
                               visit_count=7, dwell_s=30.0)
    out = merged(read, v, now=T0 + 100)
    assert (out.first_visit, out.last_visit, out.visit_count) == (T0, T0 + 50, 7)
    assert out.source == "browser" and out.dwell_s == 30.0  # a read page stays read
    assert merged(out, v, now=T0 + 200) is None  # nothing new: nothing written


# ---- through the real engine ---------------------------------------------------------------


@pytest.fixture
def engine(tmp_path, model_dir):
    with Rewind.open(tmp_path / "data", Settings(), model_dir=model_dir) as eng:
        yield eng


def titles(eng: Rewind, query: str, mode: str = "keyword") -> list[tuple[str, bool]]:
    hits = eng.search(SearchQuery(query, mode=mode, limit=10)).results
    return [(h.title, h.read) for h in hits]


def test_imported_visits_are_searchable_at_once_and_the_bank_is_not_kept(engine):
    report = engine.import_visits([
        visit("https://www.chase.com/personal/checking", "Chase checking account summary"),
        visit("https://blog.example/hnsw", "Pruning neighbours in HNSW graphs"),
        visit("https://blog.example/ivf", "Inverted file indexes explained"),
        visit("https://blog.example/ivf#part-2", "Inverted file indexes explained"),
        visit("ftp://old.example/file", "An old file"),
    ])
    assert report["imported"] == 2 and report["unchanged"] == 1
    assert report["skipped"] == {"finance": 1, "not a web address": 1}
    assert titles(engine, "pruning neighbours") == [("Pruning neighbours in HNSW graphs", False)]
    assert titles(engine, "chase checking") == []
    assert report["pending"] == [
        {"url": "https://blog.example/hnsw", "last_visit": T0 + 60},
        {"url": "https://blog.example/ivf", "last_visit": T0 + 60}]  # once, though sent twice
    lines = engine.audit.path.read_text()
    assert '"event":"imported"' in lines and "Pruning" not in lines


def test_a_backfilled_text_fills_in_the_page_and_counts_no_visit(engine):
    engine.import_visits([visit("https://blog.example/hnsw", "HNSW notes", n=4)])
    text = ("Graph indexes keep a small set of diverse neighbours for every node, and the "
            "RNG-pruning heuristic decides which ones to drop when a list is full.")
    r = engine.index_page(PageInput("https://blog.example/hnsw", "HNSW notes", text=text,
                                    visited_at=T0 + 60, read=False))
    assert r.status == "updated"
    page = engine.reader().page_by_url("https://blog.example/hnsw")
    assert (page.visit_count, page.dwell_s, page.read) == (4, 0.0, False)
    assert titles(engine, "RNG-pruning heuristic") == [("HNSW notes", False)]
    again = engine.import_visits([visit("https://blog.example/hnsw", "HNSW notes", n=4)])
    assert again["unchanged"] == 1 and again["pending"] == []  # its text is in
    # The person reads it in a tab: a read page now, with a visit of its own.
    engine.index_page(PageInput("https://blog.example/hnsw", "HNSW notes", text=text,
                                visited_at=T0 + 500, dwell_s=40))
    page = engine.reader().page_by_url("https://blog.example/hnsw")
    assert (page.visit_count, page.read) == (5, True)


def test_text_for_a_page_no_longer_imported_is_not_stored(engine):
    engine.import_visits([visit("https://blog.example/gone", "Soon forgotten")])
    engine.forget_url("https://blog.example/gone")
    r = engine.index_page(PageInput("https://blog.example/gone", "Soon forgotten",
                                    text="This text was loaded after the person forgot it.",
                                    visited_at=T0 + 60, read=False))
    assert r.page_id is None and r.status == "skipped"
    assert engine.reader().page_by_url("https://blog.example/gone") is None
    # ... and importing the same history again does not bring it back either.
    again = engine.import_visits([visit("https://blog.example/gone", "Soon forgotten")])
    assert again["skipped"] == {"forgotten": 1} and titles(engine, "forgotten") == []
