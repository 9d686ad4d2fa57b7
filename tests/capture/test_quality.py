"""A passage's quality (capture/quality.py) and its twin in the extension
(content/quality.js): the same cases (tests/data/passage_quality.json), the same expressions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rewind.capture import quality

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((ROOT / "tests" / "data" / "passage_quality.json").read_text("utf-8"))
JS = (ROOT / "extension" / "content" / "quality.js").read_text("utf-8")


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["name"])
def test_shared_cases(case):
    got = quality.passage_quality(
        case["text"], case["words"], heading=case["heading"], chars=case["chars"],
        list_chars=case["list_chars"], link_chars=case["link_chars"],
        nav_chars=case["nav_chars"])
    assert got == case["quality"]


def test_the_cases_cover_every_rule():
    names = " ".join(c["name"] for c in DATA["cases"])
    for rule in ("heading", "list", "sentence", "link", "navigation", "boilerplate",
                 "clamped to 0", "half up"):
        assert rule in names, rule
    assert len({c["quality"] for c in DATA["cases"]}) >= 15


def test_boilerplate_is_the_extensions_expression():
    """The JS literal, with its one ASCII digit class, is the Python pattern."""
    m = re.search(r"const BOILERPLATE =\s*/(.+)/i;", JS)
    assert m, "content/quality.js has no BOILERPLATE"
    assert m.group(1) == quality.BOILERPLATE.pattern
