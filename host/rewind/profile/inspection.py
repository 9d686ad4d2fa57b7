"""What a profile holds, read for people and for doctor: stats, pages, and the derived
indexes against the store (a mixin of `Rewind`, which holds the stores).

This module must never write: everything here reads through `_reader()` (SQLite WAL
readers never wait for a writer) or the engine's in-memory indexes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..capture import urls
from ..index import integrity
from . import embedding_job, language_mix, retention

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable
    from pathlib import Path

    from ..config import Settings
    from ..index.at_rest import AtRest
    from ..index.embedder import Embedder
    from ..index.store import Store
    from ..index.text_index import TextIndex
    from ..index.vectors import VectorIndex


@dataclass
class TextIndexState:
    """The text index against the store, for doctor."""

    seq: int  # the store's change sequence
    applied: int  # the last change the text index applied
    stored: set[int]  # passage ids in the store
    indexed: set[int]  # passage ids in the text index
    damage: list[str]  # what a full check of its files found (empty: whole)


@dataclass
class VectorState:
    vector_ids: set[int]  # passages with a vector of the store's model
    missing: int  # passages without one


class Inspection:
    """Needs from the engine: its data_dir, settings, stores (`_reader()`), text index,
    vector index (`_vector_index()` under `_vec_lock`), embedder and encryption state."""

    data_dir: Path
    settings: Settings
    text_index: TextIndex
    at_rest: AtRest
    embedder_load_s: float | None
    _embedder_problem: str | None
    _vec_lock: threading.Lock
    _reader: Callable[[], Store]
    _vector_index: Callable[[], VectorIndex | None]
    embedder: Callable[[], Embedder | None]
    model_id: Callable[[], str]
    sizes: Callable[..., retention.Sizes]

    def page_info(self, url: str) -> dict | None:
        """The stored page for `url` (normalised as pages are keyed), or None."""
        page = self._reader().page_by_url(urls.normalize(url, self.settings.max_url_chars))
        return page.to_dict() if page else None

    def list_pages(self, offset: int = 0, limit: int = 100) -> list[dict]:
        return [p.to_dict() for p in self._reader().list_pages(offset, limit)]

    def export_pages(self, offset: int = 0, limit: int = 100) -> list[dict]:
        """Pages with their passages (no vectors: they are rebuilt from text on import)."""
        store = self._reader()
        pages = store.list_pages(offset, limit)
        rows = store.passages_of([p.id for p in pages])
        by_page: dict[int, list[dict]] = {}
        for _pid, page_id, p in rows:
            by_page.setdefault(page_id, []).append(
                {"text": p.text, "position": p.position, "quality": p.quality})
        return [{**p.to_dict(), "passages": by_page.get(p.id, [])} for p in pages]

    def storage_bytes(self) -> int:
        return retention.dir_bytes(self.data_dir)

    def stats(self) -> dict:
        store = self._reader()
        last = store.last_indexed()
        counts = store.counts()
        sizes = self.sizes(store)
        return {
            **counts,
            "storage_bytes": sizes.file_bytes,
            "storage": sizes.to_dict(),
            "retention": {"max_age_days": self.settings.retention_max_age_days,
                          "max_mb": self.settings.retention_max_mb},
            "encryption": self.at_rest.to_dict(),
            "last_indexed": {"url": last.url, "title": last.title, "at": last.indexed_at}
            if last else None,
            "embedding_model": self.model_id(),
            "embedder_ready": self.embedder() is not None,
            "embedder_problem": self._embedder_problem,
            "unembedded_passages": store.unembedded(self.model_id()),
            "embedder_load_s": None if self.embedder_load_s is None
            else round(self.embedder_load_s, 2),
            "split_passages": embedding_job.split_passages(store, self.model_id()),
            "truncated_passages": embedding_job.truncated(store, self.model_id()),
            "data_dir": str(self.data_dir),
            "languages": language_mix.summary(self),  # pages per language; the model offer
            "held": self.holding().count(),  # type: ignore[attr-defined]
        }

    def integrity(self) -> list[str]:
        return self._reader().integrity()

    def text_index_state(self) -> TextIndexState:
        store = self._reader()
        seq, applied = store.seq(), self.text_index.applied_seq()
        stored = store.passage_ids()
        damage = integrity.problems(self.text_index.dir, full=True, remember=False)
        if damage or self.text_index.damage:
            return TextIndexState(seq, applied, stored, set(), damage or self.text_index.damage)
        self.text_index.reload()
        return TextIndexState(seq, applied, stored, self.text_index.passage_ids(), [])

    def vector_state(self) -> VectorState | None:
        """Vectors of the store's model against its passages; None without an embedder."""
        if self.embedder() is None:
            return None
        store = self._reader()
        with self._vec_lock:
            vectors = self._vector_index()
            vectors.refresh(store)
            ids = set(vectors.passage_ids.tolist())
        return VectorState(ids, store.unembedded(self.model_id()))
