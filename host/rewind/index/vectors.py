"""Dense passage search: a numpy matrix of unit vectors, derived from the store.

Rows are the passages that have a vector of the active model. The matrix is
loaded from the store at start and kept current lazily: before a search,
`refresh` applies the store's changes since the sequence it last saw (its own
process's writes and other processes' alike). Exact brute-force top-k.

This module must never write to the store, nor compare vectors of two models.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .store import Store

# Above this share of changed pages, reloading everything is cheaper than patching.
_FULL_RELOAD_SHARE = 0.2


@dataclass
class DenseHit:
    passage_id: int
    page_id: int
    similarity: float


class VectorIndex:
    def __init__(self, model_id: str, dim: int):
        self.model_id = model_id
        self.dim = dim
        self.seq = -1
        self.passage_ids = np.empty(0, np.int64)
        self.page_ids = np.empty(0, np.int64)
        self.matrix = np.empty((0, dim), np.float32)
        self._order: np.ndarray | None = None  # argsort of passage_ids, for vectors_for
        self._sorted = np.empty(0, np.int64)

    def __len__(self) -> int:
        return len(self.passage_ids)

    def refresh(self, store: Store) -> None:
        target = store.seq()  # read first: changes after it are re-applied next time, harmlessly
        if target == self.seq:
            return
        if self.seq < 0:
            self._load(store, None)
        else:
            changed, deleted = store.changes_since(self.seq)
            touched = np.fromiter({*changed, *deleted}, np.int64)
            if len(touched) > _FULL_RELOAD_SHARE * max(1, len(np.unique(self.page_ids))):
                self._load(store, None)
            else:
                keep = ~np.isin(self.page_ids, touched)
                pids, pages, mat = store.vectors_of(changed, self.model_id)
                self.passage_ids = np.concatenate([self.passage_ids[keep], pids])
                self.page_ids = np.concatenate([self.page_ids[keep], pages])
                mat = mat if len(mat) else np.empty((0, self.dim), np.float32)
                self.matrix = np.concatenate([self.matrix[keep], self._check(mat)])
        self._order = None
        self.seq = target

    def _load(self, store: Store, _pages: list[int] | None) -> None:
        pids, pages, mat = store.vectors_of(None, self.model_id)
        self.passage_ids, self.page_ids = pids, pages
        self.matrix = self._check(mat) if len(mat) else np.empty((0, self.dim), np.float32)

    def _check(self, mat: np.ndarray) -> np.ndarray:
        if mat.shape[1] != self.dim:
            raise ValueError(f"stored vectors have {mat.shape[1]} dims, model has {self.dim}")
        return np.ascontiguousarray(mat)

    def search(self, query: np.ndarray, k: int,
               allowed_pages: np.ndarray | None = None) -> list[DenseHit]:
        """Top-k passages by cosine (dot product of unit vectors), best first."""
        if not len(self.passage_ids) or k <= 0:
            return []
        if allowed_pages is not None:
            rows = np.flatnonzero(np.isin(self.page_ids, allowed_pages))
            if not len(rows):
                return []
            scores = self.matrix[rows] @ query
        else:
            rows = None
            scores = self.matrix @ query
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        idx = rows[top] if rows is not None else top
        return [DenseHit(int(self.passage_ids[i]), int(self.page_ids[i]), float(scores[j]))
                for i, j in zip(idx, top, strict=True)]

    def vectors_for(self, passage_ids: list[int]) -> np.ndarray:
        """Rows for `passage_ids` (zeros where a passage has no vector), in that order."""
        if self._order is None or len(self._order) != len(self.passage_ids):
            self._order = np.argsort(self.passage_ids)  # once per refresh, not per call
            self._sorted = self.passage_ids[self._order]
        order, sorted_ids = self._order, self._sorted
        wanted = np.asarray(passage_ids, np.int64)
        pos = np.clip(np.searchsorted(sorted_ids, wanted), 0, max(0, len(sorted_ids) - 1))
        out = np.zeros((len(wanted), self.dim), np.float32)
        if len(sorted_ids):
            found = sorted_ids[pos] == wanted
            out[found] = self.matrix[order[pos[found]]]
        return out
