"""bench/labs/answerability.py: the oracle ceiling of a score (logic only, synthetic rows)."""

from __future__ import annotations

import math

from bench.labs.answerability import ceiling


def rows(pos: list[float], neg: list[float]) -> list[dict]:
    return [{"p": p, "answerable": 1} for p in pos] + [{"p": p, "answerable": 0} for p in neg]


def test_a_score_that_separates_keeps_everything_and_refuses_everything():
    assert ceiling(rows([0.9, 0.8, 0.7], [0.1, 0.2, 0.3])) == (1.0, 1.0)


def test_ceiling_counts_at_the_stated_shares():
    # ten unanswerable: one may pass (10 %), so the cut sits above the second best, 0.8
    neg = [0.95, 0.8, 0.5, 0.4, 0.3, 0.3, 0.2, 0.2, 0.1, 0.1]
    pos = [0.99, 0.9, 0.85, 0.6, 0.55]  # three above 0.8
    kept, refused = ceiling(rows(pos, neg))
    assert kept == 3 / 5
    # keeping 80 % of the answerable (4 of 5) puts the cut at 0.6: 8 of 10 fall below
    assert refused == 8 / 10


def test_no_rows_of_a_kind_is_not_a_number():
    kept, refused = ceiling(rows([0.5], []))
    assert math.isnan(kept) and math.isnan(refused)
