"""A frame parsed into a checked Request: JSON, an id, a known type, and the fields that
type's schema takes.

The schemas are declared beside their handlers (`@REQUESTS.handler(lane, schema)`) and
collected into one table by handlers.schemas(settings), which the host passes here; every
limit in them comes from Settings (PROTOCOL.md's tables are generated from the same place,
tests/native/test_doc.py checks they agree).
This module must never act on a request (handlers.py does) or do I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import Code, RewindError
from .framing import ID_HINT_BYTES, Id, id_hint, valid_id
from .schema import BadField, Obj, _type_name, check_fields

PROTOCOL_VERSION = 1


@dataclass
class Request:
    id: Id
    type: str
    args: dict[str, Any] = field(default_factory=dict)


class ProtocolError(RewindError):
    """A request that cannot be served; `req_id` is as much of its id as could be read."""

    def __init__(self, code: Code, message: str, hint: str = "", req_id: Id = None) -> None:
        super().__init__(code, message, hint)
        self.req_id = req_id


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode(payload: bytes) -> Any:
    """JSON from a frame's payload; ProtocolError(BAD_JSON) if it is not UTF-8 JSON."""
    try:
        text = payload.decode("utf-8")
        return json.loads(text, parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = "it is empty" if not payload else f"{type(exc).__name__}: {exc}"[:300]
        hint = id_hint(payload[:ID_HINT_BYTES])
        raise ProtocolError(
            Code.BAD_JSON,
            f"The frame is not UTF-8 JSON ({reason}).",
            "Send one JSON object per frame.",
            hint,
        ) from None
    except Exception as exc:  # hostile input must never crash the reader
        raise ProtocolError(
            Code.BAD_JSON,
            f"The frame is not JSON ({type(exc).__name__}).",
            "Send one JSON object per frame.",
        ) from None


def parse_request(payload: bytes, table: Mapping[str, Obj]) -> Request:
    """A checked Request from a frame, or ProtocolError naming the first problem; `table`
    is the schema of each request type (handlers.schemas)."""
    obj = decode(payload)
    if not isinstance(obj, dict):
        raise ProtocolError(
            Code.BAD_JSON,
            f"A request is a JSON object, not {_type_name(obj)}.",
            'Send {"id": ..., "type": ..., ...}.',
        )
    raw_id = obj.get("id")
    if "id" not in obj or not valid_id(raw_id):
        raise ProtocolError(
            Code.BAD_REQUEST,
            "id: missing or not a request id (an integer 0..2^53-1 or a "
            "string of 1-64 printable ASCII characters).",
            "Give every request a unique id; its replies carry it.",
        )
    req_type = obj.get("type")
    if not isinstance(req_type, str):
        raise ProtocolError(
            Code.BAD_REQUEST,
            "type: missing or not a string.",
            "See PROTOCOL.md for the request types.",
            raw_id,
        )
    spec = table.get(req_type)
    if spec is None:
        shown = req_type if len(req_type) <= 40 else req_type[:40] + "…"
        raise ProtocolError(
            Code.UNKNOWN_TYPE,
            f"Unknown request type {shown!r}.",
            f"Known types: {', '.join(table)}.",
            raw_id,
        )
    try:
        args = check_fields(spec, obj, ignore=("id", "type"))
    except BadField as exc:
        raise ProtocolError(
            Code.BAD_REQUEST,
            f"{req_type}: {exc}.",
            "See PROTOCOL.md for the fields of each request.",
            raw_id,
        ) from None
    return Request(raw_id, req_type, args)


