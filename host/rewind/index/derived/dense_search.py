"""The search half of the vector index: its stages, from the codes to the exact cosines.

`DenseSearch` is a mixin of `VectorIndex` (vectors.py), which holds the snapshot, its delta
and the pool sizes and keeps them caught up with the store. A search runs the coarse stages
in memory (`shortlist`: Hamming distances, bit scores, int8 cosines), then reads the best
few passages' stored vectors for their exact cosines (`rank`). A search's other passages
(keyword hits, the diversity pass's pool) get the vectors their int8 rows stand for
(`approximate`), within ~0.002 in cosine, instead of a read from the store each.
The passages read are ranked first by their exact cosines, the rest after them by their int8
ones: ranked all together, an unread passage's rounding could pass a read one's exact cosine.
So ranked, recall@10 is the same from 16 reads up as with every one read (at 100,000 and a
million passages); `EXACT` (32) leaves a margin. A read costs ~2 µs of Python through sqlite3
(and an AES-GCM open in a sealed store), which a `WITHOUT ROWID` table does not change.
This module must never write to the store or the snapshot, nor compare vectors of two models.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..store.store import Store
from . import codes
from .vector_file import Snapshot


@dataclass
class DenseHit:
    passage_id: int
    page_id: int
    similarity: float


@dataclass
class Shortlist:
    """What the coarse stages kept for one query: rows (a passage's pieces may repeat)."""
    passage_ids: np.ndarray  # int64
    page_ids: np.ndarray  # int64, the page of each
    scores: np.ndarray  # float32, each row's int8 cosine with the query
    vectors: np.ndarray  # (rows, dim) float32, what each row's int8 values stand for

    @classmethod
    def none(cls, dim: int) -> Shortlist:
        return cls(np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.float32),
                   np.empty((0, dim), np.float32))


class DenseSearch:
    """Needs from the index: the snapshot and its delta, the pool sizes, `_check`."""

    dim: int
    model_id: str
    candidates: int
    refine: int
    rescore: int
    exact: int
    _store: Store | None
    _snap: Snapshot | None
    _dead: np.ndarray
    _n_dead: int
    _extra_pids: np.ndarray
    _extra_pages: np.ndarray
    _extra_codes: np.ndarray
    _extra_int8: np.ndarray
    _extra_order: np.ndarray
    __len__: Callable[[], int]
    _check: Callable[[np.ndarray], np.ndarray]

    def search(self, query: np.ndarray, k: int, allowed_pages: np.ndarray | None = None
               ) -> list[DenseHit]:
        """Top-k passages among the candidates of the coarse stages, the best by exact
        cosine (`shortlist`, then `rank`)."""
        query = np.asarray(query, np.float32)
        return self.rank(query, k, self.shortlist(query, k, allowed_pages))

    def shortlist(self, query: np.ndarray, k: int, allowed_pages: np.ndarray | None = None
                  ) -> Shortlist:
        """The coarse stages, scored by int8 cosines: memory only (the codes and the
        mapped int8 rows), so a search runs its keyword half meanwhile."""
        if self._snap is None or not len(self) or k <= 0:
            return Shortlist.none(self.dim)
        snap, quant = self._snap, self._snap.quantiser
        query = np.asarray(query, np.float32)
        qcode = quant.codes(query[None])
        n = len(snap)
        dist = codes.hamming(snap.codes, qcode)
        if len(self._extra_pids):
            dist = np.concatenate([dist, codes.hamming(self._extra_codes, qcode)])
        if self._n_dead:
            dist[:n][self._dead] = codes.NO_MATCH
        if allowed_pages is not None:
            pages = np.concatenate([snap.page_ids, self._extra_pages])
            dist[~_member(pages, np.asarray(allowed_pages, np.int64))] = codes.NO_MATCH
        rows = codes.nearest(dist, max(self.candidates, 10 * k))  # ascending
        keep = max(self.rescore, k + k // 4)
        refine = max(self.refine, keep)
        split = int(np.searchsorted(rows, n))
        if len(rows) > refine:
            approx = quant.bit_scores(_gather(snap.codes, self._extra_codes, rows, split, n, 1),
                                      query)
            rows = np.sort(rows[np.argpartition(-approx, refine - 1)[:refine]])
            split = int(np.searchsorted(rows, n))
        rows8 = _gather(snap.int8, self._extra_int8, rows, split, n, 0)
        scores = quant.int8_scores(rows8, query)
        if len(rows) > keep:
            best = np.argpartition(-scores, keep - 1)[:keep]
            rows, rows8, scores = rows[best], rows8[best], scores[best]
        return Shortlist(_take(snap.passage_ids, self._extra_pids, rows, n),
                         _take(snap.page_ids, self._extra_pages, rows, n), scores,
                         quant.vectors(rows8))

    def rank(self, query: np.ndarray, k: int, shortlist: Shortlist, *,
             memo: dict[int, np.ndarray] | None = None) -> list[DenseHit]:
        """The top k of the shortlist: its `exact` best passages read from the store,
        ranked by exact cosine, then the others by their int8 cosines. `memo` is given each
        passage's vector (exact where read; zeros for one without a stored vector)."""
        candidates, approx = best_piece(shortlist.passage_ids, shortlist.scores)
        if not len(candidates):
            return []
        read = np.sort(candidates[np.lexsort((candidates, -approx))[:self.exact]])
        found, mat = self._exact(read)
        if memo is not None:
            _remember(memo, found, mat, read, self.dim)
            _remember(memo, shortlist.passage_ids, shortlist.vectors, (), self.dim)
        found, scores = best_piece(found, mat @ np.asarray(query, np.float32)) \
            if len(found) else (found, np.empty(0, np.float32))
        rest = ~np.isin(candidates, read)  # a passage read but not found was deleted: left out
        # The read ones first: the others are int8's runners-up, whose cosines may exceed a
        # read one's by the int8 rounding (ranked among them, 0.6% of the top 10s changed).
        ranked = [(found, scores.astype(np.float32)), (candidates[rest], approx[rest])]
        page_of = dict(zip(shortlist.passage_ids.tolist(), shortlist.page_ids.tolist(),
                           strict=True))
        hits = [DenseHit(int(ids[i]), page_of[int(ids[i])], float(sc[i]))
                for ids, sc in ranked for i in np.lexsort((ids, -sc))]
        return hits[:k]

    def approximate(self, passage_ids: Sequence[int], page_ids: Sequence[int],
                    memo: dict[int, np.ndarray]) -> np.ndarray:
        """Each passage's vector from memory, in order: `memo`'s, else what its (first)
        int8 row stands for (zeros: not indexed). `page_ids`: each passage's page (the
        snapshot's rows are found by page). What is found is added to `memo`."""
        pids = np.asarray(passage_ids, np.int64)
        out = np.zeros((len(pids), self.dim), np.float32)
        new = np.fromiter((p not in memo for p in pids.tolist()), bool, len(pids))
        for j in np.flatnonzero(~new).tolist():  # read exactly already, mostly
            out[j] = memo[int(pids[j])]
        at = np.flatnonzero(new)
        if len(at) and self._snap is not None:
            rows = self._rows_of(pids[at], np.asarray(page_ids, np.int64)[at])
            order = np.argsort(rows)[np.count_nonzero(rows < 0):]  # found ones, by row
            n, found = len(self._snap), rows[order]
            vecs = self._snap.quantiser.vectors(_gather(
                self._snap.int8, self._extra_int8, found, int(np.searchsorted(found, n)), n, 0))
            out[at[order]] = vecs
            _remember(memo, pids[at[order]], vecs, pids[at], self.dim)
        return out

    def _rows_of(self, pids: np.ndarray, pages: np.ndarray) -> np.ndarray:
        """The first row of each passage, -1 where it has none.
        Snapshot rows are sorted by (page, passage): a bisection within each page's range,
        all passages at once; then the delta, by its rows' order of passage ids."""
        snap, n = self._snap, len(self._snap)
        spids = snap.passage_ids
        lo = np.searchsorted(snap.page_ids, pages, "left")
        hi = np.searchsorted(snap.page_ids, pages, "right")
        a, b = lo.copy(), hi.copy()
        for _ in range(int((hi - lo).max(initial=0)).bit_length()):
            mid = (a + b) // 2
            less = (a < b) & (spids[np.minimum(mid, n - 1)] < pids)
            a, b = np.where(less, mid + 1, a), np.where((a < b) & ~less, mid, b)
        at = np.minimum(a, max(n - 1, 0))
        rows = np.where(a < hi, at, -1)  # an empty snapshot has no range: all -1
        if n:
            rows[(rows >= 0) & ((spids[at] != pids) | self._dead[at])] = -1
        if len(self._extra_pids):
            ordered = self._extra_pids[self._extra_order]
            j = np.minimum(np.searchsorted(ordered, pids), len(ordered) - 1)
            in_delta = (rows < 0) & (ordered[j] == pids)
            rows[in_delta] = n + self._extra_order[j[in_delta]]
        return rows

    def _exact(self, passage_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self._store is None:
            raise RuntimeError("VectorIndex.refresh(store) must come before a search")
        found, mat = self._store.vectors_by_ids(passage_ids.tolist(), self.model_id)
        self._check(mat)
        return found, mat

    def vectors_for(self, passage_ids: list[int],
                    memo: dict[int, np.ndarray] | None = None) -> np.ndarray:
        """Vectors for `passage_ids` (zeros where a passage has none), in that order: the
        stored ones (a passage in several pieces gives its first piece's), or `memo`'s,
        the vectors this search already has (filled with the ones read now)."""
        memo = {} if memo is None else memo
        out = np.zeros((len(passage_ids), self.dim), np.float32)
        wanted = np.unique(np.asarray([p for p in passage_ids if int(p) not in memo], np.int64))
        if len(wanted):
            found, mat = self._exact(wanted)
            _remember(memo, found, mat, wanted, self.dim)
        for j, pid in enumerate(passage_ids):
            out[j] = memo[int(pid)]
        return out


def best_piece(passage_ids: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct passage ids, the best score of each): a passage in pieces scores as its
    best piece."""
    order = np.argsort(-scores, kind="stable")
    ids, first = np.unique(passage_ids[order], return_index=True)
    return ids, scores[order][first]


def _remember(memo: dict[int, np.ndarray], found: np.ndarray, mat: np.ndarray,
              asked: Iterable[int], dim: int) -> None:
    """Each read passage's first piece into `memo`; zeros for one `asked` without a vector
    (one array for them all: vectors in `memo` are only ever read)."""
    for pid, row in zip(found.tolist(), mat, strict=True):
        memo.setdefault(pid, row)
    zero = np.zeros(dim, np.float32)
    for pid in np.asarray(asked, np.int64).tolist():
        memo.setdefault(pid, zero)


def _member(values: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """values ∈ allowed, for non-negative ids: a lookup table, cheaper than np.isin at 1M."""
    if not len(allowed) or not len(values):
        return np.zeros(len(values), bool)
    table = np.zeros(int(max(values.max(), allowed.max())) + 1, bool)
    table[allowed[allowed >= 0]] = True
    return table[values]


def _gather(snap_part: np.ndarray, extra_part: np.ndarray, rows: np.ndarray, split: int,
            n: int, axis: int) -> np.ndarray:
    """`rows` (ascending; the first `split` in the snapshot, the rest in the delta, numbered
    from n) of the snapshot's and the delta's arrays along `axis`. Mostly no delta row is
    among them: one gather, without a copy of it into a concatenation (~0.1 ms a search)."""
    if split == len(rows):
        return np.take(snap_part, rows, axis=axis)
    return np.concatenate([np.take(snap_part, rows[:split], axis=axis),
                           np.take(extra_part, rows[split:] - n, axis=axis)], axis=axis)


def _take(snap_values: np.ndarray, extra_values: np.ndarray, rows: np.ndarray,
          n: int) -> np.ndarray:
    """Values of `rows` numbered across the snapshot (rows < n) and the delta after it."""
    out = np.empty(len(rows), np.int64)
    in_snap = rows < n
    out[in_snap] = snap_values[rows[in_snap]]
    out[~in_snap] = extra_values[rows[~in_snap] - n]
    return out
