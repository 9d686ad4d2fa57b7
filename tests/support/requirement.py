"""What a test does when a real part it needs (a model, a data file, node) is absent:
skip, or fail when REWIND_REQUIRE_MODELS=1 (set by `python3 build.py test`), so CI cannot
pass by skipping."""

from __future__ import annotations

import os

import pytest


def missing(what: str) -> None:
    if os.environ.get("REWIND_REQUIRE_MODELS") == "1":
        pytest.fail(f"{what} (REWIND_REQUIRE_MODELS=1)")
    pytest.skip(what)
