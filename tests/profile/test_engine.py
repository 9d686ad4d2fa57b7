"""The engine end to end with the real model, real tantivy and real pages."""

import time

import numpy as np
import pytest
from rewind.capture.ingest import PageInput, PassageInput
from rewind.checks import profile_checks
from rewind.config import Settings
from rewind.errors import Code, RewindError
from rewind.models.embedder import FakeEmbedder
from rewind.profile.engine import Rewind
from rewind.profile.reembedding import reindex
from rewind.search import SearchQuery
from support.faq_pages import index_faq


@pytest.fixture(scope="module")
def faq_engine(tmp_path_factory, embedder, model_dir, python_docs):
    eng = Rewind.open(tmp_path_factory.mktemp("faq"), Settings(), embedder=embedder,
                      model_dir=model_dir)
    urls = index_faq(eng, python_docs)
    yield eng, urls
    eng.close()


@pytest.mark.parametrize(("query", "page"), [
    ("how do I turn a python script into a windows exe", "windows"),
    ("why are there separate tuple and list data types", "design"),
    ("freeze Tkinter applications", "gui"),
    ("is there a tool to find bugs or do static analysis", "programming"),
    ("what is the global interpreter lock", "library"),
    ("writing my own functions in C for python", "extending"),
])
def test_real_pages_right_page_first(faq_engine, query, page):
    eng, urls = faq_engine
    resp = eng.search(SearchQuery(query))
    assert resp.results, query
    assert resp.results[0].url == urls[page], [h.url for h in resp.results[:3]]
    top = resp.results[0]
    assert top.snippet and top.passage and top.confidence in ("high", "medium", "low")


def test_all_modes_and_filters(faq_engine):
    eng, urls = faq_engine
    for mode in ("hybrid", "semantic", "keyword"):
        assert eng.search(SearchQuery("tkinter", mode=mode)).results[0].url == urls["gui"]
    assert eng.search(SearchQuery("tkinter", domain="example.com")).results == []
    assert eng.search(SearchQuery("tkinter", since=time.time())).results == []
    assert eng.search(SearchQuery("tkinter", until=time.time())).results


def test_reindexing_the_same_page_changes_nothing(faq_engine, python_docs):
    eng, _urls = faq_engine
    store = eng.stores.writer
    before = (store.seq(), store.counts(), eng.text_index.num_docs())
    results = index_faq(eng, python_docs)
    assert results
    assert (store.seq(), store.counts(), eng.text_index.num_docs()) == before


def passages_of(eng, url):
    page = eng.stores.writer.page_by_url(url)
    return [p.text for _, _, p in eng.stores.writer.passages_of([page.id])] if page else []


def test_changed_page_leaves_no_trace_of_old_passages(engine):
    url = "https://example.org/notes"
    old = "The zyxquorp algorithm prunes neighbours in proximity graphs aggressively."
    new = "Sourdough bread needs a starter, flour, water and a long slow proof."
    engine.index_page(PageInput(url, "Notes", [PassageInput(old)], visited_at=1.0))
    old_ids = engine.stores.writer.passage_ids()
    assert engine.search(SearchQuery("zyxquorp", mode="keyword")).results
    res = engine.index_page(PageInput(url, "Notes", [PassageInput(new)], visited_at=2.0))
    assert res.status == "updated"
    assert passages_of(engine, url) == [new]
    assert not old_ids & engine.stores.writer.passage_ids()  # store
    assert engine.search(SearchQuery("zyxquorp", mode="keyword")).results == []  # tantivy
    assert not old_ids & engine.text_index.passage_ids()
    sem = engine.search(SearchQuery("zyxquorp proximity graph pruning", mode="semantic"))
    assert all(h.passage == new for h in sem.results)  # vectors: only the new passage left
    with engine.vectors.lock:
        vecs = engine.vectors.index().passage_ids.tolist()
    assert not old_ids & set(vecs) and len(vecs) == 1
    page = engine.stores.writer.page_by_url(url)
    assert page.visit_count == 2


def test_deleting_removes_from_all_three_stores(engine):
    for i, site in enumerate(("a.example.com", "b.example.com", "other.org")):
        engine.index_page(PageInput(f"https://{site}/p", f"Page {i}",
                                    [PassageInput(f"Distinctive qwerty{i} words about caching")],
                                    visited_at=1000.0 + i))
    assert engine.forget_url("https://a.example.com/p#frag") == 1
    assert engine.forget_domain("example.com") == 1  # b.example.com: subdomains included
    for i in range(2):
        assert not engine.search(SearchQuery(f"qwerty{i}", mode="keyword")).results
    hits = engine.search(SearchQuery("caching words", mode="semantic")).results
    assert [h.url for h in hits] == ["https://other.org/p"]
    assert engine.stores.writer.counts() == {"pages": 1, "passages": 1, "vectors": 1}
    assert engine.text_index.num_docs() == 1
    assert engine.forget_range(0, time.time()) == 1
    assert engine.search(SearchQuery("caching", mode="semantic")).results == []
    assert all(c.ok for c in profile_checks(engine) if c.name != "model all-minilm-l6-v2-int8")


def test_revisit_counts_without_reembedding(engine):
    url = "https://example.org/a"
    engine.index_page(PageInput(url, "A", [PassageInput("words about graph indexes here")],
                                visited_at=100.0, dwell_s=30))
    vec_before = engine.stores.writer.vectors_of(None, engine.model_id())[2].copy()
    assert engine.record_visit(url, 200.0, 15)
    assert engine.record_visit(url, 200.0, 15)  # a retried message counts once
    res = engine.index_page(PageInput(url, "A", [PassageInput("words about graph indexes here")],
                                      visited_at=300.0, dwell_s=5))
    assert res.status == "visit"
    page = engine.stores.writer.page_by_url(url)
    assert (page.visit_count, page.dwell_s, page.last_visit) == (3, 50.0, 300.0)
    np.testing.assert_array_equal(engine.stores.writer.vectors_of(None, engine.model_id())[2],
                                  vec_before)
    assert not engine.record_visit("https://example.org/unknown", 1.0)
    assert engine.record_visit(url, 300.0, 65)  # the same visit ends after 65 s of reading
    assert engine.stores.writer.page_by_url(url).dwell_s == 110.0
    hit = engine.search(SearchQuery("graph indexes")).results[0]
    assert hit.visit_count == 3 and hit.visited_at == 300.0 and hit.dwell_s == 110.0


def test_ingest_any_text(engine):
    text = "\n\n".join(f"Paragraph {i} on the subject of distributed consensus and Raft "
                       f"leader election, term {i}." for i in range(40))
    res = engine.ingest("notes-1", text, {"title": "Consensus notes"})
    assert res.url == "rewind://doc/notes-1" and res.passages > 2
    assert engine.search(SearchQuery("raft leader election")).results[0].url == res.url


def test_bad_input_stores_nothing(engine):
    with pytest.raises(RewindError) as err:
        engine.index_page(PageInput("not a url", "x", [PassageInput("some words here ok")]))
    assert err.value.code == Code.BAD_REQUEST
    with pytest.raises(RewindError) as err:
        engine.index_page(PageInput("https://x.org/", "x", [PassageInput("   ")]))
    assert err.value.code == Code.BAD_INPUT
    with pytest.raises(RewindError) as err:
        engine.index_page(PageInput("https://x.org/", "x", [PassageInput("w")] * 40))
    assert err.value.code == Code.TOO_LARGE
    with pytest.raises(RewindError):
        engine.ingest("big", "word " * 2_000_000)
    assert engine.stores.writer.counts() == {"pages": 0, "passages": 0, "vectors": 0}


def test_without_embedder_keyword_results_with_a_notice(tmp_path, model_dir):
    eng = Rewind.open(tmp_path / "d", Settings(), model_dir=tmp_path / "no-models")
    eng.index_page(PageInput("https://a.org/x", "T", [PassageInput("tantivy keeps working")]))
    resp = eng.search(SearchQuery("tantivy working"))
    assert resp.mode == "keyword" and resp.results
    assert "unavailable" in resp.notice and "build.py install" in resp.notice
    assert eng.stats()["unembedded_passages"] == 1  # embedded later by reindex
    eng.close()
    eng = Rewind.open(tmp_path / "d", Settings(), model_dir=model_dir)
    assert reindex(eng)["embedded_passages"] == 1
    assert eng.search(SearchQuery("search engine library", mode="semantic")).results
    eng.close()


def test_second_writer_gets_a_clear_error(tmp_path):
    import dataclasses

    settings = dataclasses.replace(Settings(), writer_lock_timeout_s=0.2)
    a = Rewind.open(tmp_path / "d", settings, embedder=FakeEmbedder())
    b = Rewind.open(tmp_path / "d", settings, embedder=FakeEmbedder())
    a.stores.file_lock.acquire()  # a is mid-write
    with pytest.raises(RewindError) as err:
        b.index_page(PageInput("https://a.org/", "t", [PassageInput("five words in this one")]))
    assert err.value.code == Code.STORE_LOCKED and "try again" in str(err.value)
    assert b.search(SearchQuery("words", mode="keyword")).results == []  # reads still work
    a.stores.file_lock.release()
    b.index_page(PageInput("https://a.org/", "t", [PassageInput("five words in this one")]))
    assert a.search(SearchQuery("words", mode="keyword")).results  # a sees b's write
    a.close()
    b.close()


def test_reindex_rebuilds_a_lost_text_index(tmp_path, embedder, model_dir):
    import shutil

    data = tmp_path / "d"
    eng = Rewind.open(data, Settings(), embedder=embedder, model_dir=model_dir)
    eng.index_page(PageInput("https://a.org/x", "T", [PassageInput("quokka habitats on islands")]))
    eng.close()
    shutil.rmtree(data / "text_index")  # derived data lost (or damaged)
    eng = Rewind.open(data, Settings(), embedder=embedder, model_dir=model_dir)
    assert eng.search(SearchQuery("quokka", mode="keyword")).results  # caught up on open
    shutil.rmtree(data / "text_index")
    ro = Rewind.open(data, Settings(), writer=False, embedder=embedder, model_dir=model_dir)
    assert not next(c for c in profile_checks(ro) if c.name == "text index").ok
    ro.close()
    assert reindex(eng)["text_docs"] == 1
    eng.close()
    ro = Rewind.open(data, Settings(), writer=False, embedder=embedder, model_dir=model_dir)
    assert next(c for c in profile_checks(ro) if c.name == "text index").ok
    ro.close()


def test_doctor_names_the_answering_model_or_its_absence(tmp_path, embedder):
    with Rewind.open(tmp_path / "data", Settings(), embedder=embedder,
                     model_dir=tmp_path / "no-models") as eng:
        check = next(c for c in profile_checks(eng) if c.name == "language model")
    assert check.ok and "extracts" in check.detail
