"""The vector index: each passage's 1-bit code and int8 row, caught up with the store.

Each passage with a vector of the active model has a 1-bit code and an int8 row
(index/derived/codes.py: 48 + 384 bytes at 384 dimensions, against 1,536 for float32). A search
runs four stages (functions in dense_search.py, over this index's `IndexView`; this class
composes them and does their reads from the store): every code by Hamming distance,
keeping the `candidates` nearest; their codes scored against the query's components, keeping
the `refine` best; their int8 rows (memory-mapped: only these rows are read), scored within
~0.002 of the exact cosine, keeping the `rescore` best; the `exact` best of those read from
the store (float16, the truth) and scored exactly. The top 10 equals exact search unless a
true neighbour is lost on the way (bench/perf/scale.py measures how often: recall@10
against exact float32 search).

Why stages (docs/benchmarks.md, "Rewind at scale"): numpy has no int8 kernel, so scoring
every int8 row is too slow (11.5 ms at 100,000 passages, against 1.6 for the stages); 1-bit
codes alone, rescored from the store, need thousands of reads a search and still lose
neighbours at a million (3,000 candidates: recall@10 0.949). The int8 rows make a large pool
cheap, and the store's float16 ranks nearly as float32 does (recall@10 0.998 at 10,000
passages, where the stages keep every row). Codes of the first 256 dimensions (`bits`,
Matryoshka) lose recall with MiniLM, which was not trained for truncation. The int8 rows
are memory-mapped: a few hundred searches touch most of them, and the kernel maps each
touched large folio whole (`madvise(MADV_RANDOM)` changes nothing), so they are most of a
searching process's RSS at a million passages (~360 MB).

The codes are derived from the store and kept as a memory-mapped snapshot
(index/derived/vector_file.py) that remembers the store sequence it reflects. `refresh` opens it
(or builds it, streaming the store), then applies the store's changes since that sequence
(its own process's writes and other processes' alike) as an in-memory delta, in a new
`IndexView` each time (the view a search holds is never changed); when the delta
grows, a writer folds it into a new snapshot. A crash at any moment leaves a snapshot at an
older sequence, which the next refresh catches up.

This module must never write to the store, nor compare vectors of two models.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ... import heap
from ..crypto.cipher import FieldCipher
from ..store.store import Store
from . import codes, dense_search, vector_file
from .dense_search import DenseHit, IndexView, Shortlist, VectorCache
from .vector_file import Snapshot

# Above this share of changed pages, rebuilding everything is cheaper than patching.
_FULL_RELOAD_SHARE = 0.2
# Candidates kept by the Hamming scan (at least 10 k), by their codes' scores against the
# query for the int8 stage, by their int8 cosines (at least 1.25 k: a passage's pieces
# repeat), and of those the ones read from the store and ranked exactly (each read costs
# ~2 µs): int8 cosines are within ~0.002, and recall@10 at 100k and 1M is the same from
# 16 reads up as with every one read.
# Chosen with bench/perf/scale.py at 100k and 1M passages (docs/benchmarks.md).
CANDIDATES = 15_000
REFINE = 4_000
RESCORE = 100
EXACT = 32
# A delta this large (rows added or removed since the snapshot) is folded into a new one.
COMPACT_MIN_ROWS = 10_000
COMPACT_SHARE = 0.1
SAMPLE = 50_000  # the quantiser is fitted on up to this many vectors


class VectorIndex:
    """Codes of one model's vectors. `directory`: where the snapshot lives (None: memory
    only); `persist`: whether this process may write it (read-only engines only read it);
    `bits`: code length, the first `bits` dimensions (fewer: Matryoshka truncation);
    `cipher`: an encrypted store's, which seals the snapshot (vector_file.py)."""

    def __init__(self, model_id: str, dim: int, directory: Path | None = None, *,
                 persist: bool = True, bits: int | None = None,
                 candidates: int = CANDIDATES, refine: int = REFINE, rescore: int = RESCORE,
                 exact: int = EXACT, cipher: FieldCipher | None = None):
        self.model_id = model_id
        self.cipher = cipher
        self.dim = dim
        self.bits = min(bits or dim, dim)
        self.candidates = candidates
        self.refine = refine
        self.rescore = rescore
        self.exact = exact
        self.path = directory / f"{snapshot_prefix(model_id)}{self.bits}.rvec" \
            if directory else None
        self.persist = persist and directory is not None
        self.seq = -1
        self._store: Store | None = None
        self._view: IndexView | None = None  # the snapshot and its delta (None: not read yet)
        self._pages = 0  # distinct pages in the snapshot

    # ---- what it holds ------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._view) if self._view is not None else 0

    @property
    def passage_ids(self) -> np.ndarray:
        """Every indexed passage id (snapshot rows still alive, then the delta)."""
        view = self._view
        if view is None:
            return np.empty(0, np.int64)
        return np.concatenate([np.asarray(view.snap.passage_ids)[~view.dead], view.extra_pids])

    def bytes_per_passage(self) -> int:
        """Memory scanned per passage on every search: its code, passage id and page id.
        (Its int8 row lies in the memory-mapped file, read only when it is a candidate.)"""
        return codes.words(self.bits) * 8 + 16

    def snapshot_bytes(self) -> int:
        return self.path.stat().st_size if self.path and self.path.exists() else 0

    # ---- searching: the stages of dense_search.py over the view, reads from the store ------

    def search(self, query: np.ndarray, k: int, allowed_pages: np.ndarray | None = None
               ) -> list[DenseHit]:
        """Top-k passages among the candidates of the coarse stages, the best by exact
        cosine (`shortlist`, then `rank`)."""
        query = np.asarray(query, np.float32)
        return self.rank(query, k, self.shortlist(query, k, allowed_pages))

    def shortlist(self, query: np.ndarray, k: int, allowed_pages: np.ndarray | None = None
                  ) -> Shortlist:
        """The coarse stages (dense_search.shortlist), from memory only."""
        if self._view is None:
            return Shortlist.none(self.dim)
        return dense_search.shortlist(self._view, query, k, allowed_pages,
                                      candidates=self.candidates, refine=self.refine,
                                      rescore=self.rescore)

    def rank(self, query: np.ndarray, k: int, shortlist: Shortlist,
             cache: VectorCache | None = None) -> list[DenseHit]:
        """The top k of the shortlist: its `exact` best passages read from the store,
        ranked by exact cosine, then the others by their int8 cosines. `cache` is given
        each shortlisted passage's vector (exact where read; zeros for one without a
        stored vector)."""
        chosen = dense_search.choose(shortlist, self.exact)
        if not len(chosen.passage_ids):
            return []
        found, mat = self._exact(chosen.read)
        if cache is not None:
            cache.keep(found, mat, chosen.read)
            cache.keep(shortlist.passage_ids, shortlist.vectors)
        return dense_search.rank(query, k, shortlist, chosen, found, mat)

    def approximate(self, passage_ids: Sequence[int], page_ids: Sequence[int],
                    cache: VectorCache) -> np.ndarray:
        """Each passage's vector from memory, in order: `cache`'s, else what its (first)
        int8 row stands for (zeros: not indexed). `page_ids`: each passage's page. What is
        found is added to `cache`."""
        pids = np.asarray(passage_ids, np.int64)
        out, lacking = cache.lookup(pids)  # read exactly already, mostly
        if len(lacking) and self._view is not None:
            asked = pids[lacking]
            found, vecs = dense_search.approximate(self._view, asked,
                                                   np.asarray(page_ids, np.int64)[lacking])
            out[lacking[found]] = vecs
            cache.keep(asked[found], vecs, asked)
        return out

    def vectors_for(self, passage_ids: list[int],
                    cache: VectorCache | None = None) -> np.ndarray:
        """Vectors for `passage_ids` (zeros where a passage has none), in that order: the
        stored ones (a passage in several pieces gives its first piece's), or `cache`'s,
        the vectors this search already has (given the ones read now)."""
        cache = VectorCache(self.dim) if cache is None else cache
        wanted = cache.missing(passage_ids)
        if len(wanted):
            found, mat = self._exact(wanted)
            cache.keep(found, mat, wanted)
        return cache.lookup(np.asarray(passage_ids, np.int64))[0]

    def _exact(self, passage_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The stored vectors of `passage_ids` (those found, and their rows)."""
        if self._store is None:
            raise RuntimeError("VectorIndex.refresh(store) must come before a search")
        found, mat = self._store.vectors_by_ids(passage_ids.tolist(), self.model_id)
        self._check(mat)
        return found, mat

    # ---- catching up ----------------------------------------------------------------------

    def refresh(self, store: Store) -> None:
        """Catch up with `store`; later searches read exact vectors through it."""
        self._store = store
        target = store.seq()  # read first: changes after it are re-applied next time, harmlessly
        if target == self.seq:
            return
        if self._view is None:
            snap = vector_file.read(self.path, self.model_id, self.dim, self.bits,
                                    store.store_id(), self.cipher) if self.path else None
            if snap is None or snap.seq > store.seq():  # none, or from a restored store's future
                snap = self._build(store, target)
            self._set_base(snap)
        if self.seq < target:
            self._apply(store, target)

    def _set_base(self, snap: Snapshot) -> None:
        self._view = IndexView.of(snap)
        self._pages = int(np.count_nonzero(np.diff(snap.page_ids))) + 1 if len(snap) else 0
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
        old = self._view
        snap = old.snap
        if len(touched) > _FULL_RELOAD_SHARE * max(1, self._pages):
            self._set_base(self._build(store, target))
            return
        lo = np.searchsorted(snap.page_ids, touched, "left")
        hi = np.searchsorted(snap.page_ids, touched, "right")
        dead = old.dead.copy()  # a new view: one a search holds stays as it was
        for a, b in zip(lo[hi > lo], hi[hi > lo], strict=True):
            dead[a:b] = True
        keep = ~np.isin(old.extra_pages, touched)
        pids, pages, mat = store.vectors_of(changed, self.model_id)
        mat = self._check(mat)  # a change that left no vectors (a forgotten page) is (0, dim)
        extra_pids = np.concatenate([old.extra_pids[keep], pids])
        self._view = new = IndexView(
            snap, dead, int(dead.sum()), extra_pids,
            np.concatenate([old.extra_pages[keep], pages]),
            np.concatenate([old.extra_codes[:, keep], snap.quantiser.codes(mat)], axis=1),
            np.concatenate([old.extra_int8[keep], snap.quantiser.int8(mat)]),
            np.argsort(extra_pids, kind="stable"))
        self.seq = target
        delta = len(new.extra_pids) + new.n_dead
        if self.persist and delta >= max(COMPACT_MIN_ROWS, COMPACT_SHARE * len(snap)):
            self._compact(store, target)

    def _compact(self, store: Store, target: int) -> None:
        """Fold the delta into a new snapshot; a newly fitted one once the rows have doubled.
        With no room for it the new snapshot stays in memory (`_save`): the next compaction,
        or the next process's catch-up from the last file, writes it."""
        view = self._view
        snap = view.snap
        if snap.quantiser.sample_rows < min(len(self), SAMPLE) / 2:
            self._set_base(self._build(store, target, point="vector_compaction"))
            return
        alive = ~view.dead
        new = self._sorted_snapshot(
            target, snap.quantiser,
            np.concatenate([np.asarray(snap.passage_ids)[alive], view.extra_pids]),
            np.concatenate([np.asarray(snap.page_ids)[alive], view.extra_pages]),
            np.concatenate([np.asarray(snap.codes)[:, alive], view.extra_codes], axis=1),
            np.concatenate([np.asarray(snap.int8)[alive], view.extra_int8]))
        self._set_base(self._save(new, point="vector_compaction"))

    def _check(self, mat: np.ndarray) -> np.ndarray:
        """`mat` as rows of this model's dimension (no rows: shape (0, dim))."""
        if not len(mat):
            return np.empty((0, self.dim), np.float32)
        if mat.shape[1] != self.dim:
            raise ValueError(f"stored vectors have {mat.shape[1]} dims, model has {self.dim}")
        return mat

def snapshot_prefix(model_id: str) -> str:
    """How the names of a model's snapshot files begin (then its bits and .rvec)."""
    return re.sub(r"[^A-Za-z0-9_.@-]", "_", model_id) + "."
