"""One question's timings: the one place that measures and rounds them.

Every figure is milliseconds rounded to a tenth, measured on one clock (`now`, the
perf_counter by default): a stage's lap (from the end of the one before), a step's own
time (`since` its start), a moment since the question began (`at`, `elapsed`, `first`),
time summed over many short steps (`adding`, then `settle`). `ms` is the reply's
`timings`: the keys of KEYS in that order, None while a step has not run; the reader's
(`read_ms`) and the first checked words' (`first_words_ms`) are added when they happen.
This module must never decide anything by time: it only says how long things took.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

KEYS = ("load_ms", "retrieval_ms", "facets_ms", "context_ms", "first_token_ms",
        "generation_ms", "check_ms", "total_ms")


def rounded(seconds: float) -> float:
    """Seconds as milliseconds, to a tenth."""
    return round(seconds * 1000, 1)


class Timings:
    """The clock of one question, started when it was asked."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.now = clock
        self.start = clock()
        self.ms: dict[str, float | None] = dict.fromkeys(KEYS)
        self._lap = self.start
        self._sums: dict[str, float] = {}

    def lap(self, key: str) -> None:
        """`key`: the time since the last lap (the first: since the question began)."""
        t = self.now()
        self.ms[key] = rounded(t - self._lap)
        self._lap = t

    def since(self, key: str, start: float) -> None:
        """`key`: the time since `start` (a `now()` taken when the step began)."""
        self.ms[key] = rounded(self.now() - start)

    def at(self, key: str, moment: float | None) -> None:
        """`key`: when `moment` came, since the question began (None: it never came)."""
        self.ms[key] = None if moment is None else rounded(moment - self.start)

    def elapsed(self, key: str) -> None:
        """`key`: now, since the question began."""
        self.at(key, self.now())

    def first(self, key: str) -> None:
        """`key`: now, since the question began, unless it was set already."""
        if self.ms.get(key) is None:
            self.elapsed(key)

    @contextmanager
    def adding(self, key: str) -> Iterator[None]:
        """Add the time of the block to `key`'s sum (`settle` says it)."""
        t = self.now()
        try:
            yield
        finally:
            self._sums[key] = self._sums.get(key, 0.0) + self.now() - t

    def settle(self, key: str) -> None:
        """`key`: the time summed by `adding` (0.0 if none)."""
        self.ms[key] = rounded(self._sums.get(key, 0.0))
