"""The form of a query (search/query_form.py) and its twin in the extension
(lib/query-form.js): the same cases (tests/data/query_forms.json), the same word lists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rewind.search.query_form import (
    FUNCTION_WORDS,
    QUESTION_WORDS,
    looks_like_question,
    remembered_words,
)
from rewind.text import STOP_WORDS

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((ROOT / "tests" / "data" / "query_forms.json").read_text("utf-8"))
JS = (ROOT / "extension" / "lib" / "query-form.js").read_text("utf-8")


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: c["text"] or "(empty)")
def test_the_shared_cases(case):
    assert looks_like_question(case["text"]) is case["question"]
    assert remembered_words(case["text"], CASES["max_terms"]) is case["remembered"]


def test_the_cases_hold_both_answers_of_both_questions():
    for key in ("question", "remembered"):
        assert {c[key] for c in CASES["cases"]} == {True, False}


def _js_words(name: str) -> list[str]:
    m = re.search(rf"export const {name} = [^`]*`([^`]*)`", JS)
    assert m, f"lib/query-form.js has no {name} list"
    return m.group(1).split()


def test_the_extension_has_the_hosts_word_lists():
    assert set(_js_words("STOP_WORDS")) == STOP_WORDS
    assert set(_js_words("FUNCTION_WORDS")) == FUNCTION_WORDS
    assert _js_words("QUESTION_WORDS") == list(QUESTION_WORDS)
