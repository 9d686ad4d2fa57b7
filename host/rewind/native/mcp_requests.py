"""The options page's requests about AI tools: who may read the history, and what they read.

`mcp_access` lists every client's access (its scope in a sentence, the configuration to
paste, what it read today: "Claude Desktop read 12 pages today"), `mcp_set_access`
changes one client's (or forgets it), `mcp_log` lists the calls the audit log holds (the
log view the options page links to). The access file is the one `rewind mcp` reads
before every call (mcp/access.py), so a change applies to the server's next call.
This module must never start an MCP server or read page text: the audit lines it lists
hold URLs and queries, never a page's words.
"""

from __future__ import annotations

from typing import Any

from ..errors import Code, RewindError
from ..mcp import activity, clients
from ..mcp.access import AccessBook, client_id
from ..profile.audit import AuditLog
from . import fields
from .context import Ctx, Reply, Requests
from .replies import pack_list
from .schema import Bool, F, Int, List, Obj, Str

ACCESS_FIELDS = ("label", "enabled", "sites", "not_sites", "window_days", "llm")
CLIENT = Str(60, min_chars=1)  # a client's name (mcp/access.py: client_id)
REQUESTS = Requests()


def _audit(ctx: Ctx) -> AuditLog:
    return AuditLog(ctx.session.data_dir, ctx.engine.settings.audit_log_bytes)


@REQUESTS.handler("read", fields.NO_FIELDS)
def mcp_access(ctx: Ctx) -> Reply:
    data_dir = ctx.session.data_dir
    book = AccessBook.load(data_dir)
    read = activity.today(_audit(ctx))
    rows = []
    for cid in sorted({*book.clients, *read}):  # a client refused today shows too
        a = book.get(cid)
        rows.append({**a.to_dict(), "known": cid in book.clients, "today": read.get(cid),
                     "read_today": activity.sentence(a.label, read.get(cid)),
                     "config": clients.snippet(cid, data_dir)})
    return {"clients": rows,
            "known": [{"client": cid, "label": c.label, "where": c.where,
                       "config": clients.snippet(cid, data_dir)}
                      for cid, c in clients.KNOWN.items()],
            "log_file": str(_audit(ctx).path),
            "log_command": "rewind log --event mcp"}


@REQUESTS.handler("write", Obj({
    "client": F(CLIENT, required=True),
    "label": F(Str(60, min_chars=1), nullable=True),
    "enabled": F(Bool(), nullable=True),
    "sites": F(List(fields.DOMAIN, 200), nullable=True),
    "not_sites": F(List(fields.DOMAIN, 200), nullable=True),
    "window_days": F(Int(0, 36_500), nullable=True),
    "llm": F(Bool(), nullable=True),
    "remove": F(Bool(), default=False),
}))
def mcp_set_access(ctx: Ctx) -> Reply:
    a = ctx.args
    cid = client_id(a["client"])
    book = AccessBook.load(ctx.session.data_dir)
    if a["remove"]:
        book.remove(cid)
        return mcp_access(ctx)
    fields = {k: a[k] for k in ACCESS_FIELDS if a[k] is not None}
    try:
        book.set(cid, fields)
    except ValueError as exc:
        raise RewindError(Code.BAD_REQUEST, f"mcp_set_access: {exc}. Nothing was changed.",
                          "See PROTOCOL.md, mcp_set_access.") from None
    return mcp_access(ctx)


@REQUESTS.handler("read", lambda s: Obj({"client": F(CLIENT, nullable=True),
                                          "limit": fields.list_limit(s, default=100)}))
def mcp_log(ctx: Ctx) -> Reply:
    a = ctx.args
    cid = client_id(a["client"]) if a["client"] else None
    rows: list[dict[str, Any]] = activity.calls(_audit(ctx), cid, a["limit"])
    rows.reverse()  # the latest first, as the page shows them
    ctx.send_frames(pack_list(ctx.req.id, "calls", rows, ctx.max_frame,
                              log_file=str(_audit(ctx).path)))
    return None
