"""Native messaging frames: a 4-byte native-endian length, then that many bytes of JSON.

Reads frames from a `read` callable (an oversized one is reported with its id, not read
into memory), writes frames that refuse to exceed the browser's limit, and knows what a
request id may be (ids travel through JavaScript numbers). `frames` is the one frame
loop: the host and `rewind send` both read through it.
This module must never do I/O beyond the `read` callable it is given, and never parse a
request's fields (requests.py does).
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

HEADER = struct.Struct("=I")  # native byte order, as Chrome writes it
ID_HINT_BYTES = 256  # how much of an unreadable frame is searched for its id
MAX_SAFE_INT = 2**53 - 1  # ids travel through JavaScript numbers

Id = int | str | None
Read = Callable[[int], bytes]
_ID_STR_RE = re.compile(r"^[\x20-\x7e]{1,64}$")


def valid_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0 <= value <= MAX_SAFE_INT
    return isinstance(value, str) and bool(_ID_STR_RE.match(value))


class Truncated(Exception):
    """EOF inside a frame: the stream is over and cannot be resynchronised."""

    def __init__(self, got: int, wanted: int, id_hint: Id = None) -> None:
        super().__init__(f"stream ended after {got} of {wanted} bytes of a frame")
        self.id_hint = id_hint


@dataclass(frozen=True)
class Oversized:
    """A frame whose declared length is over the limit; its bytes are still unread."""

    declared: int
    remaining: int  # bytes of the payload the caller must discard to stay in sync
    id_hint: Id


_ID_HINT_RE = re.compile(rb'^\s*\{\s*"id"\s*:\s*(-?\d{1,16}|"[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}")')


def id_hint(prefix: bytes) -> Id:
    """The id of a frame that cannot be parsed, when it starts with `{"id": ...`.

    Lets an error about an oversized or broken frame reach the request that sent it.
    """
    m = _ID_HINT_RE.match(prefix)
    if not m:
        return None
    raw = m.group(1)
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if valid_id(value) else None


def _read_exact(read: Read, n: int) -> bytes:
    parts: list[bytes] = []
    got = 0
    while got < n:
        chunk = read(n - got)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def read_frame(read: Read, max_bytes: int) -> bytes | Oversized | None:
    """The next frame's payload; None at a clean end of stream (EOF between frames).

    Raises Truncated when the stream ends inside a frame. A declared length over
    `max_bytes` is not read: the caller gets Oversized and decides (reply, discard).
    """
    header = _read_exact(read, HEADER.size)
    if not header:
        return None
    if len(header) < HEADER.size:
        raise Truncated(len(header), HEADER.size)
    (length,) = HEADER.unpack(header)
    if length > max_bytes:
        # One read, not an exact one: the reply must not wait for bytes that may never come.
        prefix = read(min(length, ID_HINT_BYTES))
        if not prefix:
            raise Truncated(HEADER.size, HEADER.size + length)
        return Oversized(length, length - len(prefix), id_hint(prefix))
    payload = _read_exact(read, length)
    if len(payload) < length:
        raise Truncated(HEADER.size + len(payload), HEADER.size + length, id_hint(payload))
    return payload


def discard(read: Read, n: int, chunk: int = 1 << 20) -> bool:
    """Skip `n` bytes in bounded memory; False if the stream ended first."""
    while n > 0:
        got = read(min(n, chunk))
        if not got:
            return False
        n -= len(got)
    return True


def dumps(obj: Any) -> bytes:
    """Compact UTF-8 JSON; NaN/Infinity refused (Chrome's parser rejects them)."""
    # "replace" turns a lone surrogate (possible in text that came in as JSON) into "?"
    # so the browser never receives invalid UTF-8.
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8", "replace")


class FrameTooLarge(ValueError):
    """A reply that would break the browser's port: a bug, never sent."""


def frame(payload: bytes, max_frame: int) -> bytes:
    """Header + payload; refuses anything over `max_frame` bytes in total."""
    if HEADER.size + len(payload) > max_frame:
        raise FrameTooLarge(
            f"reply of {HEADER.size + len(payload)} bytes is over the {max_frame}-byte limit"
        )
    return HEADER.pack(len(payload)) + payload


def encode(msg: dict[str, Any], max_frame: int) -> bytes:
    return frame(dumps(msg), max_frame)


def frames(read: Read, max_bytes: int) -> Iterator[bytes | Oversized]:
    """Frames until a clean EOF; an oversized one is yielded (for its error reply), then
    skipped. Truncated propagates: the stream cannot be resynchronised. (EOF inside a
    skipped frame carries no id: that request has had its reply.)"""
    while True:
        got = read_frame(read, max_bytes)
        if got is None:
            return
        yield got
        if isinstance(got, Oversized) and not discard(read, got.remaining):
            raise Truncated(0, got.remaining)
