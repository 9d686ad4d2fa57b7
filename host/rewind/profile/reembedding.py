"""The background embedding job: fills in missing vectors, re-embeds for a new model.

One `Reembedder` per engine. Its work, one small step at a time: passages of the active
model without a vector (indexed while the model was missing) get one; for a job's target
model every passage gets one, in batches of `reembed_batch` passages, each batch embedded
outside the write lock and stored in one short transaction with the job's record
(embedding_job.py), so a kill at any moment loses at most the batch in hand; once the
target covers every passage it becomes the active model in one transaction and the old
model's vectors are deleted in small batches. Search uses the active model throughout.
Between batches it gives way to interactive requests (`busy`), for at most
`reembed_yield_max_s`, so a steady stream of them slows the job without stopping it.
It runs on its own thread in the host (`wake`) or in the foreground (`run`, the CLI).
The job sits above the engine: it takes one (`JobEngine`, what it needs of it) and is
started by whoever holds both — the host's session (native/handlers.py: hello) or the CLI
(`reindex` here, for `rewind reindex`); the engine never starts it.
This module must never change passages or the text index, nor block a search.
"""

from __future__ import annotations

import errno
import logging
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..config import Settings
from ..errors import Code, RewindError, disk_full
from ..index.derived.text_index import TextIndex
from ..index.store.store import Store
from ..models import specs
from ..models.embedder import Embedder
from ..models.multilingual import embedder_class
from ..models.pieces import embed_passages
from . import embedding_job as record

log = logging.getLogger("rewind.reembed")

Progress = Callable[[dict], None]


class JobEngine(Protocol):
    """What the job needs of a profile's engine (profile/engine.py's `Rewind` is one)."""

    data_dir: Path
    model_dir: Path
    settings: Settings
    text_index: TextIndex

    def writing(self) -> AbstractContextManager[Store]: ...
    def reader(self) -> Store: ...
    def model_id(self) -> str: ...
    def embedder(self) -> Embedder | None: ...
    def switch_embedder(self, emb: Embedder) -> bool: ...
    def rebuild_indexes(self) -> None: ...


@dataclass
class Rate:
    """Passages a second, smoothed over recent batches (for the time left)."""

    per_s: float | None = None

    def add(self, n: int, seconds: float) -> None:
        if n <= 0 or seconds <= 0:
            return
        now = n / seconds
        self.per_s = now if self.per_s is None else 0.7 * self.per_s + 0.3 * now


def model_id_for(name: str, dim: int | None) -> str:
    """The model id ("name@dim") for an embedding model's name and optional dimension;
    BAD_REQUEST naming the choices when the model or the dimension is unknown."""
    spec = specs.embedding_spec(name)
    d = spec.dim if dim is None else dim
    if d != spec.dim and d not in spec.matryoshka_dims:
        dims = ", ".join(map(str, sorted({spec.dim, *spec.matryoshka_dims}, reverse=True)))
        raise RewindError(Code.BAD_REQUEST, f"{spec.name} cannot give {d}-dimensional vectors.",
                          f"Choose one of its dimensions: {dims}.")
    return f"{spec.name}@{d}"


class Reembedder:
    def __init__(self, engine: JobEngine, *, busy: Callable[[], bool] = lambda: False,
                 make_embedder: Callable[[str], Embedder] | None = None,
                 background: bool = True) -> None:
        """`background`: the commands wake a thread (the host); else the caller runs the
        steps (`run`, the CLI and tests)."""
        self.engine = engine
        self.background = background
        self.busy = busy
        self._make = make_embedder or self._open_embedder
        self._embedders: dict[str, Embedder] = {}
        self._cursor: dict[str, int] = {}  # model id -> last passage id looked at
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.rate = Rate()
        self.problem: str | None = None  # why the job cannot go on (a model gone)
        self.switched: list[str] = []  # models made active by this runner, in order

    # ---- the person's commands ------------------------------------------------------------

    def start(self, model_id: str) -> dict:
        """Begin re-embedding for `model_id` (its embedder is loaded first: a model that is
        not installed is refused before anything changes). The active model: nothing to do."""
        eng = self.engine
        if model_id == eng.model_id():
            with eng.writing() as store:
                if record.read(store) is not None:
                    record.clear(store)  # back to the model in use: the job's target is garbage
        else:
            self._embedder(model_id)
            with eng.writing() as store:
                job = record.read(store)
                if job is None or job.target != model_id:
                    record.begin(store, model_id)
                else:
                    record.set_state(store, "running")
            self._cursor.pop(model_id, None)
        self.problem = None
        self._kick()
        return self.status()

    def pause(self) -> dict:
        with self.engine.writing() as store:
            record.set_state(store, "paused")
        return self.status()

    def resume(self) -> dict:
        with self.engine.writing() as store:
            record.set_state(store, "running")
        self.problem = None
        self._kick()
        return self.status()

    def cancel(self) -> dict:
        """Stop the job; its partial vectors are deleted (in the background)."""
        with self.engine.writing() as store:
            record.clear(store)
        self._kick()
        return self.status()

    def status(self) -> dict:
        return status(self.engine, self)

    # ---- running --------------------------------------------------------------------------

    def wake(self) -> None:
        """Run the steps on a background thread until there is no work (or `stop`)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="reembed", daemon=True)
            self._thread.start()

    def _kick(self) -> None:
        if self.background:
            self.wake()

    def stop(self, timeout: float = 2.0) -> bool:
        """Ask the thread to stop after its current batch; whether it did within `timeout`."""
        self._stop.set()
        t = self._thread
        if t is not None:
            t.join(timeout)
            return not t.is_alive()
        return True

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def holds_embedders(self) -> bool:
        return bool(self._embedders)

    def let_go(self) -> bool:
        """At rest: drop the embedders this runner loaded (a job's target model), unless
        its thread runs; `start` and the next step load them again. Whether any went."""
        with self._lock:
            if self.running() or not self._embedders:
                return False
            self._embedders.clear()
            return True

    def _loop(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    if not self.step():
                        return
                except (RewindError, OSError) as exc:
                    full = exc.code is Code.DISK_FULL if isinstance(exc, RewindError) \
                        else exc.errno == errno.ENOSPC
                    if not full:
                        raise
                    # nothing half-stored (one transaction a batch): wait for room, go on
                    self.problem = disk_full(self.engine.data_dir, "re-embedding waits").message
                    log.warning("%s", self.problem)
                    self._stop.wait(self.engine.settings.reembed_disk_full_wait_s)
                    continue
                self.problem = None
                self._give_way()
        except Exception as exc:  # a thread's failure must not vanish: say it in stats
            self.problem = f"{type(exc).__name__}: {exc}"
            log.exception("re-embedding stopped")

    def _give_way(self) -> None:
        """Wait while interactive requests are in flight (bounded: the job still moves)."""
        limit = time.monotonic() + self.engine.settings.reembed_yield_max_s
        while self.busy() and time.monotonic() < limit and not self._stop.is_set():
            time.sleep(0.02)

    def run(self, progress: Progress | None = None) -> dict:
        """Run every step in this thread until there is no work (the CLI's foreground)."""
        total = 0
        while self.step():
            total += 1
            if progress:
                progress(self.status())
        return self.status()

    def step(self) -> bool:
        """One unit of work; False when there is none (or the job waits for its owner)."""
        eng = self.engine
        store = eng.reader()
        job = record.read(store)
        active = eng.model_id()
        # The model is loaded only for passages that lack its vectors (a helper that wakes
        # the job at hello must not load it for nothing: resting).
        missing = store.passages_missing_vectors(active, self._cursor.get(active, 0), 1)
        emb = eng.embedder() if missing else None
        if emb is not None and emb.model_id == active and self._fill(emb, active, stamp=True):
            return True
        if job is not None and job.state == "running" and not job.owner_alive():
            try:
                target = self._embedder(job.target)
            except RewindError as exc:
                self.problem = exc.message
                return False
            if self._fill(target, job.target, stamp=False, job=True):
                return True
            if eng.switch_embedder(target):
                self.switched.append(job.target)
                self._cursor.pop(active, None)
                log.info("re-embedding done: %s is the active model (was %s)",
                         job.target, active)
            else:
                self._cursor[job.target] = 0  # something behind the cursor: look again
            return True
        keep = {eng.model_id(), *([job.target] if job else [])}
        for model_id in record.garbage_models(store, keep):
            with eng.writing() as w:
                gone = record.drop_vectors(w, model_id)
            log.info("deleted %d vectors of %s (no longer used)", gone, model_id)
            self._embedders.pop(model_id, None)
            return True
        return False

    def _fill(self, emb: Embedder, model_id: str, *, stamp: bool, job: bool = False) -> bool:
        """Embed one batch of passages without a `model_id` vector; False when none is left.
        Passage ids only grow, so the cursor only moves on: a passage behind it has a vector
        (`finish` checks them all once more before a switch)."""
        eng = self.engine
        store = eng.reader()
        batch = eng.settings.reembed_batch
        after = self._cursor.get(model_id, 0)
        ids = store.passages_missing_vectors(model_id, after, batch)
        if not ids:
            self._cursor[model_id] = max(after, store.max_passage_id())
            return False
        self._cursor[model_id] = ids[-1]
        start = time.perf_counter()
        found = store.passages_by_ids(ids)
        ids = [pid for pid in ids if pid in found]
        vectors = embed_passages(emb, [found[pid][1].text for pid in ids])
        with eng.writing() as w:
            written = w.add_vectors(ids, vectors, model_id, stamp=stamp,
                                    then=record.claim if job else None)
            record.add_truncated(w, model_id, vectors.truncated)
        self.rate.add(written, time.perf_counter() - start)
        return True

    # ---- embedders ------------------------------------------------------------------------

    def _embedder(self, model_id: str) -> Embedder:
        emb = self._embedders.get(model_id)
        if emb is None:
            emb = self._embedders[model_id] = self._make(model_id)
        return emb

    def _open_embedder(self, model_id: str) -> Embedder:
        current = self.engine.embedder()
        if current is not None and current.model_id == model_id:
            return current
        name, _, dim = model_id.partition("@")
        spec = specs.embedding_spec(name)
        return embedder_class(spec)(spec, self.engine.model_dir, self.engine.settings,
                                    dim=int(dim) if dim else None)


def reindex(engine: JobEngine, progress: Progress | None = None) -> dict:
    """Rebuild the derived indexes, then embed what lacks a vector, in this thread (a
    recorded job too; `rewind reindex --model` starts one)."""
    engine.rebuild_indexes()
    before = engine.reader().unembedded(engine.model_id())
    Reembedder(engine).run(progress)
    return {"embedded_passages": before - engine.reader().unembedded(engine.model_id()),
            "text_docs": engine.text_index.num_docs()}


def status(engine: JobEngine, runner: Reembedder | None = None) -> dict | None:
    """The job as stats show it: {model, done, total, state, eta_s, ...}; None when no
    job is recorded and nothing is being filled in or deleted."""
    store = engine.reader()
    job = record.read(store)
    total = store.passage_count()
    working = runner is not None and (runner.running() or not runner.background)
    if job is None:
        if runner is not None and runner.problem:
            return {"model": None, "state": "failed", "problem": runner.problem}
        missing = store.unembedded(engine.model_id()) if runner and runner.running() else 0
        if not missing:
            return None
        rate = runner.rate.per_s if runner else None
        return {"model": engine.model_id(), "state": "filling", "done": total - missing,
                "total": total, "percent": round(100.0 * (total - missing) / total, 1),
                "eta_s": round(missing / rate) if rate else None, "problem": None}
    done = min(job.done, total)
    rate = runner.rate.per_s if runner is not None else None
    state = job.state
    if state == "running" and runner is not None and runner.problem:
        state = "failed"
    elif state == "running" and not working and not job.owner_alive():
        state = "waiting"  # recorded as running, and nobody runs it now
    eta = round((total - done) / rate) if rate and state == "running" else None
    return {"model": job.target, "state": state, "done": done, "total": total,
            "percent": round(100.0 * done / total, 1) if total else 100.0, "eta_s": eta,
            "started": job.started, "problem": runner.problem if runner else None}
