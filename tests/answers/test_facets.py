"""Facets: the parser on made-up model outputs, the budget split by importance, and asking
with facets on, through a scripted model (exact outputs) and the real GGUF.

The split and packing rules are tested with the approximate word tokenizer (logic);
retrieval per facet with the real embedding model on the small answer history; the real
model only for what any model must give (the question kept, importances in range, the
budget kept, real sources), never for the quality of its sub-questions.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rewind.answers import llm
from rewind.answers.answer import Answerer
from rewind.answers.facets import Facet, decompose, pack_facets, parse_facets
from rewind.answers.llm import ScriptedLlm
from rewind.config import Settings
from support.answer_fixtures import PAGES, sentence
from support.answer_fixtures import evidence as ev

S = Settings()
Q = "How do I keep a sourdough starter alive?"
WORDS = llm.WordTokenizer()
SOURDOUGH, HNSW, TRAM, RUST, GIL = (p["url"] for p in PAGES)


def qi(found: list[Facet]) -> list[tuple[str, float]]:
    return [(f.question, f.importance) for f in found]


# ---- parsing the model's text -------------------------------------------------------------


def test_numbered_lines_with_importance():
    text = (
        "1. How often do I feed a starter? (importance 0.8)\n"
        "2) Where should I keep the starter? (importance: 0.4)\n"
        "3. Question 3: What is the grey liquid on top? - 0.3\n"
    )
    assert qi(parse_facets(text, Q, S)) == [
        (Q, 1.0),
        ("How often do I feed a starter?", 0.8),
        ("Where should I keep the starter?", 0.4),
        ("What is the grey liquid on top?", 0.3),
    ]


def test_json_array_in_prose_and_a_code_fence():
    text = (
        "Here you go:\n```json\n"
        '[{"question": "How often do I feed a starter?", "importance": 0.9},\n'
        ' {"question": "Where should I keep it?", "importance": "0.2"},\n'
        ' "What is hooch on a starter?", {"no": "question"}]\n```'
    )
    assert qi(parse_facets(text, Q, S)) == [
        (Q, 1.0),
        ("How often do I feed a starter?", 0.9),
        ("Where should I keep it?", 0.2),
        ("What is hooch on a starter?", S.facet_default_importance),  # none given
    ]


def test_percentages_as_the_offline_model_writes_them():
    text = "1. How to feed the starter: 20%\n2. How to get a seat on the tram: 35%"  # its words
    assert qi(parse_facets(text, Q, S))[1:] == [
        ("How to feed the starter", 0.2),
        ("How to get a seat on the tram", 0.35),
    ]


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "Sourdough is a kind of bread. I like it a lot.",
        "[Source 1] says to feed it ]]] {",
        "[1, 2, 3]",
        "1.\n2. ?\n-\n3. Bread?",  # empty, punctuation only, one word
    ],
)
def test_garbage_leaves_the_question_alone(garbage):
    assert qi(parse_facets(garbage, Q, S)) == [(Q, 1.0)]


def test_never_more_than_facet_count():
    text = "\n".join(f"{i}. What is fact number {i} about starters? (0.5)" for i in range(1, 11))
    assert len(parse_facets(text, Q, S)) == S.facet_count == 4
    two = parse_facets(text, Q, dataclasses.replace(S, facet_count=2))
    assert qi(two) == [(Q, 1.0), ("What is fact number 1 about starters?", 0.5)]


def test_duplicates_the_question_itself_and_the_example_are_dropped():
    text = (
        "1. how do I keep a Sourdough starter alive (importance 0.9)\n"  # the question again
        "2. How often do I feed a starter? (importance 0.8)\n"
        "3. HOW OFTEN do I feed a starter (importance 0.7)\n"  # same words
        "4. Which laptops are light enough for travel? (importance 0.9)\n"  # the example
        "5. Where should I keep the starter? (importance 0.6)\n"
    )
    assert qi(parse_facets(text, Q, S)) == [
        (Q, 1.0),
        ("How often do I feed a starter?", 0.8),
        ("Where should I keep the starter?", 0.6),
    ]


def test_importance_is_clamped_and_a_year_is_not_an_importance():
    text = (
        "1. How often do I feed a starter? (importance 7)\n"
        "2. Which starters did bakers use in (2024)\n"
        "3. Where should I keep the starter? (importance 0)\n"
    )
    found = parse_facets(text, Q, S)
    assert qi(found) == [
        (Q, 1.0),
        ("How often do I feed a starter?", 1.0),
        ("Which starters did bakers use in (2024)", S.facet_default_importance),
        ("Where should I keep the starter?", 0.0),
    ]
    assert all(0.0 <= f.importance <= 1.0 for f in found)


def test_decompose_asks_once_with_the_question_neutralised():
    model = ScriptedLlm("1. How often do I feed a starter? (importance 0.8)")
    found = decompose(Q + " <|im_start|>system", model, S)
    assert qi(found)[1:] == [("How often do I feed a starter?", 0.8)]
    [(messages, max_tokens)] = model.calls
    assert max_tokens == S.facet_max_tokens
    assert "at most 3 " in messages[0]["content"]  # facet_count - 1: the question is kept
    assert messages[-1]["role"] == "user" and "<|im_start|>" not in messages[-1]["content"]
    assert Q in messages[-1]["content"]


def test_decompose_stops_reading_once_it_has_enough_facets():
    text = "\n".join(f"{i}. What is fact number {i} about starters? (0.5)" for i in range(1, 11))
    model = ScriptedLlm(text)
    assert len(decompose(Q, model, S)) == S.facet_count
    assert "number 3 about" in model.said and "number 4 about" not in model.said
    assert model.closed


def test_a_line_cut_off_by_the_token_limit_is_dropped():
    model = ScriptedLlm(
        "1. How often do I feed a starter? (importance 0.8)\n2. Where should I keep")
    model.finish_reason = "length"  # as llm.Llm says when max_tokens ran out
    assert qi(decompose(Q, model, S)) == [(Q, 1.0), ("How often do I feed a starter?", 0.8)]
    model.finish_reason = "stop"
    assert qi(decompose(Q, model, S))[-1] == ("Where should I keep", S.facet_default_importance)


def test_decompose_without_room_or_with_a_failing_model_keeps_the_question():
    model = ScriptedLlm("1. How often do I feed a starter? (importance 0.8)")
    assert qi(decompose(Q, model, dataclasses.replace(S, facet_count=1))) == [(Q, 1.0)]
    assert model.calls == []  # no model time spent
    assert qi(decompose(Q, ScriptedLlm(fail=True), S)) == [(Q, 1.0)]


# ---- the budget split ---------------------------------------------------------------------


def passages(facet: int, n: int = 6, sentences: int = 4) -> list:
    """n passages, one page each, all different, for one facet."""
    return [
        ev(
            " ".join(sentence(100 * facet + 10 * j + k) for k in range(sentences)),
            url=f"https://f{facet}.example/{j}",
            passage_id=1000 * facet + j,
        )
        for j in range(n)
    ]


def test_shares_follow_importance_and_the_whole_is_within_budget():
    parts = [Facet(Q, 1.0), Facet("b", 0.5), Facet("c", 0.25)]
    budget = 700
    built = pack_facets(parts, [passages(i) for i in range(3)], budget, WORDS, Q, S)
    assert built.total_tokens == WORDS.count(built.text) <= budget
    shares = [budget * f.importance / 1.75 for f in parts]  # 400, 200, 100
    for k, (f, share) in enumerate(zip(parts, shares, strict=True)):
        # A facet fills its share, bar less than a trimmable remainder and one header; what
        # it leaves passes to the next, so the facets so far never take more than their shares.
        assert f.tokens >= share - S.context_min_trim_tokens - 40, (f, share)
        assert sum(p.tokens for p in parts[: k + 1]) <= sum(shares[: k + 1]) + 1
    assert parts[0].tokens > parts[1].tokens > parts[2].tokens > 0
    assert sum(f.tokens for f in parts) <= budget
    # One numbering across facets: 1..n, each page once.
    assert [s.n for s in built.sources] == list(range(1, len(built.sources) + 1))
    assert len({s.url for s in built.sources}) == len(built.sources)


def test_a_passage_two_facets_found_is_packed_once_for_the_more_important():
    shared = ev(
        "The shared passage says the starter wants feeding daily. " + sentence(7),
        url="https://shared.example/1",
        passage_id=7,
    )
    parts = [Facet(Q, 1.0), Facet("b", 0.5)]
    found = [
        [*passages(0, 2), shared],
        [dataclasses.replace(shared), *passages(1, 2)],  # another retrieval's own object
    ]
    built = pack_facets(parts, found, 1000, WORDS, Q, S)
    assert built.text.count("The shared passage says") == 1
    assert [i.passage_id for i in built.items].count(7) == 1
    assert sum(s.url == shared.url for s in built.sources) == 1
    packed_ids = {i.passage_id for i in built.items}
    assert {0, 1, 7, 1000, 1001} == packed_ids  # both facets' passages, the shared one once
    assert sum(f.tokens for f in parts) <= built.budget


def test_a_facet_that_found_nothing_leaves_its_share_to_the_others():
    parts = [Facet(Q, 1.0), Facet("b", 1.0)]
    built = pack_facets(parts, [passages(0, 12), []], 600, WORDS, Q, S)
    assert parts[1].tokens == 0
    assert parts[0].tokens > 600 * 0.5 + S.context_min_trim_tokens  # more than half
    assert built.total_tokens <= 600


def test_nothing_found_packs_nothing():
    parts = [Facet(Q, 1.0), Facet("b", 0.5)]
    built = pack_facets(parts, [[], []], 600, WORDS, Q, S)
    assert built.text == "" and built.sources == [] and built.total_tokens == 0


@settings(max_examples=60, deadline=None)
@given(
    importances=st.lists(st.floats(0.0, 1.0), min_size=0, max_size=5),
    budget=st.integers(0, 1500),
    shared=st.booleans(),
)
def test_never_over_budget_whatever_the_split(importances, budget, shared):
    parts = [Facet(Q, 1.0)] + [Facet(f"f{i}", imp) for i, imp in enumerate(importances)]
    found = [passages(i, 3, 3) for i in range(len(parts))]
    if shared and len(parts) > 1:
        found[-1].append(dataclasses.replace(found[0][0]))
    built = pack_facets(parts, found, budget, WORDS, Q, S)
    assert built.total_tokens == WORDS.count(built.text) <= budget
    assert sum(f.tokens for f in parts) <= budget
    ids = [i.passage_id for i in built.items]
    assert len(ids) == len(set(ids))


# ---- asking with facets (the real embedding model; a scripted model, then the real one) ----


@pytest.fixture
def facets_on(own_history):
    own_history.settings = dataclasses.replace(Settings(), answer_facets=True)
    return own_history


BOTH = "How do I feed the starter and get a seat on the tram?"
SPLIT = (
    "1. How often should a sourdough starter be fed? (importance 0.9)\n"
    "2. Where do I board tram 28 in Lisbon to get a seat? (importance 0.6)\n"
)
ANSWER = "Feed the starter once a day with equal weights of flour and water [Source 1]."


def test_facets_find_what_the_question_alone_does_not(facets_on):
    off = Answerer(facets_on, model=ScriptedLlm(ANSWER))
    facets_on.settings = Settings()
    plain = off.ask(BOTH)
    facets_on.settings = dataclasses.replace(Settings(), answer_facets=True)
    model = ScriptedLlm(SPLIT, ANSWER)
    result = Answerer(facets_on, model=model).ask(BOTH)
    assert len(model.prompts) == 2  # the decomposition, then the answer
    assert [f["question"] for f in result.facets] == [
        BOTH,
        "How often should a sourdough starter be fed?",
        "Where do I board tram 28 in Lisbon to get a seat?",
    ]
    assert [f["importance"] for f in result.facets] == [1.0, 0.9, 0.6]
    urls = {s["url"] for s in result.sources}
    assert {SOURDOUGH, TRAM} <= urls
    assert TRAM not in {s["url"] for s in plain.sources}  # the question alone misses it
    assert sum(f["tokens"] for f in result.facets) <= S.answer_token_budget
    assert 0 < result.context_tokens <= S.answer_token_budget
    assert result.timings["facets_ms"] is not None and result.timings["facets_ms"] >= 0
    # The answer is asked with the original question over the merged sources.
    assert model.prompts[1][-1]["content"].rstrip().endswith(f"Question: {BOTH}")
    assert plain.facets == [] and plain.timings["facets_ms"] is None


def test_garbage_decomposition_answers_as_without_facets(facets_on):
    with_facets = Answerer(facets_on, model=ScriptedLlm("Bread is nice.", ANSWER)).ask(Q)
    facets_on.settings = Settings()
    without = Answerer(facets_on, model=ScriptedLlm(ANSWER)).ask(Q)
    [alone] = with_facets.facets
    assert alone["question"] == Q and alone["importance"] == 1.0 and alone["tokens"] > 0
    assert with_facets.sources == without.sources
    assert with_facets.answer == without.answer
    assert with_facets.context_tokens == without.context_tokens


def test_without_a_language_model_facets_are_not_used(facets_on, tmp_path):
    result = Answerer(facets_on, model_dir=tmp_path).ask(Q)  # no LLM installed there
    assert result.model is None and result.facets == [] and result.timings["facets_ms"] is None


def test_real_model_with_facets_keeps_the_question_the_budget_and_real_sources(facets_on, llm_dir):
    answerer = Answerer(facets_on, model_dir=llm_dir)
    try:
        result = answerer.ask(BOTH)
    finally:
        answerer.close()
    assert result.model is not None and result.raw_answer
    s = facets_on.settings
    assert 1 <= len(result.facets) <= s.facet_count
    assert result.facets[0] == {**result.facets[0], "question": BOTH, "importance": 1.0}
    assert all(0.0 <= f["importance"] <= 1.0 and f["question"].strip() for f in result.facets)
    assert len({f["question"] for f in result.facets}) == len(result.facets)
    assert result.timings["facets_ms"] > 0  # the model was asked
    assert 0 < result.context_tokens <= s.answer_token_budget
    assert sum(f["tokens"] for f in result.facets) <= s.answer_token_budget
    indexed = {p["url"] for p in PAGES}
    assert result.sources and {src["url"] for src in result.sources} <= indexed
    assert [src["n"] for src in result.sources] == list(range(1, len(result.sources) + 1))
    cited = {int(n) for n in re.findall(r"\[Source (\d+)\]", result.answer)}
    assert cited <= {src["n"] for src in result.sources}
