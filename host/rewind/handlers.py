"""One handler per request type, behind one dispatch table (`HANDLERS`).

A handler receives a checked request (protocol.py did the type and size checks)
and the connection's `Session`, calls the engine, and returns the fields of its
reply, or sends its own frames through `Ctx` when the reply is long (lists are
packed under the 1 MiB frame limit). Each handler names its lane: `inline`
(runs on the reader thread: hello, cancel), `write` (one thread, in order),
`read` (a small pool) or `slow` (export, ask, build_context), so a long job
never blocks a search.
This module must never read or write frames itself, open a path a request
names, or treat page text as anything but data.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__, config, faults, protocol
from .config import Settings
from .errors import Code, RewindError
from .protocol import Request

log = logging.getLogger("rewind.host")

HOST_SETTINGS_FILE = "host_settings.json"  # set_settings overrides, in the profile's data dir


class Cancelled(Exception):
    """Raised inside a handler when its request was cancelled."""


@dataclass
class Session:
    """What one connection (one browser port) has fixed: settings, profile, engine."""

    settings: Settings = field(default_factory=Settings)
    data_dir_override: str | os.PathLike[str] | None = None
    profile: str | None = None
    data_dir: Path | None = None
    engine: Any = None  # rewind.engine.Rewind once hello has opened it
    answerer: Any = None  # rewind.answer.Answerer: keeps the language model loaded (warm)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def close(self) -> None:
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
    cancel_request: Callable[[protocol.Id], bool] = lambda _id: False

    @property
    def args(self) -> dict[str, Any]:
        return self.req.args

    @property
    def engine(self) -> Any:
        return self.session.engine

    @property
    def max_frame(self) -> int:
        return self.session.settings.max_reply_frame_bytes

    def check_cancelled(self) -> None:
        if self.cancel.is_set():
            raise Cancelled


Reply = dict[str, Any] | None  # None: the handler sent its frames itself


@dataclass(frozen=True)
class Handler:
    fn: Callable[[Ctx], Reply]
    lane: str  # inline | write | read | slow
    needs_engine: bool = True


# ---- host settings (set_settings) -------------------------------------------------------


def load_host_settings(data_dir: Path, base: Settings) -> dict[str, Any]:
    """The overrides saved by set_settings; a damaged file or entry is skipped (and logged)."""
    path = data_dir / HOST_SETTINGS_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring %s: %s", path, exc)
        return {}
    if not isinstance(raw, dict):
        log.warning("ignoring %s: not a JSON object", path)
        return {}
    fields = protocol.settings_schema(base).fields
    out: dict[str, Any] = {}
    for key, value in raw.items():
        try:  # one by one: a setting a newer or older host does not know is skipped alone
            if key not in fields:
                raise protocol.BadField(key, "not a setting of this host")
            out[key] = protocol.check(fields[key].spec, value, key)
        except protocol.BadField as exc:
            log.warning("ignoring a saved setting in %s: %s", path, exc)
    return out


def save_host_settings(data_dir: Path, overrides: dict[str, Any]) -> None:
    path = data_dir / HOST_SETTINGS_FILE
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(overrides, fh, indent=1, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)  # atomic: a crash leaves the old or the new file


def current_settings(s: Settings) -> dict[str, Any]:
    return {k: getattr(s, k) for k in protocol.settings_schema(s).fields}


# ---- handlers ---------------------------------------------------------------------------


def hello(ctx: Ctx) -> Reply:
    from . import models
    from .engine import Rewind

    s = ctx.session
    profile = ctx.args["profile"]
    with s.lock:
        if s.engine is not None and profile != s.profile:
            raise RewindError(
                Code.BAD_REQUEST,
                f"This connection already serves profile {s.profile!r}.",
                "A connection serves one profile: reconnect to use another.",
            )
        if s.engine is None:
            data_dir = config.data_dir(profile, s.data_dir_override)
            base = s.settings
            overrides = load_host_settings(data_dir, base)
            eng = Rewind.open(data_dir, dataclasses.replace(base, **overrides), writer=True)
            s.profile, s.data_dir, s.engine = profile, data_dir, eng
            log.info(
                "hello: profile=%s protocol=%s client=%s data_dir=%s",
                profile,
                ctx.args["protocol"],
                ctx.args["client"],
                data_dir,
            )
    try:
        model_rows = models.describe(config.model_dir())
    except RewindError as exc:
        model_rows = [{"error": exc.to_dict()}]
    return {
        "protocol_version": protocol.PROTOCOL_VERSION,
        "host_version": __version__,
        "profile": s.profile,
        "models": model_rows,
        "stats": s.engine.stats(),
        "limits": {
            "max_request_bytes": s.settings.max_request_bytes,
            "max_reply_frame_bytes": s.settings.max_reply_frame_bytes,
        },
        "capture": {k: getattr(s.settings, k) for k in config.CAPTURE_LIMITS},
    }


def list_profiles(ctx: Ctx) -> Reply:
    from . import profiles

    forced = profiles.forced_data_dir(ctx.session.data_dir_override)
    found = [] if forced else [p.to_dict() for p in profiles.list_profiles()]
    return {"profiles": found, "forced_data_dir": str(forced) if forced else None}


def cancel(ctx: Ctx) -> Reply:
    return {"found": ctx.cancel_request(ctx.args["target_id"])}


def index_page(ctx: Ctx) -> Reply:
    from .ingest import PageInput, PassageInput

    p = ctx.args["page"]
    faults.hit("index_page", p["url"])
    passages = None
    if p["passages"] is not None:
        passages = [PassageInput(x["text"], x["position"], x["quality"]) for x in p["passages"]]
    page = PageInput(
        url=p["url"],
        title=p["title"],
        passages=passages,
        text=p["text"],
        visited_at=p["visited_at"],
        dwell_s=p["dwell_s"],
    )
    return {"result": ctx.engine.index_page(page).to_dict()}


def record_visit(ctx: Ctx) -> Reply:
    a = ctx.args
    return {"known": ctx.engine.record_visit(a["url"], a["visited_at"], a["dwell_s"])}


def search(ctx: Ctx) -> Reply:
    from .search import SearchQuery

    a = ctx.args
    eng = ctx.engine
    q = SearchQuery(
        text=a["query"],
        mode=a["mode"] or "hybrid",
        limit=a["limit"] or eng.settings.default_limit,
        since=a["since"],
        until=a["until"],
        domain=a["domain"],
    )
    resp = eng.search(q)
    ctx.check_cancelled()
    ctx.send_frames(
        protocol.pack_list(
            ctx.req.id,
            "results",
            [h.to_dict() for h in resp.results],
            ctx.max_frame,
            mode=resp.mode,
            took_ms=round(resp.took_ms, 2),
            notice=resp.notice,
        )
    )
    return None


def _answerer(session: Session) -> Any:
    from .answer import Answerer

    with session.lock:
        if session.answerer is None:
            session.answerer = Answerer(session.engine)
        return session.answerer


def ask(ctx: Ctx) -> Reply:
    from .answer import Coalescer
    from .context import TabContext

    a = ctx.args
    provided = None
    if a["page_text"]:
        provided = TabContext(a["page_text"], a["page_url"] or "", a["page_title"] or "")

    def send(text: str) -> None:
        if not ctx.cancel.is_set():
            part = protocol.part_reply(ctx.req.id, chunk=text)
            ctx.send_frames([protocol.encode(part, ctx.max_frame)])

    chunks = Coalescer(send, ctx.session.settings.stream_flush_s)
    result = _answerer(ctx.session).ask(a["question"], provided=provided, on_chunk=chunks,
                                        cancel=ctx.cancel)
    chunks.flush()
    ctx.check_cancelled()
    return result.to_dict()


def build_context(ctx: Ctx) -> Reply:
    a = ctx.args
    built = _answerer(ctx.session).build_context(a["query"], a["raw_context"],
                                                 a["token_budget"])
    ctx.check_cancelled()
    return built.to_dict()


def stats(ctx: Ctx) -> Reply:
    return {"stats": ctx.engine.stats()}


def page_info(ctx: Ctx) -> Reply:
    return {"page": ctx.engine.page_info(ctx.args["url"])}


def list_pages(ctx: Ctx) -> Reply:
    offset, limit = ctx.args["offset"], ctx.args["limit"]
    pages = ctx.engine.list_pages(offset, limit + 1)  # one more tells whether more follow
    more = len(pages) > limit
    ctx.send_frames(
        protocol.pack_list(
            ctx.req.id,
            "pages",
            pages[:limit],
            ctx.max_frame,
            offset=offset,
            limit=limit,
            next_offset=offset + limit if more else None,
        )
    )
    return None


def export(ctx: Ctx) -> Reply:
    eng = ctx.engine
    batch = ctx.session.settings.export_batch_pages
    packer = protocol.ListPacker(ctx.req.id, "pages", ctx.max_frame, split=protocol.split_page)
    offset = pages = 0
    while True:
        ctx.check_cancelled()
        rows = eng.export_pages(offset, batch)
        for page in rows:
            ctx.send_frames(packer.add(page))
        pages += len(rows)
        offset += len(rows)
        if len(rows) < batch:
            break
    ctx.check_cancelled()
    ctx.send_frames(
        packer.finish(
            format="rewind-export", version=1, pages_total=pages, host_version=__version__
        )
    )
    return None


def forget(ctx: Ctx) -> Reply:
    a = ctx.args
    eng = ctx.engine
    if a["url"] is not None:
        removed = eng.forget_url(a["url"])
    elif a["domain"] is not None:
        removed = eng.forget_domain(a["domain"])
    else:
        removed = eng.forget_range(a["since"], a["until"])
    return {"removed": removed}


def clear(ctx: Ctx) -> Reply:
    return {"removed": ctx.engine.clear()}


def get_settings(ctx: Ctx) -> Reply:
    return {
        "settings": current_settings(ctx.engine.settings),
        "defaults": current_settings(ctx.session.settings),
    }


def set_settings(ctx: Ctx) -> Reply:
    s = ctx.session
    given = {k: v for k, v in ctx.args["settings"].items() if v is not protocol.MISSING}
    with s.lock:
        overrides = load_host_settings(s.data_dir, s.settings)
        for key, value in given.items():
            if value is None:
                overrides.pop(key, None)  # null: back to the default
            else:
                overrides[key] = value
        save_host_settings(s.data_dir, overrides)
        s.engine.settings = dataclasses.replace(s.settings, **overrides)
    return get_settings(ctx)


HANDLERS: dict[str, Handler] = {
    "hello": Handler(hello, "inline", needs_engine=False),
    "cancel": Handler(cancel, "inline", needs_engine=False),
    "list_profiles": Handler(list_profiles, "inline", needs_engine=False),
    "index_page": Handler(index_page, "write"),
    "record_visit": Handler(record_visit, "write"),
    "forget": Handler(forget, "write"),
    "clear": Handler(clear, "write"),
    "set_settings": Handler(set_settings, "write"),
    "search": Handler(search, "read"),
    "stats": Handler(stats, "read"),
    "page_info": Handler(page_info, "read"),
    "list_pages": Handler(list_pages, "read"),
    "get_settings": Handler(get_settings, "read"),
    "export": Handler(export, "slow"),
    "ask": Handler(ask, "slow"),
    "build_context": Handler(build_context, "slow"),
}
