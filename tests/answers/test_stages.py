"""The stages' own helpers (answers/stages.py); the stages run end to end through
`Answerer.ask` in test_answer.py and test_closest.py."""

from __future__ import annotations

from rewind.answers.outcome import join, left_out, verdict
from rewind.search import relevance


def test_the_gates_verdict_by_the_fitted_thresholds():
    g = relevance.gauge()
    assert verdict(None) == "yes"  # no embedder: the words decide
    assert verdict(g.refuse - 1e-6) == "no"
    assert verdict(g.refuse) == verdict((g.refuse + g.extract) / 2) == "maybe"
    assert verdict(g.extract) == "yes"


def test_notices_join_and_say_what_was_left_out():
    assert join(None, "a", "", "b") == "a b"
    assert join(None, None) is None
    assert left_out(["x"]) == ("1 sentence was left out of the answer: nothing in your "
                               "history supports it.")
    assert left_out(["x", "y"]).startswith("2 sentences were left out")
