"""mcp/scoped.py: an AI tool's scope is part of retrieval's queries, not a filter afterwards.

Real MiniLM, real tantivy. A private site holds six pages closer to the query than the
one page the scope admits, and each retriever hands fusion only a few candidates: a scope
applied to results afterwards would find nothing in scope among them; applied in the
queries, it finds the admitted page. Search, build_context, ask and read_page all go
through the same view.
"""

from __future__ import annotations

import dataclasses
import time

import pytest
from rewind.answers.answer import Answerer
from rewind.capture.ingest import PageInput, PassageInput
from rewind.config import Settings
from rewind.index.store.page_filter import PageFilter
from rewind.mcp.scoped import ScopedRewind
from rewind.profile.engine import Rewind
from rewind.search import SearchQuery
from support.answer_fixtures import HNSW, NOW, index_pages

PRIVATE = "private.example"
QUERY = "draft notes on HNSW graphs"


def private_page(i: int) -> PageInput:
    text = (f"Note {i} on HNSW graphs: the heuristic pruning of neighbours keeps a "
            "neighbour only if it is closer to the new node than to every neighbour kept, "
            f"so pruning keeps HNSW graph neighbours diverse (draft {i}).")
    title = f"Draft notes on HNSW graphs, {i}"
    return PageInput(url=f"https://{PRIVATE}/hnsw-notes-{i}", title=title,
                     passages=[PassageInput(title, 0, 0.6), PassageInput(text, 1, 0.8)],
                     visited_at=NOW - 3600 * i)


@pytest.fixture(scope="module")
def eng(tmp_path_factory, embedder, model_dir):
    settings = dataclasses.replace(Settings(), candidates_per_retriever=3)
    e = Rewind.open(tmp_path_factory.mktemp("scoped"), settings, embedder=embedder,
                    model_dir=model_dir)
    index_pages(e)
    for i in range(6):
        e.index_page(private_page(i))
    yield e
    e.close()


def test_out_of_scope_pages_outrank_the_admitted_one_without_a_scope(eng):
    """The premise: unscoped, every candidate of both retrievers is a private page."""
    with eng.searcher() as s:
        hits = s.passages(SearchQuery(QUERY)).hits
        pages = s.pages({h.page_id for h in hits})
    assert hits and all(p.domain == PRIVATE for p in pages.values())


def test_the_scope_is_in_the_query_so_the_admitted_page_is_found(eng):
    view = ScopedRewind(eng, PageFilter(not_sites=(PRIVATE,)))
    with view.searcher() as s:
        hits = s.passages(SearchQuery(QUERY)).hits
        pages = s.pages({h.page_id for h in hits})
    assert HNSW in {p.url for p in pages.values()}
    assert all(p.domain != PRIVATE for p in pages.values())
    resp = view.search(SearchQuery(QUERY))
    assert resp.results[0].url == HNSW
    assert all(PRIVATE not in h.url for h in resp.results)


def test_sites_included_and_the_time_window(eng):
    only_private = ScopedRewind(eng, PageFilter(sites=(PRIVATE,)))
    assert {h.url.split("/")[2] for h in only_private.search(SearchQuery(QUERY)).results} \
        == {PRIVATE}
    # the fixture pages were read 1-5 days before NOW, the private ones within 12 hours
    window = ScopedRewind(eng, PageFilter(since=NOW - 86400 / 2))
    urls = [h.url for h in window.search(SearchQuery("sourdough starter hooch")).results]
    assert all(PRIVATE in u for u in urls)


def test_every_way_in_goes_through_the_scope(eng, gguf_tokenizer):
    view = ScopedRewind(eng, PageFilter(not_sites=(PRIVATE,)))
    answerer = Answerer(view, model=None)  # extracts: no language model needed here
    answerer._tokenizer = gguf_tokenizer
    built = answerer.build_context(QUERY, None, 400)
    assert built.sources and all(PRIVATE not in s.url for s in built.sources)
    r = answerer.ask("How does HNSW prune the neighbours of a node?", extractive=True)
    assert r.sources and all(PRIVATE not in s["url"] for s in r.sources)
    assert view.page(HNSW) is not None
    assert view.page(f"https://{PRIVATE}/hnsw-notes-0") is None  # as if not stored
    assert eng.page_info(f"https://{PRIVATE}/hnsw-notes-0") is not None  # it is stored
    recent = view.recent(PageFilter(since=0), 50)
    assert recent and all(p.domain != PRIVATE for p in recent)


def test_a_scoped_searcher_guards_records_read_by_id(eng):
    """Retrieval never hands out an out-of-scope id; a caller that has one anyway (an id
    from elsewhere) gets nothing for it."""
    with eng.searcher() as s:
        private_ids = {h.page_id for h in s.passages(SearchQuery(QUERY)).hits}
        passage_ids = [h.passage_id for h in s.passages(SearchQuery(QUERY)).hits]
    with eng.searcher(PageFilter(not_sites=(PRIVATE,))) as s:
        assert s.pages(private_ids) == {}
        assert s.passage_records(passage_ids) == {}


def test_the_window_moves_with_the_clock(eng):
    from rewind.mcp.access import ClientAccess

    a = ClientAccess("t", "T", enabled=True, window_days=1)
    assert a.scope(now=NOW).since == pytest.approx(NOW - 86400)
    assert a.scope(now=time.time()).since > NOW
    assert ClientAccess("t", "T", enabled=True, window_days=0).scope(now=NOW).since is None
