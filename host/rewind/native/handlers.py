"""The core requests, each declared beside its function with its lane and schema
(`@REQUESTS.handler(lane, schema)`), and the two tables every request is found in: the
dispatch table `HANDLERS`, which unites this module's requests with each group module's
(ask_requests, settings_requests, backups, reindex, mcp_requests, answer_models,
warm_requests: each declares its own the same way), and the schema table
`schemas(settings)`, derived from it (requests.py checks a frame against it; PROTOCOL.md's
lanes table is written from it).
The types they share (`Ctx`, `Session`, `Handler`, `Requests`) are in context.py, the
fields several requests take in fields.py.

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
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .. import __version__, config, faults, memory
from ..config import DEFAULT_PROFILE, Settings, valid_profile
from ..errors import Code, RewindError
from ..models import installed
from ..profile import settings as profile_settings
from ..search_modes import DEFAULT_MODE, MODES
from . import (
    answer_models,
    ask_requests,
    backups,
    fields,
    mcp_requests,
    reindex,
    settings_requests,
    warm_requests,
)
from .context import Ctx, Handler, Reply, Requests
from .framing import MAX_SAFE_INT
from .replies import ListPacker, pack_list, split_page
from .requests import PROTOCOL_VERSION
from .schema import Bool, F, IdSpec, Int, List, Num, Obj, Str

if TYPE_CHECKING:
    from ..profile.engine import Rewind
    from ..profile.reembedding import Reembedder

log = logging.getLogger("rewind.host")

REQUESTS = Requests()


# ---- the core requests ------------------------------------------------------------------


@REQUESTS.handler("inline", lambda s: Obj(
    {
        "protocol": F(Int(1, 1000), default=PROTOCOL_VERSION),
        "profile": F(Str(64, min_chars=1), default=DEFAULT_PROFILE),
        "client": F(Str(200), nullable=True),  # e.g. "rewind-extension/0.1.0", logged
    },
    check=lambda a: (None if valid_profile(a["profile"])
                     else "profile must be 1-64 characters of A-Z, a-z, 0-9, _ and -"),
), needs_engine=False)
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
            log.info("hello: profile=%s protocol=%s client=%s data_dir=%s", profile,
                     ctx.args["protocol"], ctx.args["client"], data_dir)
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


@REQUESTS.handler("inline", Obj({"target_id": F(IdSpec(), required=True)}),
                  needs_engine=False)
def cancel(ctx: Ctx) -> Reply:
    return {"found": ctx.cancel_request(ctx.args["target_id"])}


@REQUESTS.handler("inline", fields.NO_FIELDS, needs_engine=False)
def list_profiles(ctx: Ctx) -> Reply:
    from ..profile import listing as profiles

    forced = profiles.forced_data_dir(ctx.session.data_dir_override)
    found = [] if forced else [p.to_dict() for p in profiles.list_profiles()]
    return {"profiles": found, "forced_data_dir": str(forced) if forced else None}


def _page(s: Settings) -> Obj:
    """A page as the extension sends it: its passages (or its text) and what it says of
    itself."""
    passage = Obj({
        "text": F(Str(s.max_request_passage_chars), required=True),
        "position": F(Int(-1, 1_000_000), default=None),
        "quality": F(Num(0.0, 1.0), default=0.5),
    })
    signals = Obj({  # what the page says of itself (capture/page_signals.py)
        "lang": F(Str(16), default=""),
        "app": F(List(Str(100), 6), default=[]),
        "manifest": F(Bool(), default=False),
        "controls": F(List(Str(100), 200), default=[]),
        "editors": F(Int(0, 1000), default=0),
    })
    return Obj(
        {
            "url": F(fields.url(s), required=True),
            "title": F(fields.title(s), default=""),
            "passages": F(List(passage, s.max_passages_per_page), nullable=True),
            "text": F(Str(s.max_page_text_chars), nullable=True),
            "content_hash": F(Str(128), nullable=True),
            "visited_at": F(fields.EPOCH, nullable=True),
            "dwell_s": F(fields.DWELL, default=0.0),
            "read": F(Bool(), default=True),
            "signals": F(signals, nullable=True),
        },
        check=lambda p: (None if (p["passages"] is not None or p["text"] is not None)
                         else "a page needs passages or text"),
    )


@REQUESTS.handler("write", lambda s: Obj({"page": F(_page(s), required=True)}))
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


def _visits(s: Settings) -> Obj:
    visit = Obj({
        "url": F(fields.url(s), required=True),
        "title": F(fields.title(s), default=""),
        "first_visit": F(fields.EPOCH, required=True),
        "last_visit": F(fields.EPOCH, required=True),
        "visit_count": F(Int(1, 10_000_000), default=1),
    })
    return Obj({"visits": F(List(visit, s.max_history_visits), required=True)})


@REQUESTS.handler("write", _visits)
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


@REQUESTS.handler("write", lambda s: Obj({
    "url": F(fields.url(s), required=True),
    "visited_at": F(fields.EPOCH, nullable=True),
    "dwell_s": F(fields.DWELL, default=0.0),
}))
def record_visit(ctx: Ctx) -> Reply:
    a = ctx.args
    return {"known": ctx.engine.record_visit(a["url"], a["visited_at"], a["dwell_s"])}


@REQUESTS.handler("read", lambda s: Obj(
    {
        "query": F(fields.query(s), required=True),
        "mode": F(Str(16, choices=MODES), default=DEFAULT_MODE),
        "limit": F(Int(1, s.max_limit), default=None),
        "since": F(fields.EPOCH, nullable=True),
        "until": F(fields.EPOCH, nullable=True),
        "domain": F(fields.DOMAIN, nullable=True),
    },
    check=fields.range_ok,
))
def search(ctx: Ctx) -> Reply:
    from ..search import SearchQuery

    a = ctx.args
    resp = ctx.engine.search(SearchQuery(
        a["query"], a["mode"], a["limit"] or ctx.engine.settings.default_limit,
        a["since"], a["until"], a["domain"]))
    ctx.check_cancelled()
    ctx.send_frames(pack_list(ctx.req.id, "results", [h.to_dict() for h in resp.results],
                              ctx.max_frame, mode=resp.mode, took_ms=round(resp.took_ms, 2),
                              notice=resp.notice))
    return None


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
            "reembed": status(engine, runner), "memory_mb": _memory_mb()}


def _memory_mb() -> float | None:
    """The helper's resident memory in MiB (the popup shows it); None where unknown."""
    mb = memory.resident_mb()
    return None if mb is None else round(mb, 1)


@REQUESTS.handler("read", fields.NO_FIELDS)
def stats(ctx: Ctx) -> Reply:
    out = profile_stats(ctx.engine, ctx.session.reembed)
    if out["reembed"] and out["reembed"]["state"] == "waiting" and ctx.session.reembed:
        ctx.session.reembed.wake()  # a job another process recorded, or left when it died
    return {"stats": out}


@REQUESTS.handler("read", lambda s: Obj({"url": F(fields.url(s), required=True)}))
def page_info(ctx: Ctx) -> Reply:
    return {"page": ctx.engine.page_info(ctx.args["url"])}


@REQUESTS.handler("read", lambda s: Obj({
    "offset": F(Int(0, MAX_SAFE_INT), default=0),
    "limit": fields.list_limit(s, default=50),
}))
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


@REQUESTS.handler("slow", fields.NO_FIELDS)
def export(ctx: Ctx) -> Reply:
    eng = ctx.engine
    batch = ctx.session.settings.export_batch_pages
    packer = ListPacker(ctx.req.id, "pages", ctx.max_frame, split=split_page)
    offset = pages = 0
    while True:
        ctx.check_cancelled()
        faults.hit("export_batch")
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


def _one_forget_form(a: dict[str, Any]) -> str | None:
    forms = [
        a["url"] is not None,
        a["domain"] is not None,
        a["since"] is not None or a["until"] is not None,
    ]
    if sum(forms) != 1:
        return "give exactly one of: url, domain, or since/until"
    return fields.range_ok(a)


@REQUESTS.handler("write", lambda s: Obj(
    {
        "url": F(fields.url(s), nullable=True),
        "domain": F(fields.DOMAIN, nullable=True),
        "since": F(fields.EPOCH, nullable=True),
        "until": F(fields.EPOCH, nullable=True),
    },
    check=_one_forget_form,
))
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


@REQUESTS.handler("write", Obj({"confirm": F(Bool(must_be=True), required=True)}))
def clear(ctx: Ctx) -> Reply:
    return {"removed": ctx.engine.clear()}


@REQUESTS.handler("write", fields.NO_FIELDS)  # it wipes what expired
def list_held(ctx: Ctx) -> Reply:
    """The pages held for the person's decision (profile/held_pages.py), never their text."""
    eng = ctx.engine
    return {"held": [h.to_dict() for h in eng.held_pages()], "hours": eng.settings.held_hours}


@REQUESTS.handler("write", Obj({"held_id": F(Str(64, min_chars=1), required=True),
                              "keep": F(Bool(), required=True)}))
def decide_held(ctx: Ctx) -> Reply:
    """Keep (index) or not keep (wipe) one held page."""
    result = ctx.engine.decide_held(ctx.args["held_id"], ctx.args["keep"])
    return {"result": result.to_dict() if result else None,
            "held": ctx.engine.holding().count()}


# ---- the tables -------------------------------------------------------------------------

# This module's requests first, then each group's, in the order PROTOCOL.md lists them.
_GROUPS = (REQUESTS, ask_requests.REQUESTS, settings_requests.REQUESTS, backups.REQUESTS,
           reindex.REQUESTS, mcp_requests.REQUESTS, answer_models.REQUESTS, warm_requests.REQUESTS)
HANDLERS: dict[str, Handler] = {name: h for group in _GROUPS for name, h in group.items()}
if len(HANDLERS) != sum(len(g) for g in _GROUPS):
    raise RuntimeError("two request groups register the same request type")


@lru_cache(maxsize=8)
def schemas(s: Settings) -> dict[str, Obj]:
    """Every request type's schema, with the limits in `s`: the table requests.py checks a
    frame against, derived from the handlers' own declarations."""
    return {name: h.schema(s) for name, h in HANDLERS.items()}
