"""Dense passage search: 1-bit codes scanned in memory, the best candidates rescored exactly.

Each passage with a vector of the active model has a 1-bit code and an int8 row
(index/derived/codes.py: 48 + 384 bytes at 384 dimensions, against 1,536 for float32). A search
runs four stages: every code by Hamming distance, keeping the `candidates` nearest; their
codes scored against the query's components, keeping the `refine` best; their int8 rows
(memory-mapped: only these rows are read), keeping the `rescore` best; their stored
vectors (float16, the truth, from the store), ranked by exact cosine. The
similarities returned are exact, and the top k equals exact search unless a true neighbour
is lost in the first three stages (bench/perf/scale.py measures how often: recall@10 against
exact float32 search).

The codes are derived from the store and kept as a memory-mapped snapshot
(index/derived/vector_file.py) that remembers the store sequence it reflects. `refresh` opens it
(or builds it, streaming the store), then applies the store's changes since that sequence
(its own process's writes and other processes' alike) as an in-memory delta; when the delta
grows, a writer folds it into a new snapshot. A crash at any moment leaves a snapshot at an
older sequence, which the next refresh catches up.

This module must never write to the store, nor compare vectors of two models.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ... import heap
from ..crypto.cipher import FieldCipher
from ..store.store import Store
from . import codes, vector_file
from .vector_file import Snapshot

# Above this share of changed pages, rebuilding everything is cheaper than patching.
_FULL_RELOAD_SHARE = 0.2
# Candidates kept by the Hamming scan (at least 10 k), by their codes' scores against the
# query for the int8 stage, and by their int8 rows for exact rescoring (at least 1.25 k:
# int8 ranks close to exact, so a quarter more rows than asked for is margin enough).
# Chosen with bench/perf/scale.py at 100k and 1M passages (docs/benchmarks.md).
CANDIDATES = 15_000
REFINE = 4_000
RESCORE = 100
# A delta this large (rows added or removed since the snapshot) is folded into a new one.
COMPACT_MIN_ROWS = 10_000
COMPACT_SHARE = 0.1
SAMPLE = 50_000  # the quantiser is fitted on up to this many vectors


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

    @classmethod
    def none(cls) -> Shortlist:
        return cls(np.empty(0, np.int64), np.empty(0, np.int64))


class VectorIndex:
    """Codes of one model's vectors. `directory`: where the snapshot lives (None: memory
    only); `persist`: whether this process may write it (read-only engines only read it);
    `bits`: code length, the first `bits` dimensions (fewer: Matryoshka truncation);
    `cipher`: an encrypted store's, which seals the snapshot (vector_file.py)."""

    def __init__(self, model_id: str, dim: int, directory: Path | None = None, *,
                 persist: bool = True, bits: int | None = None,
                 candidates: int = CANDIDATES, refine: int = REFINE, rescore: int = RESCORE,
                 cipher: FieldCipher | None = None):
        self.model_id = model_id
        self.cipher = cipher
        self.dim = dim
        self.bits = min(bits or dim, dim)
        self.candidates = candidates
        self.refine = refine
        self.rescore = rescore
        self.path = directory / f"{snapshot_prefix(model_id)}{self.bits}.rvec" \
            if directory else None
        self.persist = persist and directory is not None
        self.seq = -1
        self._store: Store | None = None
        self._snap: Snapshot | None = None
        self._dead = np.zeros(0, bool)  # snapshot rows deleted since it was written
        self._n_dead = 0
        self._pages = 0  # distinct pages in the snapshot
        self._extra_pids = np.empty(0, np.int64)  # rows added since the snapshot
        self._extra_pages = np.empty(0, np.int64)
        self._extra_codes = np.empty((codes.words(self.bits), 0), np.uint64)
        self._extra_int8 = np.empty((0, dim), np.int8)

    # ---- what it holds ------------------------------------------------------------------

    def __len__(self) -> int:
        base = len(self._snap) - self._n_dead if self._snap is not None else 0
        return base + len(self._extra_pids)

    @property
    def passage_ids(self) -> np.ndarray:
        """Every indexed passage id (snapshot rows still alive, then the delta)."""
        if self._snap is None:
            return self._extra_pids
        return np.concatenate([np.asarray(self._snap.passage_ids)[~self._dead],
                               self._extra_pids])

    def bytes_per_passage(self) -> int:
        """Memory scanned per passage on every search: its code, passage id and page id.
        (Its int8 row lies in the memory-mapped file, read only when it is a candidate.)"""
        return codes.words(self.bits) * 8 + 16

    def snapshot_bytes(self) -> int:
        return self.path.stat().st_size if self.path and self.path.exists() else 0

    # ---- catching up ----------------------------------------------------------------------

    def refresh(self, store: Store) -> None:
        """Catch up with `store`; later searches read exact vectors through it."""
        self._store = store
        target = store.seq()  # read first: changes after it are re-applied next time, harmlessly
        if target == self.seq:
            return
        if self._snap is None:
            snap = vector_file.read(self.path, self.model_id, self.dim, self.bits,
                                    store.store_id(), self.cipher) if self.path else None
            if snap is None or snap.seq > store.seq():  # none, or from a restored store's future
                snap = self._build(store, target)
            self._set_base(snap)
        if self.seq < target:
            self._apply(store, target)

    def _set_base(self, snap: Snapshot) -> None:
        self._snap = snap
        self._dead = np.zeros(len(snap), bool)
        self._n_dead = 0
        self._pages = int(np.count_nonzero(np.diff(snap.page_ids))) + 1 if len(snap) else 0
        self._extra_pids = np.empty(0, np.int64)
        self._extra_pages = np.empty(0, np.int64)
        self._extra_codes = np.empty((codes.words(self.bits), 0), np.uint64)
        self._extra_int8 = np.empty((0, self.dim), np.int8)
        self.seq = snap.seq
        heap.give_back()  # the base this one replaces, and the arrays that built it

    def _build(self, store: Store, target: int, point: str = "vector_snapshot") -> Snapshot:
        """Every vector of the model, streamed from the store, as a new snapshot."""
        pids, pages, parts, rows8 = [], [], [], []
        quant = None
        for ids, page_ids, mat in store.iter_vectors(self.model_id, SAMPLE):
            self._check(mat)
            if quant is None:
                quant = codes.Quantiser.fit(mat, self.dim, self.bits)
            pids.append(ids)
            pages.append(page_ids)
            parts.append(quant.codes(mat))
            rows8.append(quant.int8(mat))
        if quant is None:
            quant = codes.Quantiser.fit(np.empty((0, self.dim), np.float32), self.dim, self.bits)
        snap = self._sorted_snapshot(
            target, quant, np.concatenate([np.empty(0, np.int64), *pids]),
            np.concatenate([np.empty(0, np.int64), *pages]),
            np.concatenate([np.empty((codes.words(self.bits), 0), np.uint64), *parts], axis=1),
            np.concatenate([np.empty((0, self.dim), np.int8), *rows8]))
        return self._save(snap, point)

    def _sorted_snapshot(self, seq: int, quant: codes.Quantiser, pids: np.ndarray,
                         pages: np.ndarray, code: np.ndarray, rows8: np.ndarray) -> Snapshot:
        order = np.lexsort((pids, pages))  # by page, then passage: a page's rows are a range
        return Snapshot(self.model_id, self.dim, self.bits, self._store.store_id(), seq,
                        quant, pids[order], pages[order], np.ascontiguousarray(code[:, order]),
                        rows8[order])

    def _save(self, snap: Snapshot, point: str = "vector_snapshot") -> Snapshot:
        """Write `snap` (when this process may) and return it memory-mapped from the file."""
        if not self.persist:
            return snap
        try:
            vector_file.write(self.path, snap, self.cipher, point)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
            return snap  # no room for the snapshot: kept in memory, written another time
        if self.cipher is not None:
            return snap  # read back, it would be a second copy in memory
        return vector_file.read(self.path, self.model_id, self.dim, self.bits,
                                snap.store_id) or snap

    def _apply(self, store: Store, target: int) -> None:
        changed, deleted = store.changes_since(self.seq)
        touched = np.unique(np.fromiter({*changed, *deleted}, np.int64))
        snap = self._snap
        if len(touched) > _FULL_RELOAD_SHARE * max(1, self._pages):
            self._set_base(self._build(store, target))
            return
        lo = np.searchsorted(snap.page_ids, touched, "left")
        hi = np.searchsorted(snap.page_ids, touched, "right")
        for a, b in zip(lo[hi > lo], hi[hi > lo], strict=True):
            self._dead[a:b] = True
        self._n_dead = int(self._dead.sum())
        keep = ~np.isin(self._extra_pages, touched)
        pids, pages, mat = store.vectors_of(changed, self.model_id)
        mat = self._check(mat)  # a change that left no vectors (a forgotten page) is (0, dim)
        self._extra_pids = np.concatenate([self._extra_pids[keep], pids])
        self._extra_pages = np.concatenate([self._extra_pages[keep], pages])
        self._extra_codes = np.concatenate(
            [self._extra_codes[:, keep], snap.quantiser.codes(mat)], axis=1)
        self._extra_int8 = np.concatenate([self._extra_int8[keep], snap.quantiser.int8(mat)])
        self.seq = target
        delta = len(self._extra_pids) + self._n_dead
        if self.persist and delta >= max(COMPACT_MIN_ROWS, COMPACT_SHARE * len(snap)):
            self._compact(store, target)

    def _compact(self, store: Store, target: int) -> None:
        """Fold the delta into a new snapshot; a newly fitted one once the rows have doubled.
        With no room for it the new snapshot stays in memory (`_save`): the next compaction,
        or the next process's catch-up from the last file, writes it."""
        snap = self._snap
        if snap.quantiser.sample_rows < min(len(self), SAMPLE) / 2:
            self._set_base(self._build(store, target, point="vector_compaction"))
            return
        alive = ~self._dead
        new = self._sorted_snapshot(
            target, snap.quantiser,
            np.concatenate([np.asarray(snap.passage_ids)[alive], self._extra_pids]),
            np.concatenate([np.asarray(snap.page_ids)[alive], self._extra_pages]),
            np.concatenate([np.asarray(snap.codes)[:, alive], self._extra_codes], axis=1),
            np.concatenate([np.asarray(snap.int8)[alive], self._extra_int8]))
        self._set_base(self._save(new, point="vector_compaction"))

    def _check(self, mat: np.ndarray) -> np.ndarray:
        """`mat` as rows of this model's dimension (no rows: shape (0, dim))."""
        if not len(mat):
            return np.empty((0, self.dim), np.float32)
        if mat.shape[1] != self.dim:
            raise ValueError(f"stored vectors have {mat.shape[1]} dims, model has {self.dim}")
        return mat

    # ---- searching ------------------------------------------------------------------------

    def search(self, query: np.ndarray, k: int, allowed_pages: np.ndarray | None = None
               ) -> list[DenseHit]:
        """Top-k passages by exact cosine among the candidates of the three coarse stages
        (a search that reads nothing else: `shortlist`, then `rank`)."""
        query = np.asarray(query, np.float32)
        return self.rank(query, k, self.shortlist(query, k, allowed_pages))

    def shortlist(self, query: np.ndarray, k: int, allowed_pages: np.ndarray | None = None
                  ) -> Shortlist:
        """The coarse stages: the passages whose stored vectors `rank` reads. Memory only
        (the codes and the mapped int8 rows): a search runs its keyword half meanwhile."""
        if self._snap is None or not len(self) or k <= 0:
            return Shortlist.none()
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
        if len(rows) > keep:
            rows8 = _gather(snap.int8, self._extra_int8, rows, split, n, 0)
            approx = quant.int8_scores(rows8, query)
            rows = rows[np.argpartition(-approx, keep - 1)[:keep]]
        return Shortlist(_take(snap.passage_ids, self._extra_pids, rows, n),
                         _take(snap.page_ids, self._extra_pages, rows, n))

    def rank(self, query: np.ndarray, k: int, shortlist: Shortlist, *,
             also: Sequence[int] = (), memo: dict[int, np.ndarray] | None = None,
             ) -> list[DenseHit]:
        """The exact stage: the shortlist's stored vectors read and the top k by cosine.
        `also`: passages whose stored vectors are read in the same batch (a search's keyword
        hits), never ranked here; `memo` is given every vector read (a passage's first
        piece; zeros for one without a vector), for `vectors_for`."""
        candidates = np.unique(shortlist.passage_ids)
        extra = (np.setdiff1d(np.asarray(also, np.int64), candidates)
                 if memo is not None and len(also) else np.empty(0, np.int64))
        if not len(candidates) and not len(extra):
            return []
        found, mat = self._exact(np.union1d(candidates, extra) if len(extra) else candidates)
        if memo is not None:
            _remember(memo, found, mat, extra, self.dim)
        if len(extra) and len(found):  # only the candidates are ranked
            ranked = np.isin(found, candidates)
            found, mat = found[ranked], mat[ranked]
        if not len(found):
            return []
        page_of = dict(zip(shortlist.passage_ids.tolist(), shortlist.page_ids.tolist(),
                           strict=True))
        found, scores = best_piece(found, mat @ np.asarray(query, np.float32))
        top = np.lexsort((found, -scores))[:k]
        return [DenseHit(int(found[i]), page_of[int(found[i])], float(scores[i])) for i in top]

    def _exact(self, passage_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self._store is None:
            raise RuntimeError("VectorIndex.refresh(store) must come before a search")
        found, mat = self._store.vectors_by_ids(passage_ids.tolist(), self.model_id)
        self._check(mat)
        return found, mat

    def vectors_for(self, passage_ids: list[int],
                    memo: dict[int, np.ndarray] | None = None) -> np.ndarray:
        """Stored vectors for `passage_ids` (zeros where a passage has none), in that order;
        a passage in several pieces gives its first piece's. `memo`: vectors already read
        this search (filled with the ones read now), so each is read from the store once."""
        memo = {} if memo is None else memo
        out = np.zeros((len(passage_ids), self.dim), np.float32)
        wanted = np.unique(np.asarray([p for p in passage_ids if int(p) not in memo], np.int64))
        if len(wanted):
            found, mat = self._exact(wanted)
            _remember(memo, found, mat, wanted, self.dim)
        for j, pid in enumerate(passage_ids):
            out[j] = memo[int(pid)]
        return out


def snapshot_prefix(model_id: str) -> str:
    """How the names of a model's snapshot files begin (then its bits and .rvec)."""
    return re.sub(r"[^A-Za-z0-9_.@-]", "_", model_id) + "."


def best_piece(passage_ids: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct passage ids, the best score of each): a passage in pieces scores as its
    best piece."""
    order = np.argsort(-scores, kind="stable")
    ids, first = np.unique(passage_ids[order], return_index=True)
    return ids, scores[order][first]


def _remember(memo: dict[int, np.ndarray], found: np.ndarray, mat: np.ndarray,
              asked: Iterable[int], dim: int) -> None:
    """Each read passage's first piece into `memo`; zeros for one `asked` without a vector."""
    for i, pid in enumerate(found.tolist()):
        memo.setdefault(pid, mat[i])
    for pid in np.asarray(asked, np.int64).tolist():
        memo.setdefault(pid, np.zeros(dim, np.float32))


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
