"""The search stages of the vector index, from the codes to the exact cosines, as functions.

`VectorIndex` (vectors.py) keeps an `IndexView` caught up with the store (the snapshot,
its deleted rows and the delta added since) and composes these stages over it; the
vectors one search has already are kept by a `VectorCache`. A search runs the coarse
stages in memory (`shortlist`: Hamming distances, bit scores, int8 cosines), then reads
the best few passages' stored vectors (`choose` says which) for their exact cosines
(`rank`). A search's other passages (keyword hits, the diversity pass's pool) get the
vectors their int8 rows stand for (`approximate`), within ~0.002 in cosine, instead of a
read from the store each.
The passages read are ranked first by their exact cosines, the rest after them by their int8
ones: ranked all together, an unread passage's rounding could pass a read one's exact cosine.
So ranked, recall@10 is the same from 16 reads up as with every one read (at 100,000 and a
million passages); `EXACT` (32) leaves a margin. A read costs ~2 µs of Python through sqlite3
(and an AES-GCM open in a sealed store), which a `WITHOUT ROWID` table does not change.
The stages read only what they are given: they never read the store (the index reads it
for them), never write to a view or its arrays, and never compare vectors of two models.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from . import codes
from .vector_file import Snapshot


@dataclass
class DenseHit:
    passage_id: int
    page_id: int
    similarity: float


@dataclass(frozen=True)
class IndexView:
    """What the stages read of an index: its snapshot, the snapshot's rows deleted since it
    was written, and the delta (rows added since, numbered from len(snap) on). The index
    replaces its view whole when it catches up, so a view once made never changes."""

    snap: Snapshot
    dead: np.ndarray  # bool, one per snapshot row
    n_dead: int
    extra_pids: np.ndarray  # int64, the delta's passages
    extra_pages: np.ndarray  # int64, the page of each
    extra_codes: np.ndarray  # (words, rows) uint64
    extra_int8: np.ndarray  # (rows, dim) int8
    extra_order: np.ndarray  # int64, the delta's rows by passage id

    @classmethod
    def of(cls, snap: Snapshot) -> IndexView:
        """`snap` alone: nothing deleted, no delta."""
        return cls(snap, np.zeros(len(snap), bool), 0, np.empty(0, np.int64),
                   np.empty(0, np.int64), np.empty((codes.words(snap.bits), 0), np.uint64),
                   np.empty((0, snap.dim), np.int8), np.empty(0, np.int64))

    def __len__(self) -> int:
        """The rows a search may find: the snapshot's still alive, then the delta's."""
        return len(self.snap) - self.n_dead + len(self.extra_pids)


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


@dataclass(frozen=True)
class Chosen:
    """A shortlist's distinct passages, each scored by its best piece's int8 cosine, and
    the ones whose stored vectors the ranking reads (`read`, ascending)."""
    passage_ids: np.ndarray
    scores: np.ndarray
    read: np.ndarray


class VectorCache:
    """The vectors one search already has (retrieval's, stored or int8; then the diversity
    pass's and the answer's): each passage's first piece, zeros for one without a vector.
    A passage's vector is kept once and never replaced, so one read exactly stays exact;
    the vectors kept are only ever read (one zero row stands for every passage without one)."""

    def __init__(self, dim: int):
        self.dim = dim
        self._vectors: dict[int, np.ndarray] = {}
        self._zero = np.zeros(dim, np.float32)

    def __contains__(self, passage_id: int) -> bool:
        return int(passage_id) in self._vectors

    def __getitem__(self, passage_id: int) -> np.ndarray:
        return self._vectors[int(passage_id)]

    def keep(self, found: np.ndarray, mat: np.ndarray, asked: Iterable[int] = ()) -> None:
        """Each found passage's first row of `mat`; zeros for one `asked` without a vector."""
        for pid, row in zip(found.tolist(), mat, strict=True):
            self._vectors.setdefault(pid, row)
        for pid in np.asarray(asked, np.int64).tolist():
            self._vectors.setdefault(pid, self._zero)

    def missing(self, passage_ids: Iterable[int]) -> np.ndarray:
        """The distinct passages among `passage_ids` whose vector this cache lacks."""
        return np.unique(np.asarray([p for p in passage_ids if int(p) not in self._vectors],
                                    np.int64))

    def lookup(self, passage_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(each passage's vector where kept, zeros elsewhere; the positions of the others)."""
        out = np.zeros((len(passage_ids), self.dim), np.float32)
        lacking = []
        for j, pid in enumerate(passage_ids.tolist()):
            row = self._vectors.get(pid)
            if row is None:
                lacking.append(j)
            else:
                out[j] = row
        return out, np.asarray(lacking, np.intp)


def shortlist(view: IndexView, query: np.ndarray, k: int,
              allowed_pages: np.ndarray | None = None, *, candidates: int, refine: int,
              rescore: int) -> Shortlist:
    """The coarse stages, scored by int8 cosines: memory only (the codes and the mapped int8
    rows), so a search runs its keyword half meanwhile. The `candidates` (at least 10 k)
    nearest codes by Hamming distance, the `refine` best of those by their bit scores, the
    `rescore` (at least 1.25 k) best of those by their int8 cosines."""
    if not len(view) or k <= 0:
        return Shortlist.none(view.snap.dim)
    snap, quant = view.snap, view.snap.quantiser
    query = np.asarray(query, np.float32)
    qcode = quant.codes(query[None])
    n = len(snap)
    dist = codes.hamming(snap.codes, qcode)
    if len(view.extra_pids):
        dist = np.concatenate([dist, codes.hamming(view.extra_codes, qcode)])
    if view.n_dead:
        dist[:n][view.dead] = codes.NO_MATCH
    if allowed_pages is not None:
        pages = np.concatenate([snap.page_ids, view.extra_pages])
        dist[~_member(pages, np.asarray(allowed_pages, np.int64))] = codes.NO_MATCH
    rows = codes.nearest(dist, max(candidates, 10 * k))  # ascending
    keep = max(rescore, k + k // 4)
    refine = max(refine, keep)
    split = int(np.searchsorted(rows, n))
    if len(rows) > refine:
        approx = quant.bit_scores(_gather(snap.codes, view.extra_codes, rows, split, n, 1),
                                  query)
        rows = np.sort(rows[np.argpartition(-approx, refine - 1)[:refine]])
        split = int(np.searchsorted(rows, n))
    rows8 = _gather(snap.int8, view.extra_int8, rows, split, n, 0)
    scores = quant.int8_scores(rows8, query)
    if len(rows) > keep:
        best = np.argpartition(-scores, keep - 1)[:keep]
        rows, rows8, scores = rows[best], rows8[best], scores[best]
    return Shortlist(_take(snap.passage_ids, view.extra_pids, rows, n),
                     _take(snap.page_ids, view.extra_pages, rows, n), scores,
                     quant.vectors(rows8))


def choose(shortlist: Shortlist, exact: int) -> Chosen:
    """The shortlist's passages, and the `exact` best of them by int8 cosine to be read."""
    candidates, approx = best_piece(shortlist.passage_ids, shortlist.scores)
    read = np.sort(candidates[np.lexsort((candidates, -approx))[:exact]])
    return Chosen(candidates, approx, read)


def rank(query: np.ndarray, k: int, shortlist: Shortlist, chosen: Chosen, found: np.ndarray,
         mat: np.ndarray) -> list[DenseHit]:
    """The top k of the shortlist: the passages read (`found`, their stored vectors `mat`;
    one of `chosen.read` not found was deleted, and is left out) ranked by exact cosine,
    then the others by their int8 cosines."""
    if not len(chosen.passage_ids):
        return []
    found, scores = best_piece(found, mat @ np.asarray(query, np.float32)) \
        if len(found) else (found, np.empty(0, np.float32))
    rest = ~np.isin(chosen.passage_ids, chosen.read)
    # The read ones first: the others are int8's runners-up, whose cosines may exceed a
    # read one's by the int8 rounding (ranked among them, 0.6% of the top 10s changed).
    ranked = [(found, scores.astype(np.float32)),
              (chosen.passage_ids[rest], chosen.scores[rest])]
    page_of = dict(zip(shortlist.passage_ids.tolist(), shortlist.page_ids.tolist(),
                       strict=True))
    hits = [DenseHit(int(ids[i]), page_of[int(ids[i])], float(sc[i]))
            for ids, sc in ranked for i in np.lexsort((ids, -sc))]
    return hits[:k]


def approximate(view: IndexView, passage_ids: np.ndarray, page_ids: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """What the (first) int8 row of each passage found in the view stands for: (the
    positions in `passage_ids` of the passages found, their vectors). `page_ids`: each
    passage's page (the snapshot's rows are found by page)."""
    rows = _rows_of(view, passage_ids, page_ids)
    order = np.argsort(rows)[np.count_nonzero(rows < 0):]  # found ones, by row
    n, found = len(view.snap), rows[order]
    vecs = view.snap.quantiser.vectors(_gather(
        view.snap.int8, view.extra_int8, found, int(np.searchsorted(found, n)), n, 0))
    return order, vecs


def best_piece(passage_ids: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct passage ids, the best score of each): a passage in pieces scores as its
    best piece."""
    order = np.argsort(-scores, kind="stable")
    ids, first = np.unique(passage_ids[order], return_index=True)
    return ids, scores[order][first]


def _rows_of(view: IndexView, pids: np.ndarray, pages: np.ndarray) -> np.ndarray:
    """The first row of each passage, -1 where it has none.
    Snapshot rows are sorted by (page, passage): a bisection within each page's range,
    all passages at once; then the delta, by its rows' order of passage ids."""
    snap, n = view.snap, len(view.snap)
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
        rows[(rows >= 0) & ((spids[at] != pids) | view.dead[at])] = -1
    if len(view.extra_pids):
        ordered = view.extra_pids[view.extra_order]
        j = np.minimum(np.searchsorted(ordered, pids), len(ordered) - 1)
        in_delta = (rows < 0) & (ordered[j] == pids)
        rows[in_delta] = n + view.extra_order[j[in_delta]]
    return rows


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
