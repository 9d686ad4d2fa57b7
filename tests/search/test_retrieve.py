"""search/retrieve.py: when the words decide a hybrid search's fusion; BM25 on the worker."""

import dataclasses
import time

import pytest
from rewind.config import Settings
from rewind.index.derived.vectors import VectorIndex
from rewind.index.store.store import Store
from rewind.models.specs import Confidence, load_specs
from rewind.search import SearchQuery
from rewind.search.retrieve import PassageQuery, Searcher


def searcher(confidence: Confidence) -> Searcher:
    return Searcher(store=None, text_index=None, vectors=None, embed_query=None,
                    confidence=confidence, settings=Settings())


@pytest.mark.parametrize(("query", "english_model", "multilingual_model"), [
    ("パッケージ管理の基本", True, False),  # a Japanese heading: MiniLM's cosines are noise
    ("系统初始化和服务管理", True, False),
    ("Debian のパッケージ", True, False),  # mixed: the Japanese part is still unread
    ("RNG-pruning HNSW", True, True),  # a few remembered words, for every model
    ("how does the package manager resolve dependencies", False, False),
    ("Gestión del sistema", False, False),
])
def test_a_script_the_model_cannot_read_leaves_the_decision_to_the_words(
        query, english_model, multilingual_model):
    models = load_specs().embedding
    assert searcher(models["all-minilm-l6-v2-int8"].confidence)._words_decide(query) \
        is english_model
    assert searcher(models["multilingual-e5-small"].confidence)._words_decide(query) \
        is multilingual_model


def test_a_hybrid_search_runs_bm25_on_the_worker_and_finds_the_same(history):
    """BM25 beside the dense stages (the engine's worker thread) or before them: one result."""
    import threading

    ran_on: list[str] = []
    search = history.text_index.search

    def spy(*args, **kwargs):
        ran_on.append(threading.current_thread().name)
        return search(*args, **kwargs)

    history.text_index.search = spy
    worker = history._keyword_worker
    try:
        for query in ("keep a sourdough starter alive", "HNSW neighbour pruning",
                      "tram 28 Lisbon", "why python threads do not run in parallel"):
            together = history.search(SearchQuery(query)).to_dict()
            assert ran_on.pop().startswith("rewind-keyword")
            history._keyword_worker = None
            one_by_one = history.search(SearchQuery(query)).to_dict()
            assert ran_on.pop() == threading.current_thread().name
            history._keyword_worker = worker
            assert together["results"] and together["results"] == one_by_one["results"]
    finally:
        history._keyword_worker = worker
        del history.text_index.search


def test_bm25_done_before_the_shortlist_has_its_hits_vectors_read_in_the_same_batch(
        history, monkeypatch):
    """Whichever retriever finishes first, one result; BM25 first: one read of stored
    vectors for both retrievers' passages, BM25 still running: a second for its own."""
    # Three passages a retriever, three read exactly: BM25 finds some the dense stages do
    # not read (in a history this small, a hundred would be every passage).
    monkeypatch.setattr(history, "settings",
                        dataclasses.replace(history.settings, candidates_per_retriever=3))
    for stage in ("refine", "rescore"):
        monkeypatch.setattr(history.vectors.index(), stage, 3)
    reads: list[int] = []
    read = Store.vectors_by_ids
    monkeypatch.setattr(Store, "vectors_by_ids",
                        lambda store, ids, model: reads.append(len(ids)) or read(store, ids, model))
    shortlist, bm25 = VectorIndex.shortlist, history.text_index.search

    def late(fn):
        def slow(*args, **kwargs):
            time.sleep(0.2)  # the other half, on the other thread, is done by then
            return fn(*args, **kwargs)
        return slow

    query = PassageQuery("tram 28 Lisbon sourdough starter")
    monkeypatch.setattr(VectorIndex, "shortlist", late(shortlist))
    with history.searcher() as s:
        bm25_first = s.passages(query).hits
    bm25_first_reads, reads[:] = list(reads), []
    monkeypatch.setattr(VectorIndex, "shortlist", shortlist)
    monkeypatch.setattr(history.text_index, "search", late(bm25))
    with history.searcher() as s:
        dense_first = s.passages(query).hits
    assert bm25_first == dense_first
    assert any(h.keyword is not None and h.similarity is not None for h in bm25_first)
    assert len(bm25_first_reads) == 1 and len(reads) == 2, (bm25_first_reads, reads)
