"""Answers made of the sources' own sentences (answers/extractive.py), with the real
embedding model on the small history: verbatim, cited, in reading order, no furniture."""

from __future__ import annotations

import re

from rewind.answers.citations import Meaning, check_answer
from rewind.answers.extractive import candidates, compose
from support.answer_fixtures import SOURDOUGH, number_of, sources_for


def test_an_extract_is_verbatim_cited_and_checked(history, embedder):
    q = "How often should I feed a sourdough starter?"
    sources = sources_for(history, q)
    text = compose(q, sources, Meaning.of(embedder), embedder.embed_query(q),
                   history.settings)
    assert "once a day" in text and f"[Source {number_of(sources, SOURDOUGH)}]" in text
    packed = " ".join(t for s in sources for t in s.texts)
    for sentence in re.split(r"(?<=[.!?])\s+", re.sub(r" \[Source \d+\]", "", text)):
        assert sentence in packed, f"not a source's own sentence: {sentence}"
    assert check_answer(text, sources, Meaning.of(embedder), history.settings, q).supported


def test_headings_titles_and_questions_are_never_candidates(history):
    sources = sources_for(history, "sourdough starter")
    src = sources[0]
    src.texts.insert(0, "Feeding Your Starter\nWhat is hooch? How to keep a sourdough starter "
                        "alive")
    texts = [c.text for c in candidates(sources, history.settings)]
    assert not any(t.endswith("?") or t.istitle() or t.split()[-1] == "alive" for t in texts)


def test_picked_sentences_are_put_back_in_reading_order(history, embedder):
    q = "sourdough starter feeding temperature hooch"
    sources = sources_for(history, q)
    text = compose(q, sources, Meaning.of(embedder), embedder.embed_query(q),
                   history.settings, max_sentences=3, keep_share=0.0)
    order = [c.order for c in candidates(sources, history.settings)
             if c.text in re.sub(r" \[Source \d+\]", "", text)]
    assert order == sorted(order) and len(order) >= 2
