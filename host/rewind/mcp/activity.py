"""What AI tools read: one audit line per tool call, and what each client read today.

Every call, answered or refused, is an `mcp` line in the profile's audit log (profile/audit.py):
the client, the tool, what it asked (the query, the question or the URL, cut to
MAX_QUERY_CHARS), how many pages it was given and their URLs — never a title or a word
of a page. Forgetting a page removes the lines that name it (profile/forgetting.py), like its
other lines. `today` sums them per client for the options page ("Claude Desktop read 12
pages today") and `calls` lists them for its log view and `rewind log --event mcp`.
This module must never write page text or titles to the log.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from ..profile.audit import AuditLog

EVENT = "mcp"
MAX_QUERY_CHARS = 300
MAX_URLS = 50  # a call returns at most a few dozen pages; the count is always whole


def record(audit: AuditLog, client: str, tool: str, query: str | None, urls: list[str],
           refused: str | None = None) -> None:
    """One line for one call: `refused` says why nothing was read (e.g. "not enabled")."""
    distinct = list(dict.fromkeys(urls))
    audit.write(EVENT, client=client, tool=tool,
                query=(query or "")[:MAX_QUERY_CHARS] or None,
                pages=len(distinct), urls=distinct[:MAX_URLS] or None, refused=refused)


def midnight(now: float | None = None) -> float:
    """The start of today, local time."""
    t = datetime.fromtimestamp(time.time() if now is None else now)
    return t.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()


def calls(audit: AuditLog, client: str | None = None, limit: int = 50) -> list[dict]:
    """The last `limit` calls (of one client), oldest first."""
    out = [e for e in audit.entries() if e.get("event") == EVENT
           and (client is None or e.get("client") == client)]
    return out[-limit:] if limit > 0 else out


def today(audit: AuditLog, now: float | None = None) -> dict[str, dict[str, Any]]:
    """client -> {calls, refused, pages (distinct pages read today), last_at}."""
    start = midnight(now)
    out: dict[str, dict[str, Any]] = {}
    named: dict[str, set[str]] = {}
    unnamed: dict[str, int] = {}  # pages past MAX_URLS in one call: counted, not named
    for e in audit.entries():
        if e.get("event") != EVENT or float(e.get("at", 0)) < start:
            continue
        cid = str(e.get("client", "?"))
        row = out.setdefault(cid, {"calls": 0, "refused": 0, "pages": 0, "last_at": 0.0})
        row["calls"] += 1
        row["refused"] += bool(e.get("refused"))
        row["last_at"] = max(row["last_at"], float(e.get("at", 0)))
        listed = [u for u in e.get("urls") or () if isinstance(u, str)]
        named.setdefault(cid, set()).update(listed)
        unnamed[cid] = unnamed.get(cid, 0) + max(0, int(e.get("pages") or 0) - len(listed))
    for cid, row in out.items():
        row["pages"] = len(named[cid]) + unnamed[cid]
    return out


def sentence(label: str, row: dict[str, Any] | None) -> str:
    """"Claude Desktop read 12 pages today" (or "has read nothing today")."""
    if not row or not row["calls"]:
        return f"{label} has read nothing today."
    n = row["pages"]
    read = f"{label} read {n} page{'s' if n != 1 else ''} today" if n else \
        f"{label} asked {row['calls']} time{'s' if row['calls'] != 1 else ''} today " \
        "and was given no page"
    if row["refused"]:
        read += f" ({row['refused']} call{'s' if row['refused'] != 1 else ''} refused)"
    return read + "."
