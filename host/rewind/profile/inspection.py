"""What a profile holds, read for people and for doctor: stats, pages, and the derived
indexes against the store (a part of the engine, given its readers and indexes).

This module must never write: everything here reads through `reader()` (SQLite WAL
readers never wait for a writer) or the engine's in-memory indexes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..capture import urls
from ..index.derived import integrity
from . import embedding_job, language_mix, retention

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from ..config import Settings
    from ..index.derived.text_index import TextIndex
    from ..index.store.at_rest import AtRest
    from ..index.store.store import Store
    from .embedding import ActiveModel, Vectors


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


class Inspector:
    def __init__(self, reader: Callable[[], Store], settings: Callable[[], Settings],
                 data_dir: Path, text_index: TextIndex, model: ActiveModel, vectors: Vectors,
                 at_rest: AtRest, sizes: Callable[[Store], retention.Sizes],
                 held: Callable[[], int]) -> None:
        """`settings` is read at each use (a person may change them while the host runs);
        `sizes` measures a store (retention.py), `held` counts the pages held."""
        self.reader = reader
        self.settings = settings
        self.data_dir = data_dir
        self.text_index = text_index
        self.model = model
        self.vectors = vectors
        self.at_rest = at_rest
        self.sizes = sizes
        self.held = held

    def page_info(self, url: str) -> dict | None:
        """The stored page for `url` (normalised as pages are keyed), or None."""
        page = self.reader().page_by_url(urls.normalize(url, self.settings().max_url_chars))
        return page.to_dict() if page else None

    def list_pages(self, offset: int = 0, limit: int = 100) -> list[dict]:
        return [p.to_dict() for p in self.reader().list_pages(offset, limit)]

    def export_pages(self, offset: int = 0, limit: int = 100) -> list[dict]:
        """Pages with their passages (no vectors: they are rebuilt from text on import)."""
        store = self.reader()
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
        store = self.reader()
        last = store.last_indexed()
        counts = store.counts()
        sizes = self.sizes(store)
        settings = self.settings()
        model_id = self.model.model_id()
        return {
            **counts,
            "storage_bytes": sizes.file_bytes,
            "storage": sizes.to_dict(),
            "retention": {"max_age_days": settings.retention_max_age_days,
                          "max_mb": settings.retention_max_mb},
            "encryption": self.at_rest.to_dict(),
            "last_indexed": {"url": last.url, "title": last.title, "at": last.indexed_at}
            if last else None,
            "embedding_model": model_id,
            "embedder_ready": self.model.ready(),
            "embedder_problem": self.model.problem,
            "unembedded_passages": store.unembedded(model_id),
            "embedder_load_s": None if self.model.load_s is None
            else round(self.model.load_s, 2),
            "split_passages": embedding_job.split_passages(store, model_id),
            "truncated_passages": embedding_job.truncated(store, model_id),
            "data_dir": str(self.data_dir),
            # pages per language; the model offer
            "languages": language_mix.summary(self.text_index, settings,
                                              self.model.model_dir, model_id),
            "held": self.held(),
        }

    def integrity(self) -> list[str]:
        return self.reader().integrity()

    def text_index_state(self) -> TextIndexState:
        store = self.reader()
        seq, applied = store.seq(), self.text_index.applied_seq()
        stored = store.passage_ids()
        damage = integrity.problems(self.text_index.dir, full=True, remember=False)
        if damage or self.text_index.damage:
            return TextIndexState(seq, applied, stored, set(), damage or self.text_index.damage)
        self.text_index.reload()
        return TextIndexState(seq, applied, stored, self.text_index.passage_ids(), [])

    def vector_state(self) -> VectorState | None:
        """Vectors of the store's model against its passages; None without an embedder."""
        if self.model.embedder() is None:
            return None
        store = self.reader()
        with self.vectors.lock:
            vectors = self.vectors.index()
            assert vectors is not None  # an embedder: its index
            vectors.refresh(store)
            ids = set(vectors.passage_ids.tolist())
        return VectorState(ids, store.unembedded(self.model.model_id()))
