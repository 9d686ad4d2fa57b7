"""Search results (search/pages.py): grouping, diversity, confidence and snippets with
fakes, and retrieval quality on a small labelled set with the real model: hybrid must
match or beat each single mode on both question-style and known-item queries."""

import dataclasses

import pytest
from rewind.capture.ingest import PageInput, PassageInput
from rewind.config import Settings
from rewind.errors import RewindError
from rewind.profile.engine import Rewind
from rewind.search import SearchQuery

S = Settings()


def page(eng, url, texts, title="t", when=1000.0):
    eng.index_page(PageInput(url, title, [PassageInput(t) for t in texts], visited_at=when))


def test_multi_passage_bonus_and_page_grouping(fake_engine):
    page(fake_engine, "https://a.org/1", ["apple banana cherry one", "apple banana two xx",
                                          "apple banana three yy"])
    page(fake_engine, "https://b.org/2", ["apple banana cherry one"])
    hits = fake_engine.search(SearchQuery("apple banana", mode="keyword")).results
    assert [h.url for h in hits] == ["https://a.org/1", "https://b.org/2"]  # one hit a page


def test_domain_cap_moves_extra_pages_of_a_site_down(fake_engine):
    for i in range(5):
        page(fake_engine, f"https://big.org/{i}", [f"kiwi mango papaya note {i}"])
    page(fake_engine, "https://small.org/x", ["kiwi mango guava remark"])
    hits = fake_engine.search(SearchQuery("kiwi mango", mode="keyword")).results
    assert len(hits) == 6
    first4 = [h.url for h in hits[:4]]
    assert "https://small.org/x" in first4  # the cap of 3 lets the other site in
    assert [h.url.startswith("https://big.org/") for h in hits[4:]] == [True, True]


# By relevance alone b, a near-duplicate of a, comes second; diversity moves it down,
# behind the pages that say something else (the fake embedder: shared words, near vectors).
@pytest.mark.parametrize(("mmr_lambda", "order"), [
    (1.0, "abcd"),  # relevance only: MMR off
    (0.8, "acbd"),  # the default
    (0.5, "acdb"),
])
def test_mmr_moves_a_near_duplicate_of_a_better_page_down(fake_engine, mmr_lambda, order):
    fake_engine.settings = dataclasses.replace(S, mmr_lambda=mmr_lambda)
    pages = {"a": ("https://a.org/1", "lemon lime juice squeezed fresh daily morning"),
             "b": ("https://b.org/2", "lemon lime juice squeezed fresh daily"),
             "c": ("https://c.org/3", "tram ticket prices for the city line"),
             "d": ("https://d.org/4", "lemon pie recipe with crust")}
    for url, text in pages.values():
        page(fake_engine, url, [text])
    hits = fake_engine.search(SearchQuery("lemon lime juice tram ticket")).results
    assert [h.url for h in hits] == [pages[x][0] for x in order]


def test_confidence_labels(fake_engine):
    page(fake_engine, "https://a.org/1", ["exact words of this passage here"])
    hit = fake_engine.search(SearchQuery("exact words of this passage here")).results[0]
    # vectors are stored as float16: a passage's cosine with itself is 1 within 1e-3
    assert hit.confidence == "high" and hit.similarity == pytest.approx(1.0, abs=1e-3)
    assert fake_engine.search(SearchQuery("")).results == []


def test_unknown_mode_is_a_clear_error(fake_engine):
    with pytest.raises(RewindError, match="hybrid"):
        fake_engine.search(SearchQuery("x", mode="fuzzy"))


def test_snippet_window_and_highlights(fake_engine):
    long = " ".join(["filler"] * 80) + " the zebra crossing is here " + " ".join(["pad"] * 80)
    page(fake_engine, "https://a.org/1", [long])
    hit = fake_engine.search(SearchQuery("zebra", mode="keyword")).results[0]
    assert len(hit.snippet) <= S.snippet_chars + 40 and hit.snippet.startswith("…")
    assert [hit.snippet[a:b] for a, b in hit.highlights] == ["zebra"]


# ---- quality on a labelled set (real model, real pages) ----------------------------------

def mrr(eng, queries, gold_url, mode):
    total = 0.0
    for q in queries:
        urls = [h.url for h in eng.search(SearchQuery(q.text, mode=mode, limit=10)).results]
        gold = gold_url[q.gold]
        total += 1 / (urls.index(gold) + 1) if gold in urls else 0.0
    return total / len(queries)


@pytest.fixture(scope="module")
def labelled(tmp_path_factory, embedder, model_dir, python_docs):
    from bench.common.data import faq_pairs, known_item_queries, question_queries

    pairs = [p for p in faq_pairs(python_docs)
             if p.page in ("programming", "design") and len(p.answer_text.split()) >= 5]
    eng = Rewind.open(tmp_path_factory.mktemp("labelled"), Settings(), embedder=embedder,
                      model_dir=model_dir)
    for p in pairs:  # answers only, without their questions (else the task is trivial)
        eng.ingest(p.url, p.answer_text, {})  # no shared title: one per answer would leak
    gold = {p.doc_id: eng.stores.writer.page_by_url(p.url).url for p in pairs}
    yield eng, gold, question_queries(pairs), known_item_queries(pairs)
    eng.close()


@pytest.mark.parametrize("kind", ["questions", "known_item"])
def test_hybrid_is_at_least_as_good_as_each_mode(labelled, kind):
    eng, gold, questions, known = labelled
    queries = questions if kind == "questions" else known
    scores = {m: mrr(eng, queries, gold, m) for m in ("hybrid", "semantic", "keyword")}
    print(kind, len(queries), scores)
    assert scores["hybrid"] >= max(scores["semantic"], scores["keyword"]), scores
