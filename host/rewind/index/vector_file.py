"""The vector index's snapshot on disk: one memory-mapped file, replaced atomically.

Layout: 8 magic bytes, a 4-byte header length, a JSON header (model, dim, code bits, the
store it was made from and the sequence it reflects, row count), then arrays at 64-byte
aligned offsets: the quantiser's (codes.Quantiser: centre, rotation, low, step), passage
ids (int64), page ids (int64), codes (words x rows, uint64, word-major) and int8 rows
(rows x dim). Rows are sorted by page id, so a page's rows are one range.
A snapshot is written to a temporary file, synced, then renamed over the old one: a crash
leaves the old snapshot (and its sequence) intact, and the index catches up from the store.
This module must never read the store, and is never the only copy of anything: a missing,
damaged or foreign file is reported as absent and rebuilt by its caller.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import faults
from . import codes as codes_mod
from .codes import Quantiser

MAGIC = b"RWVEC001"
_ALIGN = 64


@dataclass
class Snapshot:
    model_id: str
    dim: int
    bits: int
    store_id: str  # the store it was made from (meta.store_id)
    seq: int  # the store's change sequence these rows reflect
    quantiser: Quantiser
    passage_ids: np.ndarray  # (n,) int64
    page_ids: np.ndarray  # (n,) int64, ascending
    codes: np.ndarray  # (words, n) uint64
    int8: np.ndarray  # (n, dim) int8

    def __len__(self) -> int:
        return len(self.passage_ids)


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def write(path: Path, snap: Snapshot) -> None:
    """Write `snap` to `path` atomically (temporary file, fsync, rename, fsync folder)."""
    n = len(snap)
    header = json.dumps({
        "model_id": snap.model_id, "dim": snap.dim, "bits": snap.bits,
        "store_id": snap.store_id, "seq": snap.seq, "rows": n,
        "sample_rows": snap.quantiser.sample_rows,
    }).encode()
    start = _aligned(len(MAGIC) + 4 + len(header))
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_orphans(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(MAGIC + struct.pack("<I", len(header)) + header)
            q = snap.quantiser
            for arr in (q.centre.astype("<f4"), q.rotation.astype("<f4"), q.low.astype("<f4"),
                        q.step.astype("<f4"), snap.passage_ids.astype("<i8", copy=False),
                        snap.page_ids.astype("<i8", copy=False),
                        np.ascontiguousarray(snap.codes, dtype="<u8"),
                        np.ascontiguousarray(snap.int8, dtype=np.int8)):
                fh.seek(start)
                fh.write(np.ascontiguousarray(arr).tobytes() if arr.size == 0 else
                         memoryview(np.ascontiguousarray(arr)).cast("B"))
                start = _aligned(start + arr.nbytes)
            fh.truncate(start)
            fh.flush()
            os.fsync(fh.fileno())
        faults.hit("vector_snapshot")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _remove_orphans(path: Path) -> None:
    """Temporary files of writers that died before renaming them (their pid is gone)."""
    for tmp in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            os.kill(int(tmp.name.split(".")[-2]), 0)
        except ProcessLookupError:
            tmp.unlink(missing_ok=True)
        except (ValueError, PermissionError):
            continue  # not ours to judge: another user's process, or not our name


def read(path: Path, model_id: str, dim: int, bits: int, store_id: str) -> Snapshot | None:
    """The snapshot at `path`, memory-mapped read-only; None if absent, damaged or foreign."""
    try:
        with open(path, "rb") as fh:
            if fh.read(len(MAGIC)) != MAGIC:
                return None
            (length,) = struct.unpack("<I", fh.read(4))
            head = json.loads(fh.read(length))
        size = path.stat().st_size
        if (head["model_id"], head["dim"], head["bits"], head["store_id"]) != (
                model_id, dim, bits, store_id):
            return None
        n, w = int(head["rows"]), codes_mod.words(bits)
        shapes = [("<f4", (dim,)), ("<f4", (bits, bits)), ("<f4", (dim,)), ("<f4", (dim,)),
                  ("<i8", (n,)), ("<i8", (n,)), ("<u8", (w, n)), ("i1", (n, dim))]
        arrays, start = [], _aligned(len(MAGIC) + 4 + length)
        for dtype, shape in shapes:
            nbytes = np.dtype(dtype).itemsize * int(np.prod(shape))
            if start + nbytes > size:
                return None
            # plain ndarray views of the mapping: np.memmap's indexing costs ms a search
            arrays.append(np.memmap(path, dtype, "r", start, shape).view(np.ndarray)
                          if nbytes else np.empty(shape, dtype))
            start = _aligned(start + nbytes)
        centre, rotation, low, step = (np.array(a) for a in arrays[:4])
        quantiser = Quantiser(bits, centre, rotation, low, step, int(head["sample_rows"]))
        return Snapshot(model_id, dim, bits, store_id, int(head["seq"]), quantiser, *arrays[4:])
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None
