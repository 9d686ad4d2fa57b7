"""search/retrieve.py: when the words decide a hybrid search's fusion; BM25 on the worker."""

import pytest
from rewind.config import Settings
from rewind.models.specs import Confidence, load_specs
from rewind.search import SearchQuery
from rewind.search.retrieve import Searcher


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
