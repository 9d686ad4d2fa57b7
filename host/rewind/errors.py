"""Errors that reach a person: a stable code, what happened, and what to do.

Codes are part of the protocol (PROTOCOL.md): append only, never renamed.
This module must never import anything heavy; every other module imports it.
"""

from __future__ import annotations

import os
import shutil
from enum import StrEnum


class Code(StrEnum):
    BAD_FRAME = "bad_frame"  # framing broken: length prefix, truncated frame
    BAD_JSON = "bad_json"  # the frame is not a JSON object
    BAD_REQUEST = "bad_request"  # a field is missing, of the wrong type or too large
    UNKNOWN_TYPE = "unknown_type"  # no handler for this request type
    TOO_LARGE = "too_large"  # input over a documented limit
    FORBIDDEN = "forbidden"  # caller is not the extension the host was installed for
    NOT_FOUND = "not_found"  # no such page / model / request id
    MODEL_MISSING = "model_missing"  # a model's files are not installed
    MODEL_INVALID = "model_invalid"  # a model's files do not match its spec
    EMBEDDER_UNAVAILABLE = "embedder_unavailable"  # semantic search cannot run
    STORE_LOCKED = "store_locked"  # another writer holds the store
    STORE_CORRUPT = "store_corrupt"  # the store fails its integrity check
    DISK_FULL = "disk_full"  # no space left to write
    NOT_AVAILABLE = "not_available"  # the feature is not installed or not built yet
    CANCELLED = "cancelled"  # the request was cancelled by the caller
    BAD_INPUT = "bad_input"  # a file or text that cannot be indexed (empty, binary, ...)
    INTERNAL = "internal"  # a bug: the message says where to report it
    KEY_MISSING = "key_missing"  # an encrypted store's key is gone or is not its key
    INDEX_DAMAGED = "index_damaged"  # a derived index is damaged: rebuilt from the store


class RewindError(Exception):
    """An error with a code for machines and a message plus hint for people."""

    def __init__(self, code: Code, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code.value, "message": str(self)}


# Below this much free space, a write that failed is taken to have failed for want of room
# (tantivy says only that its writer "was killed").
LOW_SPACE_BYTES = 64 * 1024 * 1024


def free_bytes(where: str | os.PathLike[str]) -> int | None:
    try:
        return shutil.disk_usage(where).free
    except OSError:
        return None


def disk_full(where: str | os.PathLike[str], what: str, hint: str | None = None) -> RewindError:
    """DISK_FULL for a write under `where` that found no room: what was not done, how much
    room is left, what can be freed (or `hint`), and that nothing stored before is lost."""
    free = free_bytes(where)
    left = f" ({free / 1e6:.1f} MB free)" if free is not None else ""
    return RewindError(
        Code.DISK_FULL,
        f"The disk holding {where} is full{left}: {what}.",
        hint or "Free some space (`rewind stats` shows what each part of the history takes; the "
        "retention settings keep it smaller). Everything stored before is intact, searches "
        "go on, and Rewind carries on by itself once there is room.")
