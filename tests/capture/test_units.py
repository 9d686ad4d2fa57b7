"""Words for every script (units.py): the cases the extension's chunker shares
(tests/data/chunk_units.json), and the chunker on Japanese, Chinese, Thai and German pages."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rewind.capture.chunker import approx_tokens, chunk_blocks
from rewind.capture.extract import Block
from rewind.capture.units import count_words, cut
from rewind.config import Settings

DATA = json.loads((Path(__file__).resolve().parents[1] / "data" / "chunk_units.json")
                  .read_text("utf-8"))
S = Settings()


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["name"])
def test_shared_cases(case):
    assert count_words(case["text"]) == case["words"]
    pieces = cut(case["text"], case["max_words"])
    assert pieces == case["pieces"]
    assert all(count_words(p) <= case["max_words"] for p in pieces)
    assert re.sub(r"\s", "", "".join(pieces)) == re.sub(r"\s", "", case["text"])  # all kept


def test_english_is_counted_by_spaces_as_before():
    text = "The quick brown fox, jumps over the lazy dog's back! 42 times."
    assert count_words(text) == len(text.split())


def test_a_paragraph_measures_about_the_same_in_every_language():
    """The same paragraph in German, Japanese, Chinese and Thai: within a quarter of each
    other (counted by spaces, the Japanese and Chinese ones were one or three "words")."""
    counts = {lang: count_words(p) for lang, p in DATA["paragraphs"].items()}
    assert max(counts.values()) <= 1.25 * min(counts.values()), counts
    assert len(DATA["paragraphs"]["ja"].split()) == 1


@pytest.mark.parametrize("lang", ["de", "ja", "zh", "th"])
def test_a_long_page_becomes_passages_within_the_limits(lang):
    para = DATA["paragraphs"][lang]
    blocks = [Block(" ".join([para] * 6)), Block(para), Block(para, hard_break_before=True)]
    page, chunks = chunk_blocks(blocks, S)
    words = [count_words(c.text) for c in chunks]
    assert len(chunks) >= 3, words
    assert all(S.min_passage_words <= n <= S.max_passage_words for n in words), words
    # nothing lost: every character of the page is in a passage
    assert re.sub(r"\s", "", "".join(c.text for c in chunks)) == re.sub(r"\s", "", page)
    for c in chunks:
        assert c.text[:10] in page[c.span[0]:c.span[1]]
    if lang in ("ja", "zh"):  # cut at full stops, not inside a sentence
        assert all(c.text.endswith("。") for c in chunks), [c.text[-5:] for c in chunks]


@pytest.mark.parametrize("lang", ["ja", "zh", "th"])
def test_token_estimates_see_scripts_without_spaces(lang):
    assert approx_tokens(DATA["paragraphs"][lang]) > 40
