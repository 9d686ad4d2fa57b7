"""Waiting for what can be polled, never for a fixed time.

Job: `wait_until(check, timeout, what)`, the one wait of the harness, the demo and the
browser tests: poll until `check` says something truthy, or fail naming what never came.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(check: Callable[[], T], timeout: float, what: str, interval: float = 0.1) -> T:
    """Poll `check` until it returns something truthy; TimeoutError naming `what` if never."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() >= deadline:
            raise TimeoutError(f"gave up after {timeout:.0f} s waiting for {what} (last: {got!r})")
        time.sleep(interval)
