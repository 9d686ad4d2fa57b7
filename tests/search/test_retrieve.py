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


def test_a_hybrid_search_runs_bm25_on_the_worker_and_finds_the_same(own_history, monkeypatch):
    """BM25 beside the dense stages (the engine's worker thread) or before them: one result."""
    import threading

    history = own_history  # its text index is spied on and its worker taken away
    ran_on: list[str] = []
    search = history.text_index.search

    def spy(*args, **kwargs):
        ran_on.append(threading.current_thread().name)
        return search(*args, **kwargs)

    monkeypatch.setattr(history.text_index, "search", spy)
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
        history._keyword_worker = worker  # closing the engine stops it


def test_a_search_reads_few_stored_vectors_and_every_hit_has_its_cosine(
        fake_engine, monkeypatch):
    """Only the dense stage's best `exact` passages are read from the store; the rest, and
    the passages only BM25 found, get their int8 rows' cosines, within rounding."""
    from rewind.index.derived.vectors import EXACT
    from rewind.index.store.store import Store
    from rewind.search.retrieve import SearchQuery

    words = "beacon lamp keeper tower coast storm fog bell ship rock".split()
    for i in range(150):  # more than the dense stage keeps: some BM25 hits are not in it
        fake_engine.ingest(f"https://lights.example/{i}", f"Lighthouse log {i}: "
                           + " ".join(words[(i + j) % 10] for j in range(i % 7 + 3)), {})
    reads: list[list[int]] = []
    real = Store.vectors_by_ids
    monkeypatch.setattr(Store, "vectors_by_ids",
                        lambda self, ids, model: reads.append(list(ids)) or real(self, ids, model))
    with fake_engine.searcher() as s:
        found = s.passages(SearchQuery("lighthouse beacon storm"))
        monkeypatch.undo()
        pids, mat = s.store.vectors_by_ids([h.passage_id for h in found.hits], s._vectors.model_id)
    exact = dict(zip(pids.tolist(), (mat @ found.query_vector).tolist(), strict=True))
    keyword_only = len(found.hits) - s.settings.candidates_per_retriever
    assert keyword_only > 0, "every BM25 hit was among the dense ones: nothing tested"
    assert len(reads) == 1 and len(set(reads[0])) == EXACT
    for h in found.hits:
        if h.passage_id in reads[0]:
            assert h.similarity == pytest.approx(exact[h.passage_id], abs=1e-6)
        else:  # 64 hashed dimensions: coarse int8 steps, still within 0.01
            assert abs(h.similarity - exact[h.passage_id]) < 0.01


def test_the_mode_is_decided_once_before_either_retriever_runs(fake_engine, monkeypatch):
    """Without an embedder a search is by words; a hybrid search over a damaged keyword
    index is by meaning, never asking BM25, and fails with the index's error only when
    meaning finds nothing either."""
    from rewind.errors import Code, RewindError
    from rewind.search.retrieve import SearchQuery

    for i in range(6):
        fake_engine.ingest(f"https://lights.example/{i}", f"Lighthouse log {i}: beacon storm", {})
    with fake_engine.searcher() as s:
        words_only = Searcher(s.store, s.text_index, None, None, None, s.settings, "no model")
        found = words_only.passages(SearchQuery("beacon storm", mode="hybrid"))
        assert found.mode == "keyword" and found.degraded == "no model" and found.hits
        assert all(h.similarity is None and h.keyword for h in found.hits)
        assert "found by words only" in found.notice("the results")

        monkeypatch.setattr(s.text_index, "damage", ["a.term is damaged"])
        monkeypatch.setattr(s.text_index, "search", lambda *a, **k: pytest.fail("BM25 asked"))
        found = s.passages(SearchQuery("beacon storm", mode="hybrid"))
        assert found.mode == "semantic" and found.hits and found.degraded is None
        assert all(h.keyword is None and h.score == h.similarity for h in found.hits)
        assert "keyword index cannot be used" in found.notice("the results")
        with pytest.raises(RewindError) as nothing:
            s.passages(SearchQuery("beacon storm", mode="hybrid", domain="elsewhere.example"))
        assert nothing.value.code == Code.INDEX_DAMAGED
