"""The vectorised DFA walk (langid_walk.py) gives py3langid's own verdict, bit for bit."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from py3langid.langid import MODEL_FILE, LanguageIdentifier
from rewind.index.derived.langid_walk import Walker

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def pair() -> tuple[LanguageIdentifier, Walker]:
    ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    return ident, Walker(ident)


def texts() -> list[str]:
    paragraphs = json.loads((DATA / "chunk_units.json").read_text("utf-8"))["paragraphs"]
    out = [*paragraphs.values(), "", "a", "OK", "ÉCOLE PRIMAIRE", "x" * 3000,
           " ".join(paragraphs.values())[:3000], "def f(x):\n    return x ** 2  # squared",
           "Ünïcödé ﬁ ligature and combining é", "\x00\x01 bytes \ud800 lone surrogate"]
    rng = random.Random(7)
    for _ in range(200):  # any mix of scripts, lengths from nothing to a page's sample
        out.append("".join(chr(rng.choice((rng.randint(32, 0x24F), rng.randint(0x370, 0x4FF),
                                           rng.randint(0x3040, 0x9FFF))))
                           for _ in range(rng.randint(0, 600))))
    words = " ".join(paragraphs.values()).split()
    for _ in range(100):  # shuffled words of every language: mixed pages
        out.append(" ".join(rng.choices(words, k=rng.randint(1, 400))))
    return out


def test_the_same_verdict_as_py3langid(pair):
    ident, walker = pair
    for text in texts():
        assert walker.classify(text) == ident.classify(text), text[:80]


def test_depth_is_the_automaton_s_deepest_state(pair):
    _ident, walker = pair
    assert 1 <= walker.depth <= 8  # byte n-grams: a handful of bytes


def test_refuses_a_setting_it_does_not_answer_for():
    with pytest.raises(ValueError):
        Walker(LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=False))
