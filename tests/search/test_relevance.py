"""The relevance gate (search/relevance.py): its signals on a real store, its models as
shipped (fitted by bench/quality/fit_relevance.py), and what search and ask make of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rewind import logistic
from rewind.index.store.records import PassageRecord
from rewind.search import SearchQuery, relevance
from rewind.search.relevance import _coverage, _other_language
from support.answer_fixtures import PAGES


def test_coverage_weighs_rare_terms():
    idf = {"sourdough": 3.0, "starter": 2.0, "often": 0.5}
    assert _coverage(idf, {"sourdough", "starter", "often"}) == (1.0, 1.0)
    weighted, rare = _coverage(idf, {"often"})
    assert weighted == pytest.approx(0.5 / 5.5) and rare == 0.0
    assert _coverage({}, {"x"}) == (0.0, 0.0)


class _Index:  # what _other_language reads of a Searcher: the history's languages
    def __init__(self, langs):
        self.text_index = type("T", (), {"languages": lambda _self: set(langs)})()


def test_only_a_history_in_two_languages_asks_a_passage_its_language():
    english = ("The borrow checker rejects two mutable references to the same value at "
               "once, which is what keeps data races out of safe Rust code.")
    german = ("Der Sauerteig braucht jeden Tag frisches Mehl und Wasser, sonst wird er "
              "sauer und die Hefen sterben langsam ab.")
    code = "0x1F 0x2A 0x3B 0x4C 0x5D 0x6E 0x7F 0x80 0x91 0xA2 0xB3 0xC4 0xD5 0xE6 0xF7"
    records = {i: (1, PassageRecord(t, i, (0, len(t)))) for i, t in
               enumerate((english, german, code))}
    query = "why does the borrow checker reject two mutable references"
    # English, pages too short to tell and code: one language, nothing to ask
    alone = _other_language(_Index({"en", "und", "zxx"}), query, records)
    assert [alone(i) for i in range(3)] == [False, False, False]
    mixed = _other_language(_Index({"en", "de", "zxx"}), query, records)
    assert [mixed(i) for i in range(3)] == [False, True, None]  # code: in no language


def test_the_shipped_gauge_is_fitted_and_its_thresholds_are_ordered():
    raw = json.loads(Path(relevance.__file__).with_name("relevance.json").read_text())
    assert raw["fitted_on"], "relevance.json must come from bench/quality/fit_relevance.py"
    g = relevance.gauge()
    assert 0.0 <= g.refuse <= g.extract <= 1.0 and 0.0 <= g.fold <= 1.0
    assert g.hit.features == relevance.HIT_FEATURES
    assert g.answerable.features == relevance.QUERY_FEATURES


def test_signals_of_an_answered_and_an_unanswered_question(history):
    def read(q):
        with history.searcher() as s:
            found = s.passages(SearchQuery(q))
            return relevance.read(s, q, found, found.hits[:3]).query

    near = read("How often should I feed a sourdough starter?")
    far = read("Who invented the printing press in Mainz?")
    assert near["cover"] > far["cover"] and near["cos_top"] > far["cos_top"]
    g = relevance.gauge()
    assert g.answerable.probability(near) > g.answerable.probability(far)


def test_search_folds_the_pages_a_query_is_not_about(history):
    res = history.search(SearchQuery("sourdough starter hooch", limit=10)).results
    assert res[0].url == PAGES[0]["url"] and res[0].relevant
    assert any(not r.relevant for r in res[1:]), "unrelated pages are folded"
    assert all(r.relevance is not None for r in res)


def test_logistic_fit_separates_a_clear_signal():
    rows = [{"a": float(i), "b": 1.0} for i in range(20)]
    labels = [int(i >= 10) for i in range(20)]
    m = logistic.fit(rows, labels, ("a", "b"), class_weight=True)
    assert m.probability({"a": 18.0, "b": 1.0}) > 0.9 > 0.1 > m.probability({"a": 1.0, "b": 1.0})
    again = logistic.Logistic.from_dict(json.loads(json.dumps(m.to_dict())))
    assert again.probability({"a": 12.0, "b": 1.0}) == pytest.approx(
        m.probability({"a": 12.0, "b": 1.0}), abs=1e-5)


def test_a_weak_similarity_alone_is_never_relevant(history):
    """A word no page has: whatever the meaning's nearest page, it is folded."""
    res = history.search(SearchQuery("beaverplunk", limit=10)).results
    assert res and not any(r.relevant for r in res)
