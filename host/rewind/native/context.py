"""What every request handler is given and returns: the connection's `Session`, the
request's `Ctx`, the `Reply` a handler gives back, `Cancelled`, and how a request is
declared: a `Handler` (function, lane and schema) registered in its module's `Requests`
table by `@REQUESTS.handler(lane, schema)` just above the function.

Kept apart from the dispatch table (handlers.py) so that the request groups
(ask_requests.py, settings_requests.py, backups.py, reindex.py, mcp_requests.py,
answer_models.py, warm_requests.py) take a typed `Ctx` and the table imports them, never
the other way round.
This module must never import a handler module, read or write frames, or do I/O.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Settings
from .framing import Id
from .requests import Request
from .schema import Obj

if TYPE_CHECKING:
    from ..answers.answer import Answerer
    from ..profile.engine import Rewind
    from ..profile.reembedding import Reembedder


class Cancelled(Exception):
    """Raised inside a handler when its request was cancelled."""


@dataclass
class Session:
    """What one connection (one browser port) has fixed: settings, profile, engine."""

    settings: Settings = field(default_factory=Settings)
    data_dir_override: str | os.PathLike[str] | None = None
    profile: str | None = None
    data_dir: Path | None = None
    engine: Rewind | None = None  # once hello has opened the profile
    answerer: Answerer | None = None  # keeps the language model loaded (warm)
    reembed: Reembedder | None = None  # the background embedding job (native/reindex.py)
    busy: Callable[[], bool] = lambda: False  # interactive requests in flight (the host's)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self) -> None:
        if self.reembed is not None and not self.reembed.stop(timeout=0.5):
            self.engine = None  # its thread is mid-batch: the process exit ends it
        if self.answerer is not None:
            self.answerer.close()
            self.answerer = None
        if self.engine is not None:
            self.engine.close()
            self.engine = None


@dataclass
class Ctx:
    req: Request
    session: Session
    send_frames: Callable[[list[bytes]], None]  # already-encoded frames, in order
    cancel: threading.Event = field(default_factory=threading.Event)
    cancel_request: Callable[[Id], bool] = lambda _id: False

    @property
    def args(self) -> dict[str, Any]:
        return self.req.args

    @property
    def engine(self) -> Rewind:
        """The profile's engine (the host checks that hello opened it before dispatching)."""
        assert self.session.engine is not None
        return self.session.engine

    @property
    def max_frame(self) -> int:
        return self.session.settings.max_reply_frame_bytes

    def check_cancelled(self) -> None:
        if self.cancel.is_set():
            raise Cancelled


Reply = dict[str, Any] | None  # None: the handler sent its frames itself


Fn = Callable[[Ctx], Reply]
Schema = Callable[[Settings], Obj]  # a request's fields, with the limits of these settings


@dataclass(frozen=True)
class Handler:
    """One request type: the function that serves it, its lane, and its fields."""

    fn: Fn
    lane: str  # inline | write | read | slow | download
    schema: Schema
    needs_engine: bool = True


class Requests(dict[str, Handler]):
    """A module's requests, each declared where its function is:

        @REQUESTS.handler("read", lambda s: Obj({"url": F(fields.url(s), required=True)}))
        def page_info(ctx): ...

    registers the request type "page_info" (the function's name) with its lane and schema.
    handlers.py unites the modules' tables into the dispatch table and the schema table."""

    def handler(self, lane: str, schema: Schema | Obj, *,
                needs_engine: bool = True) -> Callable[[Fn], Fn]:
        fixed = schema if not isinstance(schema, Obj) else (lambda _s: schema)

        def register(fn: Fn) -> Fn:
            if fn.__name__ in self:
                raise ValueError(f"request type {fn.__name__!r} declared twice")
            self[fn.__name__] = Handler(fn, lane, fixed, needs_engine)
            return fn

        return register
