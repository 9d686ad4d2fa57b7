"""tests/ holds tests: at its top only conftest.py and test_*.py; the helpers they share
are the package tests/support/, imported as `support.<module>`."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_nothing_but_tests_sits_loose_at_the_top_of_tests():
    loose = sorted(p.name for p in TESTS.glob("*.py")
                   if p.name != "conftest.py" and not p.name.startswith("test_"))
    assert not loose, f"move these helpers to tests/support/: {loose}"


def test_the_helpers_are_a_package_and_none_of_them_is_collected():
    support = TESTS / "support"
    assert (support / "__init__.py").is_file()
    assert not list(support.glob("test_*.py"))
