"""Resting: what the helper lets go while nobody uses it.

The helper lives as long as the browser, all day, so what a question or a search loaded is
let go when unused: the answering model `answer_model_idle_s` after its last question, the
embedding model — with the vector index and the caches only searches need
(`Rewind.let_go`), and the embedding job's own models — `embedder_idle_s` after its last
use. The next request that needs one loads it again (bench/perf/rest.py measures the
cost); `warm` (warm_requests.py), sent when the side panel opens, loads both before the
person types.
After a model goes, glibc is asked to give the freed memory back (heap.give_back).

`Resting` is one thread that sleeps until the next deadline, or for good while nothing is
loaded; the host wakes it when a request ends (`poke`). `sweep` is the whole decision,
with the clock given, so that tests run it with a fake one.
This module must never let a model go while a request is under way or the embedding job
runs, nor close a model a caller holds (each holder checks its own users under its lock).
"""

from __future__ import annotations

import gc
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .. import heap
from ..index.derived import languages
from .context import Session

log = logging.getLogger("rewind.host")

# While a request is under way or the job runs, look again this often (a request's end
# wakes the thread anyway; the job does not).
BUSY_RECHECK_S = 30.0
MIN_WAIT_S = 0.05  # a deadline just missed is looked at again this soon, not in a spin


@dataclass(frozen=True)
class Part:
    """One thing the helper holds while used: `since()` is when it was last used (inf while
    in use; None when nothing is loaded), `let_go(idle_s)` lets it go if still unused for
    that long (its holder checks under its own lock) and says whether it did."""

    name: str
    idle_s: Callable[[], float]
    since: Callable[[], float | None]
    let_go: Callable[[float], bool]


class Resting:
    def __init__(self, parts: Callable[[], list[Part]], *, busy: Callable[[], bool],
                 ended: Callable[[float], None] = lambda _began: None,
                 clock: Callable[[], float] = time.monotonic,
                 give_back: Callable[[], object] = heap.give_back) -> None:
        self._parts = parts
        self._busy = busy
        self._ended = ended
        self.clock = clock
        self._give_back = give_back
        self._wake = threading.Event()
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.let_go: list[str] = []  # what was let go, in order (logged; tests read it)

    def sweep(self) -> float | None:
        """Let go each part unused for its idle time; the seconds until the next may be
        (None: nothing is loaded, nothing to wait for)."""
        parts = self._parts()
        if self._busy():
            loaded = any(p.since() is not None for p in parts)
            return BUSY_RECHECK_S if loaded else None
        gone = []
        wait: float | None = None
        for p in parts:
            since = p.since()
            if since is None:
                continue
            idle = float(p.idle_s())
            if since != math.inf and self.clock() - since >= idle:
                if p.let_go(idle):
                    gone.append(p.name)
                    continue
                since = p.since()  # used meanwhile
                if since is None:
                    continue
            left = BUSY_RECHECK_S if since == math.inf else idle - (self.clock() - since)
            left = max(MIN_WAIT_S, left)
            wait = left if wait is None else min(wait, left)
        if gone:
            gc.collect()  # a closed model's Python objects may sit in reference cycles
            self._give_back()
            self.let_go += gone
            log.info("at rest: let go of %s", ", ".join(gone))
        return wait

    # -- the thread --

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="resting", daemon=True)
        self._thread.start()

    def poke(self) -> None:
        """Something was used: look again (from the thread)."""
        self._wake.set()

    def ended(self, began: float) -> None:
        """A request that began at `began` (`clock`) ended: what it used was used until
        now; look again."""
        self._ended(began)
        self.poke()

    def stop(self) -> None:
        self._stopped = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(1.0)

    def _loop(self) -> None:
        wait: float | None = None  # nothing is loaded before the first request
        while True:
            self._wake.wait(wait)
            self._wake.clear()
            if self._stopped:
                return
            try:
                wait = self.sweep()
            except Exception:  # a tidy-up: never the end of the host
                log.exception("resting: sweep failed")
                wait = BUSY_RECHECK_S


def session_parts(session: Session) -> list[Part]:
    """What a connection holds: its answering model, its profile's embedder (with what
    only searches need), and the process's language detector."""
    def settings():  # the profile's settings of now (set_settings replaces them)
        return session.engine.settings if session.engine is not None else session.settings

    parts = []
    answerer = session.answerer
    if answerer is not None:
        parts.append(Part("the answering model", lambda: settings().answer_model_idle_s,
                          answerer.idle_since, answerer.let_go))
    eng, job = session.engine, session.reembed
    if eng is not None:
        def since() -> float | None:
            held = eng.model.loaded() or (job is not None and job.holds_embedders())
            return eng.model.last_used if held else None

        def let_go(idle_s: float) -> bool:
            mine = eng.let_go(idle_s)
            theirs = job.let_go() if job is not None else False
            return mine or theirs

        parts.append(Part("the embedding model", lambda: settings().embedder_idle_s,
                          since, let_go))
    # Searches, answers and new pages ask it a page's language (75 MB, loaded in ~0.5 s).
    parts.append(Part("the language detector", lambda: settings().embedder_idle_s,
                      languages.DETECTOR.idle_since, languages.DETECTOR.let_go))
    return parts


def session_ended(session: Session, began: float) -> None:
    """A request ended: if it used the embedder, its idle time starts now."""
    if session.engine is not None:
        session.engine.model.used_since(began)


def session_busy(session: Session) -> bool:
    """A request under way, or the embedding job running: nothing is let go."""
    return session.busy() or (session.reembed is not None and session.reembed.running())
