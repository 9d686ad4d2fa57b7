"""The requests the Answerer serves (their table `REQUESTS` joins handlers.py's): `ask`, a
question answered from the history, its checked sentences streamed as `chunk` frames, and
`build_context`, the passages for a query packed into a token budget (for an AI tool).

Both run on the slow lane and share the connection's Answerer, which keeps the language
model loaded between questions; the Coalescer sends an answer's sentences in a few frames,
not one frame a token.
This module must never read or write frames itself, nor treat page text as anything but data.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from . import fields
from .context import Ctx, Reply, Requests
from .framing import encode
from .replies import part_reply
from .schema import F, Int, Obj, Str

if TYPE_CHECKING:
    from ..answers.answer import Answerer

REQUESTS = Requests()


def answerer(ctx: Ctx) -> Answerer:
    """The connection's Answerer, made at its first use and kept (the model stays loaded)."""
    from ..answers.answer import Answerer

    with ctx.session.lock:
        if ctx.session.answerer is None:
            ctx.session.answerer = Answerer(ctx.engine)
        return ctx.session.answerer


class Coalescer:
    """Sends streamed text at most every `interval` s (the first piece at once): an
    answer's tokens go out in a few frames, not one frame a token."""

    def __init__(self, send: Callable[[str], None], interval: float) -> None:
        self._send = send
        self._interval = interval
        self._buf: list[str] = []
        self._last: float | None = None

    def __call__(self, piece: str) -> None:
        self._buf.append(piece)
        now = time.monotonic()
        if self._last is None or now - self._last >= self._interval:
            self.flush()

    def flush(self) -> None:
        if self._buf:
            text, self._buf = "".join(self._buf), []
            self._last = time.monotonic()
            self._send(text)


@REQUESTS.handler("slow", lambda s: Obj({
    "question": F(fields.query(s), required=True),
    "page_text": F(fields.context(s), nullable=True),  # the current tab's, with the question
    "page_url": F(Str(s.max_url_chars), nullable=True),
    "page_title": F(fields.title(s), nullable=True),
    "thread_id": F(Str(32, min_chars=1), nullable=True),  # a follow-up's thread
}))
def ask(ctx: Ctx) -> Reply:
    from ..answers.context import TabContext

    a = ctx.args
    provided = None
    if a["page_text"]:
        provided = TabContext(a["page_text"], a["page_url"] or "", a["page_title"] or "")

    def send(text: str) -> None:
        if not ctx.cancel.is_set():
            part = part_reply(ctx.req.id, chunk=text)
            ctx.send_frames([encode(part, ctx.max_frame)])

    chunks = Coalescer(send, ctx.session.settings.stream_flush_s)
    result = answerer(ctx).ask(a["question"], provided=provided, on_chunk=chunks,
                                cancel=ctx.cancel, thread_id=a["thread_id"])
    chunks.flush()
    ctx.check_cancelled()
    return result.to_dict()


@REQUESTS.handler("slow", lambda s: Obj({
    "query": F(fields.query(s), required=True),
    "raw_context": F(fields.context(s), nullable=True),
    "token_budget": F(Int(1, s.max_token_budget), required=True),
}))
def build_context(ctx: Ctx) -> Reply:
    a = ctx.args
    built = answerer(ctx).build_context(a["query"], a["raw_context"], a["token_budget"])
    ctx.check_cancelled()
    return built.to_dict()
