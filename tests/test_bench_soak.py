"""bench/perf/soak.py: the plan of operations and the growth verdicts (logic only)."""

from __future__ import annotations

from bench.perf.soak import Window, describe, growth, plan, ratio


def window(rss: float, search_ms: list[float] | None = None) -> Window:
    return Window(0, rss, 20, ms={"search": search_ms} if search_ms else {})


def test_plan_holds_every_operation_once_and_starts_with_a_page():
    ops = plan(50, 40, 3, seed=1)
    assert ops[0] == "page"
    assert (ops.count("page"), ops.count("search"), ops.count("ask")) == (50, 40, 3)
    assert plan(50, 40, 3, seed=1) == ops  # the same seed, the same order


def test_growth_skips_the_warm_up_quarter():
    # eight windows: the first two are the warm-up, so 100 (third) is the baseline
    ws = [window(x) for x in (10, 50, 100, 101, 102, 103, 104, 112)]
    assert round(growth(ws, lambda w: w.rss_mb), 3) == 0.12


def test_growth_without_a_figure_is_none():
    ws = [window(100), window(100), window(110, [5.0])]
    assert growth(ws, lambda w: w.p95("search")) is None


def test_ratio_compares_the_soaked_host_with_the_fresh_one():
    assert round(ratio(window(110), window(100), lambda w: w.rss_mb), 3) == 0.1
    assert ratio(window(110), window(0), lambda w: w.rss_mb) is None


def test_describe_flags_what_is_over_the_limit():
    text = describe({"RSS": 0.05, "search p95": 0.25, "ask p95": None})
    assert text == "RSS +5.0 %; search p95 +25.0 % (over 10 %)"
