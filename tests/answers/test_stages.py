"""The stages' own helpers (answers/stages.py); the stages run end to end through
`Answerer.ask` in test_answer.py and test_closest.py."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from rewind.answers.answer import Answerer
from rewind.answers.outcome import join, left_out, verdict
from rewind.config import Settings
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


def test_an_answerer_keeps_as_many_follow_up_threads_as_the_setting_says():
    engine = SimpleNamespace(settings=dataclasses.replace(Settings(), answer_threads_kept=3))
    a = Answerer(engine, model=None)  # type: ignore[arg-type]
    built = None  # a thread's packed sources: not looked at here
    kept = [a._keep_thread(None, built, [(f"q{i}", f"a{i}")]) for i in range(5)]  # type: ignore[arg-type]
    assert list(a._threads) == kept[2:]  # the oldest two forgotten
    assert a._keep_thread(kept[2], built, []) == kept[2]  # type: ignore[arg-type]
    assert list(a._threads) == [kept[3], kept[4], kept[2]]  # a follow-up moves it last
