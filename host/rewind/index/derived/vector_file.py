"""The vector index's snapshot on disk: one memory-mapped file, replaced atomically.

Layout: 8 magic bytes, a 4-byte header length, a JSON header (model, dim, code bits, the
store it was made from and the sequence it reflects, row count), then arrays at 64-byte
aligned offsets: the quantiser's (codes.Quantiser: centre, rotation, low, step), passage
ids (int64), page ids (int64), codes (words x rows, uint64, word-major) and int8 rows
(rows x dim). Rows are sorted by page id, so a page's rows are one range.
A snapshot is written to a temporary file, synced, then renamed over the old one: a crash
leaves the old snapshot (and its sequence) intact, and the index catches up from the store.
An encrypted store's snapshot is sealed (`cipher`): the same layout, whole, in AES-GCM
blocks of 1 MiB under the store's key (`RWVECSE1`, then each block's length and sealed
bytes, the block's number bound in), read back into memory rather than mapped. Its codes
and int8 rows say what the sealed vectors say, so they are never on disk in the clear;
opening the file costs one pass of AES-GCM (0.7-0.9 s for 448 MB, 1M passages' worth,
on this loaded 2-core machine), where unsealing the vectors row by row to build the codes
again took 5 s for 100k rows (~50 s at 1M). The price: the snapshot lives in memory (432
bytes a passage at 384 dimensions) where a plain one is mapped and paged in on demand.
Forgetting zeroes a page's codes and int8 rows where they lie (sealed: re-seals only the
blocks holding them), so a forget costs what it forgets, not the size of the history.
This module must never read the store, and is never the only copy of anything: a missing,
damaged or foreign file is reported as absent and rebuilt by its caller.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ... import faults
from ...errors import RewindError
from ..crypto.cipher import SEAL_OVERHEAD, FieldCipher
from . import codes as codes_mod
from .codes import Quantiser

DIRECTORY = "vectors"  # the snapshots' folder in a data directory, one file a model
MAGIC = b"RWVEC001"
SEALED_MAGIC = b"RWVECSE1"
_ALIGN = 64
# Small blocks: forgetting a page re-seals the few that hold its rows. (Files written with
# larger blocks, 64 MiB before, still open: each block's length is in the file.)
_BLOCK = 1 << 20


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


def _shapes(head: dict) -> dict[str, tuple[str, tuple[int, ...]]]:
    """The arrays after the header, in file order: name -> (dtype, shape)."""
    dim, bits, n = int(head["dim"]), int(head["bits"]), int(head["rows"])
    return {"centre": ("<f4", (dim,)), "rotation": ("<f4", (bits, bits)),
            "low": ("<f4", (dim,)), "step": ("<f4", (dim,)), "passage_ids": ("<i8", (n,)),
            "page_ids": ("<i8", (n,)), "codes": ("<u8", (codes_mod.words(bits), n)),
            "int8": ("i1", (n, dim))}


def _offsets(head: dict, head_end: int) -> dict[str, int]:
    """Where each array starts, for a header ending at `head_end` (the layout `_layout`
    writes)."""
    out, start = {}, _aligned(head_end)
    for name, (dtype, shape) in _shapes(head).items():
        out[name] = start
        start = _aligned(start + np.dtype(dtype).itemsize * int(np.prod(shape)))
    return out


def _layout(snap: Snapshot) -> tuple[bytes, list[tuple[int, np.ndarray]], int]:
    """The file's head (magic, header), each array with its offset (`_offsets`, the one
    description of the layout), and the total size."""
    fields = {"model_id": snap.model_id, "dim": snap.dim, "bits": snap.bits,
              "store_id": snap.store_id, "seq": snap.seq, "rows": len(snap),
              "sample_rows": snap.quantiser.sample_rows}
    header = json.dumps(fields).encode()
    head = MAGIC + struct.pack("<I", len(header)) + header
    q = snap.quantiser
    arrays = {"centre": q.centre, "rotation": q.rotation, "low": q.low, "step": q.step,
              "passage_ids": snap.passage_ids, "page_ids": snap.page_ids,
              "codes": snap.codes, "int8": snap.int8}
    at, placed = _offsets(fields, len(head)), []
    for name, (dtype, _shape) in _shapes(fields).items():
        placed.append((at[name], np.ascontiguousarray(arrays[name], dtype=dtype)))
    start, last = placed[-1]
    return head, placed, _aligned(start + last.nbytes)


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
                    fh.write(struct.pack("<Q", len(block)))
                    fh.write(block)
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


def _blocks(fh: BinaryIO) -> list[tuple[int, int]] | None:
    """Where each sealed block of an open snapshot lies: (offset of its bytes, length); None
    if the file is not a sealed snapshot or is cut short."""
    if fh.read(len(SEALED_MAGIC)) != SEALED_MAGIC:
        return None
    size, at, out = os.fstat(fh.fileno()).st_size, len(SEALED_MAGIC), []
    while at < size:
        fh.seek(at)
        (n,) = struct.unpack("<Q", fh.read(8).ljust(8, b"\xff"))
        if n < SEAL_OVERHEAD or at + 8 + n > size:
            return None
        out.append((at + 8, n))
        at += 8 + n
    return out


def _unseal(path: Path, cipher: FieldCipher) -> bytearray | None:
    """The plain layout of a sealed snapshot; None if it is not one or does not open."""
    with open(path, "rb") as fh:
        if (blocks := _blocks(fh)) is None:
            return None
        # One buffer of the final size: growing one block at a time would leave the
        # allocator holding the copies (the soak's held memory steps).
        plain = bytearray(sum(n - SEAL_OVERHEAD for _, n in blocks))
        at = 0
        for i, (offset, n) in enumerate(blocks):
            fh.seek(offset)
            try:
                part = cipher.open(fh.read(n), _block_column(i))
            except RewindError:
                return None  # damaged, or sealed with another key: rebuilt by the caller
            plain[at:at + len(part)] = part
            at += len(part)
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
    """Zero, in the file at `path`, the codes and int8 rows of `page_ids` (forgotten pages:
    their rows must not stay on disk until the next compaction). Only the bytes holding them
    are written (sealed: the blocks holding them, re-sealed under fresh nonces), then synced.
    Ids and sequence stay: the store's tombstones after that sequence mark the rows dead
    again at the next open. A write cut short leaves a block that no longer opens (the file
    is then rebuilt) or rows half zeroed, of pages that are dead either way. A file that
    cannot be read is removed (it is derived; the index rebuilds it)."""
    if not path.exists():
        return
    try:
        with open(path, "r+b") as fh:
            bytes_ = _SealedBytes(fh, cipher) if cipher is not None else _PlainBytes(fh)
            spans = _row_spans(bytes_, page_ids)
            if spans is None:
                raise ValueError("not a snapshot")
            if spans:
                bytes_.zero(spans)
                os.fsync(fh.fileno())
    except (OSError, ValueError, KeyError, TypeError, struct.error, RewindError):
        path.unlink(missing_ok=True)


class _PlainBytes:
    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh

    def read(self, start: int, n: int) -> bytes:
        self.fh.seek(start)
        if len(got := self.fh.read(n)) != n:
            raise ValueError("cut short")
        return got

    def zero(self, spans: list[tuple[int, int]]) -> None:
        for start, n in spans:
            os.pwrite(self.fh.fileno(), bytes(n), start)


class _SealedBytes:
    """A sealed snapshot's plain bytes, block by block: only the blocks read are opened,
    only the blocks changed are sealed again (in place: a block's length does not change)."""

    def __init__(self, fh: BinaryIO, cipher: FieldCipher) -> None:
        self.fh, self.cipher = fh, cipher
        if (blocks := _blocks(fh)) is None:
            raise ValueError("not a sealed snapshot")
        self.blocks = blocks
        self.starts = np.cumsum([0] + [n - SEAL_OVERHEAD for _, n in blocks])
        self.open: dict[int, bytearray] = {}

    def _block(self, i: int) -> bytearray:
        if i not in self.open:
            offset, n = self.blocks[i]
            self.fh.seek(offset)
            self.open[i] = bytearray(self.cipher.open(self.fh.read(n), _block_column(i)))
        return self.open[i]

    def _parts(self, start: int, n: int) -> list[tuple[int, int, int]]:
        """(block, start within it, end within it) covering plain bytes [start, start+n)."""
        if start + n > self.starts[-1]:
            raise ValueError("cut short")
        out, end = [], start + n
        i = int(np.searchsorted(self.starts, start, "right")) - 1
        while start < end:
            stop = min(end, int(self.starts[i + 1]))
            out.append((i, start - int(self.starts[i]), stop - int(self.starts[i])))
            start, i = stop, i + 1
        return out

    def read(self, start: int, n: int) -> bytes:
        return b"".join(bytes(self._block(i)[a:b]) for i, a, b in self._parts(start, n))

    def zero(self, spans: list[tuple[int, int]]) -> None:
        changed = set()
        for start, n in spans:
            for i, a, b in self._parts(start, n):
                self._block(i)[a:b] = bytes(b - a)
                changed.add(i)
        for i in sorted(changed):
            sealed = self.cipher.seal(bytes(self.open[i]), _block_column(i))
            offset, n = self.blocks[i]
            if len(sealed) != n:
                raise ValueError("a block changed length")
            os.pwrite(self.fh.fileno(), sealed, offset)


def _row_spans(src: _PlainBytes | _SealedBytes, page_ids: list[int]
               ) -> list[tuple[int, int]] | None:
    """The byte ranges (start, length) of the codes and int8 rows of `page_ids`; None if
    `src` is not a snapshot."""
    if src.read(0, len(MAGIC)) != MAGIC:
        return None
    (length,) = struct.unpack("<I", src.read(len(MAGIC), 4))
    head = json.loads(src.read(len(MAGIC) + 4, length))
    dim, n, w = int(head["dim"]), int(head["rows"]), codes_mod.words(int(head["bits"]))
    at = _offsets(head, len(MAGIC) + 4 + length)
    pages = np.frombuffer(src.read(at["page_ids"], 8 * n), "<i8")
    gone = np.unique(np.asarray(page_ids, np.int64))
    lo, hi = np.searchsorted(pages, gone, "left"), np.searchsorted(pages, gone, "right")
    spans = []
    for a, b in zip(lo[hi > lo].tolist(), hi[hi > lo].tolist(), strict=True):
        spans += [(at["codes"] + (word * n + a) * 8, (b - a) * 8) for word in range(w)]
        spans.append((at["int8"] + a * dim, (b - a) * dim))
    return spans


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
        at = _offsets(head, len(MAGIC) + 4 + length)
        arrays = []
        for name, (dtype, shape) in _shapes(head).items():
            start, nbytes = at[name], np.dtype(dtype).itemsize * int(np.prod(shape))
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
        centre, rotation, low, step = (np.array(a) for a in arrays[:4])
        dim, bits = int(head["dim"]), int(head["bits"])
        quantiser = Quantiser(bits, centre, rotation, low, step, int(head["sample_rows"]))
        return Snapshot(str(head["model_id"]), dim, bits, str(head["store_id"]),
                        int(head["seq"]), quantiser, *arrays[4:])
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None
