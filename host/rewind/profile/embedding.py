"""The profile's active embedding model: which model the store's vectors are of, its
embedder, and the vector index searches read.

`ActiveModel`: the model id the store records (or the settings' default for an empty store)
and its embedder, loaded once — again when another process switched the store's model
(reembedding.py), or after the host let it go at rest (native/resting.py) — or None with
the `problem` that says why. `Vectors`: the vector index
of the active model (index/derived/vectors.py), made on first use, and its lock: a search holds it
while it reads, a switch or a rebuild while it lets the index and its snapshots go.
Lock order: `Vectors.lock`, then the write lock (a search holds the first while it may
load an embedder, which takes the thread lock), never the other way: the vectors are never
let go inside a write.
This module must never write to the store: the engine records a switch.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Settings
from ..errors import RewindError
from ..index.derived import vector_file
from ..index.derived.vectors import VectorIndex, snapshot_prefix
from ..models import installed, multilingual, specs
from ..models.embedder import Embedder

if TYPE_CHECKING:
    from ..index.crypto.cipher import FieldCipher
    from .stores import Stores


class ActiveModel:
    def __init__(self, stores: Stores, settings: Callable[[], Settings], model_dir: Path,
                 given: Embedder | None | str = "auto") -> None:
        """`given`: "auto" loads the store's model from `model_dir`; an embedder (or None:
        no model) is used as it is (tests, benchmarks)."""
        self._stores = stores
        self._settings = settings
        self.model_dir = model_dir
        self._given = given
        self._embedder: Embedder | None = None
        self._tried = False
        self.problem: str | None = None  # why there is no embedder
        self.load_s: float | None = None  # how long the model took to load (the last time)
        self.clock: Callable[[], float] = time.monotonic
        self.last_used = self.clock()  # when `embedder()` was last asked for
        self._let_go = False  # the embedder loaded, worked, and was let go at rest

    def model_id(self) -> str:
        """The embedding model whose vectors this store holds (or will hold)."""
        stored = self._stores.any().get_meta("embedding_model")
        if stored:
            return stored
        spec = specs.embedding_spec(self._settings().default_embedding_model)
        return f"{spec.name}@{spec.dim}"

    def embedder(self) -> Embedder | None:
        """The embedder, loaded once (again when the store's model was switched, or after
        it was let go at rest); None (with `problem`) when unusable."""
        self.last_used = self.clock()
        emb = self._embedder  # read before `_tried`: `let_go` clears them the other way round
        if (emb is not None or self._tried) and not self._switched():
            return emb
        with self._stores.thread_lock:
            if self._tried and not self._switched():
                return self._embedder
            self._embedder, self.problem = None, None
            if self._given != "auto":
                self._embedder = self._given  # type: ignore[assignment]
                if self._embedder is None:
                    self.problem = "no embedding model configured"
            else:
                try:
                    name, _, dim = self.model_id().partition("@")
                    spec = specs.embedding_spec(name)
                    start = time.perf_counter()
                    self._embedder = multilingual.embedder_class(spec)(
                        spec, self.model_dir, self._settings(), dim=int(dim) if dim else None)
                    self.load_s = time.perf_counter() - start
                except RewindError as exc:
                    self.problem = str(exc)
            self._tried, self._let_go = True, False
            return self._embedder

    def used_since(self, began: float) -> None:
        """A request that began at `began` (`clock`) ended now: if it asked for the
        embedder, its idle time starts now, not when it was asked for."""
        if self.last_used >= began:
            self.last_used = self.clock()

    def ready(self) -> bool:
        """Whether searches have an embedder, without loading it (the first search or page
        does) or counting as a use (the popup's stats must not keep it loaded): loaded, let
        go at rest after it worked, or not tried yet with its files installed. A model that
        is missing is tried, so that `problem` says why."""
        if self._embedder is not None or (self._let_go and not self._tried):
            return True
        if not self._tried and self._given == "auto":
            try:
                name = self.model_id().partition("@")[0]
                if installed.status(specs.embedding_spec(name), self.model_dir).installed:
                    return True
            except RewindError:
                pass
        return self.embedder() is not None

    def loaded(self) -> bool:
        return self._embedder is not None

    def let_go(self, idle_s: float) -> bool:
        """Drop the loaded embedder if not asked for in `idle_s` seconds; the next
        `embedder()` loads it again. A caller still holding it keeps it alive until done
        (the host lets go only with no request under way). An embedder given to the
        constructor is never let go."""
        if self._given != "auto" or self._embedder is None:
            return False
        with self._stores.thread_lock:
            if self._embedder is None or self.clock() - self.last_used < idle_s:
                return False
            # `_tried` first: a search that reads no embedder then sees it must load one.
            self._tried, self._let_go = False, True
            self._embedder = None
            return True

    def _switched(self) -> bool:
        if self._given != "auto" or self._embedder is None:
            return False
        stored = self._stores.reader().get_meta("embedding_model")  # this thread's connection
        return stored is not None and stored != self._embedder.model_id

    def use(self, emb: Embedder) -> None:
        """`emb` is the active model's embedder now (the store recorded the switch)."""
        self._embedder, self._tried, self.problem = emb, True, None


class Vectors:
    def __init__(self, data_dir: Path, model: ActiveModel, *, persist: bool,
                 cipher: FieldCipher | None) -> None:
        self.folder = data_dir / vector_file.DIRECTORY
        self._model = model
        self._persist = persist
        self._cipher = cipher
        self._index: VectorIndex | None = None
        self.lock = threading.Lock()

    def index(self) -> VectorIndex | None:
        """The active model's vector index (None without an embedder); under `lock`."""
        emb = self._model.embedder()
        if emb is None:
            return None
        if self._index is None or self._index.model_id != emb.model_id:
            # An encrypted store's snapshot is sealed with its key (vector_file.py).
            self._index = VectorIndex(emb.model_id, emb.dim, self.folder,
                                      persist=self._persist, cipher=self._cipher)
        return self._index

    def drop(self, model_id: str | None = None) -> None:
        """Let the index go (the next search makes it again) with its snapshots on disk:
        `model_id`'s, or (None) every one. Derived data: nothing is lost."""
        with self.lock:
            self._index = None
            if model_id is None:
                shutil.rmtree(self.folder, ignore_errors=True)
            elif self.folder.is_dir():
                for f in self.folder.glob(snapshot_prefix(model_id) + "*"):
                    f.unlink(missing_ok=True)

    def release(self) -> None:
        """Let the index go, keeping the snapshots (a search rebuilds it for the new model)."""
        with self.lock:
            self._index = None
