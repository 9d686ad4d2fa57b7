"""One handler per request type, behind one dispatch table (`HANDLERS`): the core
requests are here, and the table unites them with each group module's own `REQUESTS`
(backups, reindex, mcp_requests, answer_models), imported directly; the types they share
(`Ctx`, `Session`, `Handler`) are in context.py.

A handler receives a checked request (requests.py did the type and size checks)
and the connection's `Session`, calls the engine, and returns the fields of its
reply, or sends its own frames through `Ctx` when the reply is long (lists are
packed under the 1 MiB frame limit). Each handler names its lane: `inline`
(runs on the reader thread: hello, cancel), `write` (one thread, in order),
`read` (a small pool), `slow` (export, ask, build_context) or `download` (a model
download: minutes), so a long job never blocks a search or a question.
This module must never read or write frames itself, open a path a request
names, or treat page text as anything but data.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import __version__, config, faults
from ..errors import Code, RewindError
from ..models import installed
from ..profile import settings as profile_settings
from . import answer_models, backups, mcp_requests, reindex
from .context import Ctx, Handler, Reply
from .framing import encode
from .replies import ListPacker, pack_list, part_reply, split_page
from .requests import PROTOCOL_VERSION
from .schema import MISSING

if TYPE_CHECKING:
    from ..answers.answer import Answerer
    from ..profile.engine import Rewind
    from ..profile.reembedding import Reembedder

log = logging.getLogger("rewind.host")


# ---- handlers ---------------------------------------------------------------------------


def hello(ctx: Ctx) -> Reply:
    from ..profile.engine import Rewind

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
            settings = profile_settings.apply(s.settings, data_dir)
            eng = Rewind.open(data_dir, settings, writer=True)
            s.profile, s.data_dir, s.engine = profile, data_dir, eng
            backups.drop_stale_uploads(data_dir)
            from ..profile.reembedding import Reembedder

            s.reembed = Reembedder(eng, busy=s.busy)
            s.reembed.wake()  # a job left running, vectors to fill in: it goes on
            log.info(
                "hello: profile=%s protocol=%s client=%s data_dir=%s",
                profile,
                ctx.args["protocol"],
                ctx.args["client"],
                data_dir,
            )
    if ctx.args["protocol"] != PROTOCOL_VERSION:  # the extension decides; the log says why
        older = "host" if ctx.args["protocol"] > PROTOCOL_VERSION else "extension"
        log.warning("hello: the client speaks protocol %s, this host %s: update the %s (%s)",
                    ctx.args["protocol"], PROTOCOL_VERSION, older,
                    config.setup_command() if older == "host" else "reload the extension")
    try:
        model_rows = installed.describe(config.model_dir())
    except RewindError as exc:
        model_rows = [{"error": exc.to_dict()}]
    return {
        "protocol_version": PROTOCOL_VERSION,
        "host_version": __version__,
        "profile": s.profile,
        "models": model_rows,
        "stats": profile_stats(s.engine, s.reembed),
        "limits": {
            "max_request_bytes": s.settings.max_request_bytes,
            "max_reply_frame_bytes": s.settings.max_reply_frame_bytes,
        },
        "capture": s.settings.capture_limits(),
    }


def list_profiles(ctx: Ctx) -> Reply:
    from ..profile import listing as profiles

    forced = profiles.forced_data_dir(ctx.session.data_dir_override)
    found = [] if forced else [p.to_dict() for p in profiles.list_profiles()]
    return {"profiles": found, "forced_data_dir": str(forced) if forced else None}


def cancel(ctx: Ctx) -> Reply:
    return {"found": ctx.cancel_request(ctx.args["target_id"])}


def index_page(ctx: Ctx) -> Reply:
    from ..capture.ingest import PageInput, PassageInput

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
        read=p["read"],
        # the page's declared language is kept: a hint the language detector checks
        metadata={"lang": lang} if (lang := (p["signals"] or {}).get("lang")) else {},
        signals=p["signals"],
    )
    return {"result": ctx.engine.index_page(page).to_dict()}


def import_history(ctx: Ctx) -> Reply:
    """Visits from the browser's history, kept as "visited, not read" pages; the reply
    lists the pages still without text (`pending`), for the extension's backfill."""
    from ..capture.visits import VisitInput

    items = [VisitInput(v["url"], v["title"], v["first_visit"], v["last_visit"],
                        v["visit_count"]) for v in ctx.args["visits"]]
    report = ctx.engine.import_visits(items)
    if report["imported"] and ctx.session.reembed is not None:
        ctx.session.reembed.wake()  # the new titles get their vectors in the background
    return report


def record_visit(ctx: Ctx) -> Reply:
    a = ctx.args
    return {"known": ctx.engine.record_visit(a["url"], a["visited_at"], a["dwell_s"])}


def search(ctx: Ctx) -> Reply:
    from ..search import SearchQuery

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
        pack_list(
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


def _answerer(ctx: Ctx) -> Answerer:
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
    result = _answerer(ctx).ask(a["question"], provided=provided, on_chunk=chunks,
                                cancel=ctx.cancel, thread_id=a["thread_id"])
    chunks.flush()
    ctx.check_cancelled()
    return result.to_dict()


def build_context(ctx: Ctx) -> Reply:
    a = ctx.args
    built = _answerer(ctx).build_context(a["query"], a["raw_context"],
                                                 a["token_budget"])
    ctx.check_cancelled()
    return built.to_dict()


def profile_stats(engine: Rewind, runner: Reembedder | None = None) -> dict[str, Any]:
    """The profile's stats, with the language model an answer would use (the largest one
    installed, or the one a setting names; None: answers are extracts of the pages), and
    the embedding job (`reembed`: None when there is none)."""
    from ..answers import llm
    from ..profile.reembedding import status

    try:
        spec = llm.choose_spec(engine.settings, engine.model_dir)
    except RewindError:
        spec = None
    return {**engine.stats(), "answer_model": spec.name if spec else None,
            "reembed": status(engine, runner)}


def stats(ctx: Ctx) -> Reply:
    out = profile_stats(ctx.engine, ctx.session.reembed)
    if out["reembed"] and out["reembed"]["state"] == "waiting" and ctx.session.reembed:
        ctx.session.reembed.wake()  # a job another process recorded, or left when it died
    return {"stats": out}


def page_info(ctx: Ctx) -> Reply:
    return {"page": ctx.engine.page_info(ctx.args["url"])}


def list_pages(ctx: Ctx) -> Reply:
    offset, limit = ctx.args["offset"], ctx.args["limit"]
    pages = ctx.engine.list_pages(offset, limit + 1)  # one more tells whether more follow
    more = len(pages) > limit
    ctx.send_frames(
        pack_list(
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
    packer = ListPacker(ctx.req.id, "pages", ctx.max_frame, split=split_page)
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


def list_held(ctx: Ctx) -> Reply:
    """The pages held for the person's decision (profile/held_pages.py), never their text."""
    eng = ctx.engine
    return {"held": [h.to_dict() for h in eng.held_pages()], "hours": eng.settings.held_hours}


def decide_held(ctx: Ctx) -> Reply:
    """Keep (index) or not keep (wipe) one held page."""
    result = ctx.engine.decide_held(ctx.args["held_id"], ctx.args["keep"])
    return {"result": result.to_dict() if result else None,
            "held": ctx.engine.holding().count()}


def get_settings(ctx: Ctx) -> Reply:
    return {
        "settings": config.user_values(ctx.engine.settings),
        "defaults": config.user_values(ctx.session.settings),
        "schema": config.user_schema(),
    }


def set_settings(ctx: Ctx) -> Reply:
    s = ctx.session
    given = {k: v for k, v in ctx.args["settings"].items() if v is not MISSING}
    with s.lock:
        s.engine.settings = profile_settings.update(s.settings, s.data_dir, given)
    if any(k.startswith("retention_") for k in given):
        s.engine.apply_retention()  # a new limit applies now, not at the 50th write
    return get_settings(ctx)


def set_rules(ctx: Ctx) -> Reply:
    """The person's own recording rules, from the extension: kept for the profile so that
    every way in (the CLI too) obeys them; `redact` is their choice of masking."""
    try:
        ctx.engine.set_rules(ctx.args["rules"], ctx.args["redact"])
    except ValueError as exc:
        raise RewindError(Code.BAD_REQUEST, str(exc),
                          "See PROTOCOL.md, set_rules, for the fields.") from None
    return {"rules": ctx.args["rules"], "redact": ctx.engine.gate().redact}


# The requests of this module; each group module (backups, reindex, mcp_requests,
# answer_models) holds its own table beside its handlers, and HANDLERS unites them.
CORE: dict[str, Handler] = {
    "hello": Handler(hello, "inline", needs_engine=False),
    "cancel": Handler(cancel, "inline", needs_engine=False),
    "list_profiles": Handler(list_profiles, "inline", needs_engine=False),
    "index_page": Handler(index_page, "write"),
    "import_history": Handler(import_history, "write"),
    "record_visit": Handler(record_visit, "write"),
    "forget": Handler(forget, "write"),
    "clear": Handler(clear, "write"),
    "list_held": Handler(list_held, "write"),  # it wipes what expired
    "decide_held": Handler(decide_held, "write"),
    "set_settings": Handler(set_settings, "write"),
    "set_rules": Handler(set_rules, "write"),
    "search": Handler(search, "read"),
    "stats": Handler(stats, "read"),
    "page_info": Handler(page_info, "read"),
    "list_pages": Handler(list_pages, "read"),
    "get_settings": Handler(get_settings, "read"),
    "export": Handler(export, "slow"),
    "ask": Handler(ask, "slow"),
    "build_context": Handler(build_context, "slow"),
}

_GROUPS = (CORE, backups.REQUESTS, reindex.REQUESTS, mcp_requests.REQUESTS,
           answer_models.REQUESTS)
HANDLERS: dict[str, Handler] = {name: h for group in _GROUPS for name, h in group.items()}
if len(HANDLERS) != sum(len(g) for g in _GROUPS):
    raise RuntimeError("two request groups register the same request type")
