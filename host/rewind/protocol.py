"""The native-messaging wire format: frames, requests, replies and their limits.

A frame is a 4-byte native-endian length followed by that many bytes of UTF-8
JSON. This module reads and writes frames, checks every request against a small
declarative schema per type (types, sizes, ranges; unknown fields refused), builds
the reply envelope, and packs long lists into frames that never exceed the 1 MiB
Chrome accepts. PROTOCOL.md is the contract; every number here comes from Settings.
This module must never do I/O beyond the `read` callable it is given, never
touch the store, and never treat a field's content as anything but data.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .config import DEFAULT_PROFILE, Settings, valid_profile
from .errors import Code, RewindError

PROTOCOL_VERSION = 1
HOST_NAME = "com.rewind.host"
HEADER = struct.Struct("=I")  # native byte order, as Chrome writes it
MAX_ERROR_MESSAGE_CHARS = 2000  # error texts are cut so an error frame always fits
ID_HINT_BYTES = 256  # how much of an unreadable frame is searched for its id
MAX_SAFE_INT = 2**53 - 1  # ids travel through JavaScript numbers

Id = int | str | None


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()  # default of a field whose absence matters (set_settings)
Read = Callable[[int], bytes]


# ---------------------------------------------------------------------------------------
# Frames


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


# ---------------------------------------------------------------------------------------
# Replies


def ok_reply(req_id: Id, **fields: Any) -> dict[str, Any]:
    """The last (or only) frame of a successful reply."""
    return {"id": req_id, "ok": True, "done": True, **fields}


def part_reply(req_id: Id, **fields: Any) -> dict[str, Any]:
    """A frame of a streamed reply that more frames will follow."""
    return {"id": req_id, "ok": True, "done": False, **fields}


def error_reply(req_id: Id, code: Code, message: str) -> dict[str, Any]:
    """An error ends its request: no frame with that id follows it."""
    if len(message) > MAX_ERROR_MESSAGE_CHARS:
        message = message[: MAX_ERROR_MESSAGE_CHARS - 1] + "…"
    return {
        "id": req_id,
        "ok": False,
        "done": True,
        "error": {"code": code.value, "message": message},
    }


def error_from(req_id: Id, err: RewindError) -> dict[str, Any]:
    return error_reply(req_id, err.code, str(err))


class ListPacker:
    """Packs a list reply (`key: [...]`) into as few frames as fit under `max_frame`.

    Sizes are exact: each item is encoded once and frames are assembled from the
    encoded bytes, so no frame is ever over the limit. Frames other than the last
    carry `done: false`; `finish(**fields)` returns the remaining frames, the last
    with `done: true` and the scalar fields. An item too big for a frame of its own
    goes through `split` (which must return smaller items) or is an error.
    """

    def __init__(
        self,
        req_id: Id,
        key: str,
        max_frame: int,
        split: Callable[[dict[str, Any], int], list[dict[str, Any]]] | None = None,
    ):
        self.req_id = req_id
        self.key = key
        self.max_frame = max_frame
        self.split = split
        self._items: list[bytes] = []
        self._size = 0  # bytes of the items joined with commas
        self.count = 0  # items added (after splitting)
        self._empty = len(self._payload(False, {}, []))
        # The largest an item may be so that a `done: false` frame holding only it fits.
        self.max_item = max_frame - HEADER.size - self._empty

    def _payload(self, done: bool, fields: dict[str, Any], items: list[bytes]) -> bytes:
        head = dumps({"id": self.req_id, "ok": True, "done": done, **fields})
        return b"".join((head[:-1], b',"', self.key.encode(), b'":[', b",".join(items), b"]}"))

    def add(self, item: dict[str, Any]) -> list[bytes]:
        """Adds one item; returns the frames (encoded) that became full."""
        data = dumps(item)
        if len(data) > self.max_item:
            if self.split is None:
                raise FrameTooLarge(f"one {self.key} item is {len(data)} bytes")
            out: list[bytes] = []
            for part in self.split(item, self.max_item):
                part_data = dumps(part)
                if len(part_data) > self.max_item:
                    raise FrameTooLarge(f"a split {self.key} item is {len(part_data)} bytes")
                out += self._add_encoded(part_data)
            return out
        return self._add_encoded(data)

    def _add_encoded(self, data: bytes) -> list[bytes]:
        out: list[bytes] = []
        grown = HEADER.size + self._empty + self._size + len(data) + (1 if self._items else 0)
        if self._items and grown > self.max_frame:
            out.append(frame(self._payload(False, {}, self._items), self.max_frame))
            self._items, self._size = [], 0
        self._size += len(data) + (1 if self._items else 0)
        self._items.append(data)
        self.count += 1
        return out

    def finish(self, **fields: Any) -> list[bytes]:
        """The remaining frames; the last carries `done: true` and `fields`."""
        last = self._payload(True, fields, self._items)
        if HEADER.size + len(last) <= self.max_frame:
            return [frame(last, self.max_frame)]
        out = [frame(self._payload(False, {}, self._items), self.max_frame)]
        self._items, self._size = [], 0
        return out + [frame(self._payload(True, fields, []), self.max_frame)]


def pack_list(
    req_id: Id, key: str, items: list[dict[str, Any]], max_frame: int, **fields: Any
) -> list[bytes]:
    """All frames of a list reply at once (search results, a page of list_pages)."""
    packer = ListPacker(req_id, key, max_frame)
    out: list[bytes] = []
    for item in items:
        out += packer.add(item)
    return out + packer.finish(**fields)


def split_page(page: dict[str, Any], max_bytes: int) -> list[dict[str, Any]]:
    """An exported page too big for one frame, as parts that each fit.

    The first part is the page with its first passages; each further part is
    `{"url", "continued": true, "passages": [...]}`: append them in order.
    """
    passages = page.get("passages") or []
    base: dict[str, Any] = {k: v for k, v in page.items() if k != "passages"}
    parts: list[dict[str, Any]] = []
    current: list[dict[str, Any]] = []
    size = len(dumps({**base, "passages": []}))
    for p in passages:
        n = len(dumps(p)) + (1 if current else 0)
        if current and size + n > max_bytes:
            parts.append({**base, "passages": current})
            base = {"url": page.get("url"), "continued": True}
            current, size, n = [], len(dumps({**base, "passages": []})), n - 1
        current.append(p)
        size += n
    parts.append({**base, "passages": current})
    return parts


# ---------------------------------------------------------------------------------------
# Requests: a small declarative schema per type


@dataclass(frozen=True)
class Str:
    max_chars: int
    min_chars: int = 0
    choices: tuple[str, ...] | None = None
    pattern: re.Pattern[str] | None = None
    what: str = ""  # how the pattern is described in errors


@dataclass(frozen=True)
class Int:
    lo: int
    hi: int


@dataclass(frozen=True)
class Num:
    lo: float
    hi: float


@dataclass(frozen=True)
class Bool:
    must_be: bool | None = None  # clear.confirm must be literally true


@dataclass(frozen=True)
class IdSpec:
    pass


@dataclass(frozen=True)
class List:
    item: Spec
    max_items: int


@dataclass(frozen=True)
class Obj:
    fields: dict[str, F]
    check: Callable[[dict[str, Any]], str | None] | None = None  # cross-field rule


@dataclass(frozen=True)
class F:
    spec: Spec
    required: bool = False
    default: Any = None
    nullable: bool = False


Spec = Str | Int | Num | Bool | IdSpec | List | Obj


class BadField(Exception):
    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}" if path else problem)


def valid_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0 <= value <= MAX_SAFE_INT
    return isinstance(value, str) and bool(_ID_STR_RE.match(value))


_ID_STR_RE = re.compile(r"^[\x20-\x7e]{1,64}$")


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def check(spec: Spec, value: Any, path: str) -> Any:
    """`value` if it fits `spec` (objects get their defaults filled in), else BadField."""
    if isinstance(spec, Str):
        if not isinstance(value, str):
            raise BadField(path, f"expected a string, got {_type_name(value)}")
        if len(value) > spec.max_chars:
            raise BadField(path, f"{len(value)} characters; at most {spec.max_chars} allowed")
        if len(value) < spec.min_chars:
            raise BadField(
                path,
                "must not be empty"
                if spec.min_chars == 1
                else f"needs at least {spec.min_chars} characters",
            )
        if spec.choices is not None and value not in spec.choices:
            raise BadField(path, f"must be one of {', '.join(spec.choices)}")
        if spec.pattern is not None and not spec.pattern.match(value):
            raise BadField(path, f"must be {spec.what or spec.pattern.pattern}")
        return value
    if isinstance(spec, Bool):
        if not isinstance(value, bool):
            raise BadField(path, f"expected true or false, got {_type_name(value)}")
        if spec.must_be is not None and value is not spec.must_be:
            raise BadField(path, f"must be {str(spec.must_be).lower()}")
        return value
    if isinstance(spec, Int):
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                value = int(value)  # JavaScript has only numbers: 10.0 is 10
            else:
                raise BadField(path, f"expected an integer, got {_type_name(value)}")
        if not spec.lo <= value <= spec.hi:
            raise BadField(path, f"{value} is outside {spec.lo}..{spec.hi}")
        return value
    if isinstance(spec, Num):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BadField(path, f"expected a number, got {_type_name(value)}")
        if not math.isfinite(value) or not spec.lo <= value <= spec.hi:
            raise BadField(path, f"{value} is outside {spec.lo:g}..{spec.hi:g}")
        return float(value)
    if isinstance(spec, IdSpec):
        if not valid_id(value):
            raise BadField(
                path,
                "expected a request id (an integer 0..2^53-1 or a string "
                "of 1-64 printable ASCII characters)",
            )
        return value
    if isinstance(spec, List):
        if not isinstance(value, list):
            raise BadField(path, f"expected a list, got {_type_name(value)}")
        if len(value) > spec.max_items:
            raise BadField(path, f"{len(value)} items; at most {spec.max_items} allowed")
        return [check(spec.item, v, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(spec, Obj):
        if not isinstance(value, dict):
            raise BadField(path, f"expected an object, got {_type_name(value)}")
        return check_fields(spec, value, path)
    raise TypeError(f"unknown spec {spec!r}")


def check_fields(
    spec: Obj, value: dict[str, Any], path: str = "", ignore: tuple[str, ...] = ()
) -> dict[str, Any]:
    prefix = f"{path}." if path else ""
    for key in value:
        if key not in spec.fields and key not in ignore:
            known = ", ".join(spec.fields) or "none"
            raise BadField(f"{prefix}{key}", f"unknown field (known: {known})")
    out: dict[str, Any] = {}
    for key, f in spec.fields.items():
        if key not in value:
            if f.required:
                raise BadField(f"{prefix}{key}", "missing")
            out[key] = f.default
        elif value[key] is None and f.nullable:
            out[key] = None
        elif value[key] is None and not f.required:
            out[key] = f.default  # an explicit null means "the default"
        else:
            out[key] = check(f.spec, value[key], f"{prefix}{key}")
    if spec.check is not None:
        problem = spec.check(out)
        if problem:
            raise BadField(path, problem)
    return out


MODES = ("hybrid", "semantic", "keyword")
_EPOCH = Num(0, 1e11)  # seconds since 1970; up to the year 5138
_DWELL = Num(0, 1e7)  # seconds (~115 days)


def _one_forget_form(a: dict[str, Any]) -> str | None:
    forms = [
        a["url"] is not None,
        a["domain"] is not None,
        a["since"] is not None or a["until"] is not None,
    ]
    if sum(forms) != 1:
        return "give exactly one of: url, domain, or since/until"
    if a["since"] is not None and a["until"] is not None and a["since"] > a["until"]:
        return "since is after until"
    return None


def _range_ok(a: dict[str, Any]) -> str | None:
    if a.get("since") is not None and a.get("until") is not None and a["since"] > a["until"]:
        return "since is after until"
    return None


def settings_schema(s: Settings) -> Obj:
    """Host settings a person may change through set_settings (names of Settings fields)."""

    def opt(spec: Spec) -> F:  # absent: unchanged; null: back to the default
        return F(spec, default=MISSING, nullable=True)

    return Obj(
        {
            "fusion": opt(Str(16, choices=("adaptive", "rrf"))),
            "rrf_alpha": opt(Num(0.0, 1.0)),
            "rrf_k": opt(Int(1, 1000)),
            "mmr_lambda": opt(Num(0.0, 1.0)),
            "max_pages_per_domain": opt(Int(1, s.max_limit)),
            "multi_passage_bonus": opt(Num(0.0, 1.0)),
            "default_limit": opt(Int(1, s.max_limit)),
            "answer_facets": opt(Bool()),
            "facet_count": opt(Int(1, 8)),
            "answer_token_budget": opt(Int(50, s.max_token_budget)),
            "answer_max_tokens": opt(Int(16, 2048)),
        }
    )


@lru_cache(maxsize=8)
def schemas(s: Settings) -> dict[str, Obj]:
    """Request schemas, built from the limits in `s` (one table, read by PROTOCOL.md)."""
    query = Str(s.max_query_chars, min_chars=1)
    passage = Obj(
        {
            "text": F(Str(s.max_passage_chars), required=True),
            "position": F(Int(-1, 1_000_000), default=None),
            "quality": F(Num(0.0, 1.0), default=0.5),
        }
    )
    page = Obj(
        {
            "url": F(Str(s.max_url_chars, min_chars=1), required=True),
            "title": F(Str(s.max_title_chars), default=""),
            "passages": F(List(passage, s.max_passages_per_page), nullable=True),
            "text": F(Str(s.max_page_text_chars), nullable=True),
            "content_hash": F(Str(128), nullable=True),
            "visited_at": F(_EPOCH, nullable=True),
            "dwell_s": F(_DWELL, default=0.0),
        },
        check=lambda p: (
            None
            if (p["passages"] is not None or p["text"] is not None)
            else "a page needs passages or text"
        ),
    )
    domain = Str(253, min_chars=1)
    return {
        "hello": Obj(
            {
                "protocol": F(Int(1, 1000), default=PROTOCOL_VERSION),
                "profile": F(Str(64, min_chars=1), default=DEFAULT_PROFILE),
                "client": F(Str(200), nullable=True),  # e.g. "rewind-extension/0.1.0", logged
            },
            check=lambda a: (
                None
                if valid_profile(a["profile"])
                else "profile must be 1-64 characters of A-Z, a-z, 0-9, _ and -"
            ),
        ),
        "index_page": Obj({"page": F(page, required=True)}),
        "record_visit": Obj(
            {
                "url": F(Str(s.max_url_chars, min_chars=1), required=True),
                "visited_at": F(_EPOCH, nullable=True),
                "dwell_s": F(_DWELL, default=0.0),
            }
        ),
        "search": Obj(
            {
                "query": F(query, required=True),
                "mode": F(Str(16, choices=MODES), default=None),
                "limit": F(Int(1, s.max_limit), default=None),
                "since": F(_EPOCH, nullable=True),
                "until": F(_EPOCH, nullable=True),
                "domain": F(domain, nullable=True),
            },
            check=_range_ok,
        ),
        "ask": Obj(
            {
                "question": F(query, required=True),
                "page_text": F(Str(s.max_context_chars), nullable=True),
                "page_url": F(Str(s.max_url_chars), nullable=True),
                "page_title": F(Str(s.max_title_chars), nullable=True),
            }
        ),
        "cancel": Obj({"target_id": F(IdSpec(), required=True)}),
        "build_context": Obj(
            {
                "query": F(query, required=True),
                "raw_context": F(Str(s.max_context_chars), nullable=True),
                "token_budget": F(Int(1, s.max_token_budget), required=True),
            }
        ),
        "stats": Obj({}),
        "list_profiles": Obj({}),
        "page_info": Obj({"url": F(Str(s.max_url_chars, min_chars=1), required=True)}),
        "list_pages": Obj(
            {
                "offset": F(Int(0, MAX_SAFE_INT), default=0),
                "limit": F(Int(1, s.max_list_limit), default=50),
            }
        ),
        "export": Obj({}),
        "forget": Obj(
            {
                "url": F(Str(s.max_url_chars, min_chars=1), nullable=True),
                "domain": F(domain, nullable=True),
                "since": F(_EPOCH, nullable=True),
                "until": F(_EPOCH, nullable=True),
            },
            check=_one_forget_form,
        ),
        "clear": Obj({"confirm": F(Bool(must_be=True), required=True)}),
        "get_settings": Obj({}),
        "set_settings": Obj({"settings": F(settings_schema(s), required=True)}),
    }


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


def parse_request(payload: bytes, settings: Settings) -> Request:
    """A checked Request from a frame, or ProtocolError naming the first problem."""
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
    table = schemas(settings)
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


def valid_origin(origin: str) -> bool:
    return bool(re.fullmatch(r"chrome-extension://[a-p]{32}/", origin))


def iter_frames(read: Read, max_bytes: int) -> Iterator[bytes | Oversized]:
    """Frames until a clean EOF (Truncated propagates); oversized ones are skipped."""
    while True:
        got = read_frame(read, max_bytes)
        if got is None:
            return
        yield got
        if isinstance(got, Oversized) and not discard(read, got.remaining):
            raise Truncated(0, got.remaining, got.id_hint)
