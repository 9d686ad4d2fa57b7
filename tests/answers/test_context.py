"""Context for answers (answers/context.py): passage retrieval with its caps, on the real
embedding model and a small real-looking history, and build_context end to end."""

from __future__ import annotations

import dataclasses

import pytest
from rewind.answers import context
from rewind.answers.context import TabContext, build_context, retrieve
from rewind.config import Settings
from rewind.search import SearchQuery
from support.answer_fixtures import PAGES
from support.answer_fixtures import evidence as ev

LLM = "smollm2-135m-instruct-q8_0"
S = Settings()


def test_passage_caps_per_page_and_per_domain():
    ranked = [
        ev(f"passage {i}", f"https://same.example/{i // 3}", score=1 - i / 100, page_id=i // 3)
        for i in range(12)
    ]  # 4 pages of one site, 3 passages each
    chosen = context._diverse(ranked, 10, per_page=2, per_domain=3)
    pages = [e.page_id for e in chosen]
    assert all(pages.count(p) <= 2 for p in pages)
    assert len(set(pages)) == 3 and len(chosen) == 6


# ---- retrieval and build_context on the real embedding model ------------------------------


def test_retrieval_returns_passages_with_caps_and_quality(history):
    found = retrieve(history, "how often do I feed a sourdough starter", history.settings, k=5)
    assert found.evidence and found.query_vector is not None
    top = found.evidence[0]
    assert top.url == PAGES[0]["url"] and "Feed it once a day" in top.text
    per_page = [e.url for e in found.evidence]
    assert all(per_page.count(u) <= 2 for u in per_page)
    assert all(e.vector is not None and e.similarity is not None for e in found.evidence)
    assert all(e.text != PAGES[0]["title"] for e in found.evidence)  # titles are not evidence
    # Quality is weighted in: with its weight at 1 the ranking follows quality alone.
    only_quality = dataclasses.replace(history.settings, answer_quality_weight=1.0)
    ranked = retrieve(history, "sourdough starter", only_quality, k=5).evidence
    assert [e.quality for e in ranked] == sorted((e.quality for e in ranked), reverse=True)


@pytest.mark.parametrize("question", ["how often do I feed a sourdough starter",
                                      "tram 28 queue Martim Moniz", "GIL"])
def test_ask_and_search_fuse_a_question_the_same_way(history, question):
    """The passages an answer is built from are the ones search ranks (one retrieval
    path), before the evidence gate, quality weighting and diversity."""
    with history.searcher() as searcher:
        ranked = searcher.passages(SearchQuery(question)).hits
    found = retrieve(history, question, history.settings, k=5)
    assert ranked and found.candidates == [h.passage_id for h in ranked]
    assert {e.passage_id for e in found.evidence} <= set(found.candidates)
    # And every search result shows its page's best passage of that same ranking.
    best = {}
    for h in ranked:
        best.setdefault(h.page_id, h)
    results = history.search(SearchQuery(question)).results
    assert results and all(r.similarity == round(best[r.page_id].similarity, 6)
                           for r in results)


def test_unrelated_question_finds_no_evidence(history):
    found = retrieve(history, "capital city of Mongolia population", history.settings, k=5)
    assert found.evidence == []


def opened_searchers(engine, monkeypatch) -> list[int]:
    """A list that grows by one each time `engine` opens a searcher."""
    opened: list[int] = []
    real = engine.searcher

    def counting(*args, **kwargs):
        opened.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "searcher", counting)
    return opened


def test_tab_text_is_interleaved_with_history(history, monkeypatch):
    opened = opened_searchers(history, monkeypatch)
    tab = TabContext(
        "Trains to Sintra leave from Rossio station every 20 minutes.\n\n"
        "The trip takes about 40 minutes and a return ticket costs little.",
        "https://tab.example/sintra",
        "Day trip to Sintra",
    )
    found = retrieve(
        history, "how long is the train to Sintra from Lisbon", history.settings, k=5, provided=tab
    )
    kinds = [e.kind for e in found.evidence]
    assert kinds[0] == "tab" and "history" in kinds
    assert sum(k == "tab" for k in kinds) <= history.settings.tab_passages
    assert len(opened) == 1  # the history, the tab's passages and the gate on them: one searcher


def test_several_queries_are_retrieved_with_one_searcher(history, monkeypatch):
    opened = opened_searchers(history, monkeypatch)
    queries = ["how often do I feed a sourdough starter", "where does tram 28 go"]
    found = context.retrieve_each(history, queries, history.settings, k=5)
    assert len(opened) == 1
    assert [f.evidence[0].url for f in found] == [
        retrieve(history, q, history.settings, k=5).evidence[0].url for q in queries]


def test_build_context_packs_history_and_raw_context_within_budget(history, gguf_tokenizer):
    raw = (
        "Meeting notes: we decided to bake bread on Saturday.\n\n"
        "Remember to feed the starter on Friday evening."
    )
    built = build_context(
        history, "sourdough starter feeding", raw, 300, gguf_tokenizer, history.settings
    )
    assert 0 < built.total_tokens <= 300
    assert built.tokenizer == LLM
    kinds = {i.kind for i in built.items}
    assert kinds == {"raw", "history"}
    assert "Provided context" in built.text and PAGES[0]["url"] in built.text
    d = built.to_dict()
    assert d["total_tokens"] == built.total_tokens and d["budget"] == 300
    assert all(i["tokens"] > 0 for i in d["items"])
