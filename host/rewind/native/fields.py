"""The request fields several requests share: a URL, a title, a query, a time, a site.

Each request's own schema is declared beside its handler (`@REQUESTS.handler(lane,
schema)` in handlers.py and the group modules); what two or more of them take is here,
once, with its limit from Settings (PROTOCOL.md's table of limits is written from the same
Settings: native/doc.py).
This module must never act on a request or do I/O.
"""

from __future__ import annotations

from typing import Any

from ..config import Settings
from .schema import F, Int, Num, Obj, Str

EPOCH = Num(0, 1e11)  # seconds since 1970; up to the year 5138
DWELL = Num(0, 1e7)  # seconds (~115 days)
DOMAIN = Str(253, min_chars=1)  # a site (forget, search, an AI tool's sites)
NO_FIELDS = Obj({})  # a request that takes none (stats, export...)


def url(s: Settings) -> Str:
    return Str(s.max_url_chars, min_chars=1)


def title(s: Settings) -> Str:
    return Str(s.max_title_chars)


def query(s: Settings) -> Str:
    """What a person searches for or asks (search, ask, build_context)."""
    return Str(s.max_query_chars, min_chars=1)


def context(s: Settings) -> Str:
    """Text given with a question: the current tab's (ask), the caller's (build_context)."""
    return Str(s.max_context_chars)


def list_limit(s: Settings, default: int) -> F:
    """How many items a listing returns (list_pages, mcp_log)."""
    return F(Int(1, s.max_list_limit), default=default)


def range_ok(a: dict[str, Any]) -> str | None:
    """A time range's cross-field rule: since is not after until."""
    if a.get("since") is not None and a.get("until") is not None and a["since"] > a["until"]:
        return "since is after until"
    return None

