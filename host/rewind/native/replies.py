"""Reply envelopes: ok, part of a stream, error; long lists packed under the frame limit.

Every reply carries the request's id, `ok` and `done`; an error ends its request. List
replies (search results, pages, an export) are split across frames so that no frame is
ever over the 1 MiB Chrome accepts, sizes counted exactly on the encoded bytes.
This module must never read or write a stream (callers send the frames it builds).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import Code, RewindError
from .framing import HEADER, FrameTooLarge, Id, dumps, frame

MAX_ERROR_MESSAGE_CHARS = 2000  # error texts are cut so an error frame always fits


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

