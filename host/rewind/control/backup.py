"""Backup files: the full backup (msgpack, with vectors) and the portable export (JSON).

A full backup is `REWINDBK`, a header (msgpack: format, version, when, which host, the
embedding model, and, when a passphrase protects it, the scrypt parameters), then
segments of at most `backup_segment_bytes`: each carries its index, whether it is the last,
and its bytes with a SHA-256 over the header and itself, or, with a passphrase, sealed with
AES-GCM under a key scrypt derives from the passphrase (the header and the segment's index
and last flag as associated data). Inside, one msgpack record after another: each page
with its visits and passages (text, place, quality, and the vector of the model named in
the header, float16 as the store keeps it), the profile's settings and recording rules,
and an end record with the counts. So a damaged, cut or reordered file, a wrong
passphrase, a file of another kind or of a newer format is told apart and refused before
anything is imported.

The portable export is JSON (`rewind-export`, the shape `export` streams): pages with
their visits and passages, no vectors (an importing Rewind embeds them again).
This module must never write to a store: it writes and reads files (restore.py imports).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import msgpack
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from .. import __version__
from ..errors import Code, RewindError

MAGIC = b"REWINDBK"
FORMAT = "rewind-backup"
VERSION = 1
EXPORT_FORMAT = "rewind-export"
EXPORT_VERSION = 1
SCRYPT = {"n": 2**15, "r": 8, "p": 1}
MAX_HEADER = 64 * 1024
MAX_SEGMENT = 64 * 1024 * 1024


def refused(why: str, hint: str = "Nothing was imported.") -> RewindError:
    return RewindError(Code.BAD_INPUT, f"This backup cannot be imported: {why}.", hint)


def _derive(passphrase: str, salt: bytes, n: int, r: int, p: int) -> AESGCM:
    key = Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(passphrase.encode("utf-8"))
    return AESGCM(key)


def _frame(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _aad(header: bytes, index: int, last: bool) -> bytes:
    return hashlib.sha256(header).digest() + struct.pack(">Q?", index, last)


# ---- writing ----------------------------------------------------------------------------


@dataclass
class Writer:
    """Turns records into the file's bytes, a segment at a time."""

    model_id: str | None
    passphrase: str | None = None
    segment_bytes: int = 1_048_576
    header: bytes = b""
    _aead: AESGCM | None = None
    _buf: bytearray = field(default_factory=bytearray)
    _index: int = 0

    def start(self) -> bytes:
        head: dict[str, Any] = {"format": FORMAT, "version": VERSION, "created_at": time.time(),
                                "host_version": __version__, "model_id": self.model_id,
                                "encrypted": None}
        if self.passphrase:
            salt = os.urandom(16)
            head["encrypted"] = {"kdf": "scrypt", **SCRYPT, "salt": salt, "cipher": "aes-256-gcm"}
            self._aead = _derive(self.passphrase, salt, **SCRYPT)
        self.header = msgpack.packb(head, use_bin_type=True)
        return MAGIC + _frame(self.header)

    def add(self, record: dict) -> Iterator[bytes]:
        self._buf += msgpack.packb(record, use_bin_type=True)
        while len(self._buf) >= self.segment_bytes:
            chunk = bytes(self._buf[:self.segment_bytes])
            del self._buf[:self.segment_bytes]
            yield self._segment(chunk, last=False)

    def finish(self) -> bytes:
        chunk, self._buf = bytes(self._buf), bytearray()
        return self._segment(chunk, last=True)

    def _segment(self, data: bytes, last: bool) -> bytes:
        i = self._index
        self._index += 1
        if self._aead is not None:
            nonce = os.urandom(12)
            body = [i, last, nonce, self._aead.encrypt(nonce, data, _aad(self.header, i, last))]
        else:
            digest = hashlib.sha256(_aad(self.header, i, last) + data).digest()
            body = [i, last, digest, data]
        return _frame(msgpack.packb(body, use_bin_type=True))


# ---- reading ----------------------------------------------------------------------------


@dataclass
class Header:
    format: str
    version: int
    created_at: float
    host_version: str
    model_id: str | None
    encrypted: bool


def kind_of(head: bytes) -> str:
    """"backup", "export" (JSON) or "unknown", from a file's first bytes."""
    if head.startswith(MAGIC):
        return "backup"
    if head.lstrip()[:1] == b"{":
        return "export"
    return "unknown"


def _read_exact(fh: IO[bytes], n: int, what: str) -> bytes:
    data = fh.read(n)
    if len(data) != n:
        raise refused(f"it ends in the middle of {what} (the file was cut short)",
                      "Copy the whole file again. Nothing was imported.")
    return data


def _read_frame(fh: IO[bytes], what: str, limit: int) -> bytes:
    (n,) = struct.unpack(">I", _read_exact(fh, 4, what))
    if n > limit:
        raise refused(f"{what} says it is {n} bytes long, which no Rewind writes (damaged)")
    return _read_exact(fh, n, what)


def read_header(fh: IO[bytes]) -> tuple[Header, bytes]:
    if fh.read(len(MAGIC)) != MAGIC:
        raise refused("it is not a Rewind backup",
                      "Choose a file written by `rewind export` or the options page.")
    raw = _read_frame(fh, "the header", MAX_HEADER)
    try:
        head = msgpack.unpackb(raw, raw=False)
        if head.get("format") != FORMAT:
            raise refused(f"its header names the format {head.get('format')!r}")
        version = int(head["version"])
    except (ValueError, KeyError, TypeError, AttributeError, msgpack.UnpackException):
        raise refused("its header is damaged") from None
    if version > VERSION:
        raise refused(f"it was written by a newer Rewind (backup format {version}, this "
                      f"one reads up to {VERSION})", "Update Rewind, then import it.")
    return Header(FORMAT, version, float(head.get("created_at") or 0),
                  str(head.get("host_version", "")), head.get("model_id"),
                  bool(head.get("encrypted"))), raw


def _segments(fh: IO[bytes], header: bytes, passphrase: str | None) -> Iterator[bytes]:
    head = msgpack.unpackb(header, raw=False)
    enc = head.get("encrypted")
    aead = None
    if enc:
        if not passphrase:
            raise RewindError(Code.BAD_INPUT, "This backup is protected by a passphrase.",
                              "Give it (`rewind import FILE --passphrase`).")
        try:
            aead = _derive(passphrase, enc["salt"], int(enc["n"]), int(enc["r"]), int(enc["p"]))
        except (KeyError, TypeError, ValueError):
            raise refused("its encryption parameters are damaged") from None
    expected = 0
    while True:
        raw = _read_frame(fh, f"segment {expected}", MAX_SEGMENT)
        try:
            index, last, check, data = msgpack.unpackb(raw, raw=False)
        except (ValueError, TypeError, msgpack.UnpackException):
            raise refused(f"segment {expected} is damaged") from None
        if index != expected:
            raise refused(f"segment {expected} is missing or out of order")
        aad = _aad(header, index, bool(last))
        if aead is not None:
            try:
                data = aead.decrypt(check, data, aad)
            except (InvalidTag, ValueError):
                if index == 0:
                    raise RewindError(Code.BAD_INPUT, "The passphrase does not open this "
                                      "backup (or the file is damaged).",
                                      "Check the passphrase. Nothing was imported.") from None
                raise refused(f"segment {index} is damaged") from None
        elif hashlib.sha256(aad + data).digest() != check:
            raise refused(f"segment {index} is damaged (its checksum does not match)")
        yield data
        expected += 1
        if last:
            if fh.read(1):
                raise refused("it has bytes after its last segment")
            return


def records(fh: IO[bytes], passphrase: str | None = None) -> tuple[Header, Iterator[dict]]:
    """The header, and the records in order (checked as they are read: an error can come
    at any point, so import after `verify`). The end record is checked, not yielded."""
    header, raw = read_header(fh)

    def gen() -> Iterator[dict]:
        unpacker = msgpack.Unpacker(raw=False, max_buffer_size=MAX_SEGMENT * 2)
        pages = 0
        ended = False
        for data in _segments(fh, raw, passphrase):
            unpacker.feed(data)
            try:
                for rec in unpacker:
                    if ended or not isinstance(rec, dict):
                        raise refused("it holds something after its end record")
                    if rec.get("t") == "end":
                        if rec.get("pages") != pages:
                            raise refused("its page count does not match its pages")
                        ended = True
                        continue
                    pages += rec.get("t") == "page"
                    yield rec
            except (ValueError, TypeError, msgpack.UnpackException):
                raise refused("a record inside it is damaged") from None
        if not ended:
            raise refused("its end record is missing (the file was cut short)")

    return header, gen()


def verify(fh: IO[bytes], passphrase: str | None = None) -> dict[str, int]:
    """Read the whole file and check every segment and record; its counts."""
    _header, recs = records(fh, passphrase)
    counts = {"pages": 0, "passages": 0, "vectors": 0}
    for rec in recs:
        if rec.get("t") == "page":
            check_page(rec)
            counts["pages"] += 1
            counts["passages"] += len(rec["passages"])
            counts["vectors"] += sum(1 for p in rec["passages"] if p[6] is not None)
    return counts


def check_page(rec: dict) -> None:
    """A page record has what import needs, of the right kinds."""
    try:
        assert isinstance(rec["url"], str) and isinstance(rec["title"], str)
        for k in ("first_visit", "last_visit", "dwell_s", "indexed_at"):
            assert isinstance(rec[k], int | float)
        assert isinstance(rec["visit_count"], int)
        for p in rec["passages"]:
            assert isinstance(p[0], str) and isinstance(p[1], int)
            assert p[6] is None or isinstance(p[6], bytes)
    except (AssertionError, KeyError, TypeError, IndexError):
        raise refused(f"a page record is incomplete ({str(rec.get('url'))[:100]})") from None


# ---- the portable export (JSON) ---------------------------------------------------------


def read_export(fh: IO[bytes]) -> list[dict]:
    """The pages of a portable export, checked; refused as a whole if anything is off."""
    try:
        doc = json.load(fh)
    except (ValueError, UnicodeDecodeError) as exc:
        raise refused(f"it is not complete JSON ({str(exc)[:120]}; cut short or damaged?)") \
            from None
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise refused("it is JSON but not a Rewind export")
    if not isinstance(doc.get("version"), int) or doc["version"] > EXPORT_VERSION:
        raise refused(f"it was written by a newer Rewind (export format {doc.get('version')})",
                      "Update Rewind, then import it.")
    pages = doc.get("pages")
    if not isinstance(pages, list):
        raise refused("it has no list of pages")
    if isinstance(doc.get("pages_total"), int) and doc["pages_total"] != len(pages):
        raise refused(f"it says {doc['pages_total']} pages but holds {len(pages)}")
    for p in pages:
        if not (isinstance(p, dict) and isinstance(p.get("url"), str)
                and isinstance(p.get("passages"), list)
                and all(isinstance(x, dict) and isinstance(x.get("text"), str)
                        for x in p["passages"])):
            raise refused("a page in it is incomplete")
    return pages
