"""The vector index's snapshot on disk: one memory-mapped file, replaced atomically.

Layout: 8 magic bytes, a 4-byte header length, a JSON header (model, dim, code bits, the
store it was made from and the sequence it reflects, row count), then arrays at 64-byte
aligned offsets: the quantiser's (codes.Quantiser: centre, rotation, low, step), passage
ids (int64), page ids (int64), codes (words x rows, uint64, word-major) and int8 rows
(rows x dim). Rows are sorted by page id, so a page's rows are one range.
A snapshot is written to a temporary file, synced, then renamed over the old one: a crash
leaves the old snapshot (and its sequence) intact, and the index catches up from the store.
An encrypted store's snapshot is sealed (`cipher`): the same layout, whole, in AES-GCM
blocks of 64 MiB under the store's key (`RWVECSE1`, then each block's length and sealed
bytes, the block's number bound in), read back into memory rather than mapped. Its codes
and int8 rows say what the sealed vectors say, so they are never on disk in the clear;
opening the file costs one pass of AES-GCM (0.7-0.9 s for 448 MB, 1M passages' worth,
on this loaded 2-core machine), where unsealing the vectors row by row to build the codes
again took 5 s for 100k rows (~50 s at 1M). The price: the snapshot lives in memory (432
bytes a passage at 384 dimensions) where a plain one is mapped and paged in on demand.
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

from ... import faults
from ...errors import RewindError
from ..crypto.cipher import FieldCipher
from . import codes as codes_mod
from .codes import Quantiser

DIRECTORY = "vectors"  # the snapshots' folder in a data directory, one file a model
MAGIC = b"RWVEC001"
SEALED_MAGIC = b"RWVECSE1"
_ALIGN = 64
_BLOCK = 64 << 20  # AES-GCM seals at most 2**31 bytes at once; blocks keep memory even


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


def _layout(snap: Snapshot) -> tuple[bytes, list[tuple[int, np.ndarray]], int]:
    """The file's head (magic, header), each array with its offset, and the total size."""
    header = json.dumps({
        "model_id": snap.model_id, "dim": snap.dim, "bits": snap.bits,
        "store_id": snap.store_id, "seq": snap.seq, "rows": len(snap),
        "sample_rows": snap.quantiser.sample_rows,
    }).encode()
    head = MAGIC + struct.pack("<I", len(header)) + header
    q, start, placed = snap.quantiser, _aligned(len(head)), []
    for arr in (q.centre.astype("<f4"), q.rotation.astype("<f4"), q.low.astype("<f4"),
                q.step.astype("<f4"), snap.passage_ids.astype("<i8", copy=False),
                snap.page_ids.astype("<i8", copy=False),
                np.ascontiguousarray(snap.codes, dtype="<u8"),
                np.ascontiguousarray(snap.int8, dtype=np.int8)):
        placed.append((start, np.ascontiguousarray(arr)))
        start = _aligned(start + arr.nbytes)
    return head, placed, start


def _plain_bytes(snap: Snapshot) -> bytearray:
    head, placed, size = _layout(snap)
    buf = bytearray(size)
    buf[:len(head)] = head
    for start, arr in placed:
        buf[start:start + arr.nbytes] = memoryview(arr).cast("B") if arr.size else b""
    return buf


def _block_column(i: int) -> str:
    return f"vector_snapshot/{i}"  # a block moved to another place does not open


def write(path: Path, snap: Snapshot, cipher: FieldCipher | None = None,
          point: str = "vector_snapshot") -> None:
    """Write `snap` to `path` atomically (temporary file, fsync, rename, fsync folder);
    sealed with `cipher` when one is given. `point`: the fault point (faults.py) it is."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_orphans(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            if cipher is None:
                head, placed, size = _layout(snap)
                fh.write(head)
                for start, arr in placed:
                    fh.seek(start)
                    fh.write(memoryview(arr).cast("B") if arr.size else b"")
                fh.truncate(size)
            else:
                plain = memoryview(_plain_bytes(snap))
                fh.write(SEALED_MAGIC)
                for i, at in enumerate(range(0, len(plain), _BLOCK)):
                    block = cipher.seal(bytes(plain[at:at + _BLOCK]), _block_column(i))
                    fh.write(struct.pack("<Q", len(block)) + block)
            fh.flush()
            os.fsync(fh.fileno())
        faults.hit(point)
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


def _unseal(path: Path, cipher: FieldCipher) -> bytearray | None:
    """The plain layout of a sealed snapshot; None if it is not one or does not open."""
    with open(path, "rb") as fh:
        if fh.read(len(SEALED_MAGIC)) != SEALED_MAGIC:
            return None
        plain, i = bytearray(), 0
        while length := fh.read(8):
            (n,) = struct.unpack("<Q", length)
            block = fh.read(n)
            if len(block) != n:
                return None
            try:
                plain += cipher.open(block, _block_column(i))
            except RewindError:
                return None  # damaged, or sealed with another key: rebuilt by the caller
            i += 1
    return plain


def read(path: Path, model_id: str, dim: int, bits: int, store_id: str,
         cipher: FieldCipher | None = None) -> Snapshot | None:
    """The snapshot at `path` (memory-mapped read-only; in memory when sealed with
    `cipher`); None if absent, damaged, foreign or not sealed as asked."""
    snap = load(path, cipher)
    if snap is None or (snap.model_id, snap.dim, snap.bits, snap.store_id) != (
            model_id, dim, bits, store_id):
        return None
    return snap


def drop_pages(path: Path, page_ids: list[int], cipher: FieldCipher | None = None) -> None:
    """Rewrite the snapshot at `path` without the rows of `page_ids` (forgotten pages: their
    codes and int8 rows must not stay on disk until the next compaction). The sequence is
    kept: the store's changes since it delete those pages again, finding nothing. A file
    that cannot be read is removed (it is derived; the index rebuilds it)."""
    if not path.exists():
        return
    snap = load(path, cipher)
    if snap is None:
        path.unlink(missing_ok=True)
        return
    keep = ~np.isin(snap.page_ids, np.asarray(page_ids, np.int64))
    if keep.all():
        return
    write(path, Snapshot(snap.model_id, snap.dim, snap.bits, snap.store_id, snap.seq,
                         snap.quantiser, np.asarray(snap.passage_ids)[keep],
                         np.asarray(snap.page_ids)[keep],
                         np.ascontiguousarray(np.asarray(snap.codes)[:, keep]),
                         np.asarray(snap.int8)[keep]), cipher)


def load(path: Path, cipher: FieldCipher | None = None) -> Snapshot | None:
    """Whatever snapshot is at `path`, as its header describes it (no checks against a
    model or store); None if absent, damaged or not sealed as asked."""
    try:
        buf: bytearray | None = None
        if cipher is not None:
            if (buf := _unseal(path, cipher)) is None:
                return None
            head_bytes = bytes(buf[:len(MAGIC) + 4])
            size = len(buf)
        else:
            with open(path, "rb") as fh:
                head_bytes = fh.read(len(MAGIC) + 4)
            size = path.stat().st_size
        if head_bytes[:len(MAGIC)] != MAGIC:
            return None
        (length,) = struct.unpack("<I", head_bytes[len(MAGIC):])
        if buf is not None:
            head = json.loads(bytes(buf[len(MAGIC) + 4:len(MAGIC) + 4 + length]))
        else:
            with open(path, "rb") as fh:
                fh.seek(len(MAGIC) + 4)
                head = json.loads(fh.read(length))
        dim, bits = int(head["dim"]), int(head["bits"])
        n, w = int(head["rows"]), codes_mod.words(bits)
        shapes = [("<f4", (dim,)), ("<f4", (bits, bits)), ("<f4", (dim,)), ("<f4", (dim,)),
                  ("<i8", (n,)), ("<i8", (n,)), ("<u8", (w, n)), ("i1", (n, dim))]
        arrays, start = [], _aligned(len(MAGIC) + 4 + length)
        for dtype, shape in shapes:
            nbytes = np.dtype(dtype).itemsize * int(np.prod(shape))
            if start + nbytes > size:
                return None
            if not nbytes:
                arrays.append(np.empty(shape, dtype))
            elif buf is not None:
                arrays.append(np.frombuffer(buf, dtype, int(np.prod(shape)), start)
                              .reshape(shape))
            else:
                # plain ndarray views of the mapping: np.memmap's indexing costs ms a search
                arrays.append(np.memmap(path, dtype, "r", start, shape).view(np.ndarray))
            start = _aligned(start + nbytes)
        centre, rotation, low, step = (np.array(a) for a in arrays[:4])
        quantiser = Quantiser(bits, centre, rotation, low, step, int(head["sample_rows"]))
        return Snapshot(str(head["model_id"]), dim, bits, str(head["store_id"]),
                        int(head["seq"]), quantiser, *arrays[4:])
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None
