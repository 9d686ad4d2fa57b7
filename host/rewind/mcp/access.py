"""Which AI tools may read the history, and what part of it each may see.

Off until the person turns it on: a tool (a client, by name: "claude-desktop") reads
nothing unless this profile's `mcp_access.json` enables it. Each enabled client has a
scope: sites included (none listed: every site), sites excluded, a time window of last
visits (the last N days; 0: all time) and whether answers may use the local language
model. The scope becomes a PageFilter (index/store/page_filter.py) that retrieval takes into
its queries, so pages outside it are never scored, let alone returned.
The file is written by the options page (native/mcp_requests.py) and `rewind mcp
--setup`, read by the server before every call (a change applies to the next call).
This module must never widen access on bad input: a damaged file or entry enables nothing.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import Code, RewindError
from ..index.store.page_filter import PageFilter, site_key
from . import clients

log = logging.getLogger("rewind.mcp")

FILE = "mcp_access.json"
VERSION = 1
DAY = 86400.0
MAX_SITES = 200
MAX_WINDOW_DAYS = 36_500
_CLIENT_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


def client_id(name: str) -> str:
    """A client's id from a name a person or a tool gives ("Claude Desktop" ->
    "claude-desktop"; a tool's own reported name, e.g. "claude-ai", -> its known id)."""
    known = clients.by_reported_name(name)
    if known is not None:
        return known
    cid = re.sub(r"[^a-z0-9]+", "-", name.strip().lower()).strip("-")[:40].strip("-")
    if not _CLIENT_ID.match(cid):
        raise RewindError(Code.BAD_REQUEST, f"{name[:60]!r} is not a usable client name.",
                          "Use letters and digits, e.g. claude-desktop.")
    return cid


@dataclass(frozen=True)
class ClientAccess:
    client: str  # its id
    label: str  # how the person calls it ("Claude Desktop")
    enabled: bool = False
    sites: tuple[str, ...] = ()  # only these sites (and their subdomains); empty: every site
    not_sites: tuple[str, ...] = ()  # never these
    window_days: int = 30  # last visits within this many days; 0: all time
    llm: bool = False  # answers may use the local language model (else: extracts)
    changed_at: float = 0.0

    def scope(self, now: float | None = None) -> PageFilter:
        """What this client may see now (the window moves with the clock)."""
        since = None
        if self.window_days:
            since = (time.time() if now is None else now) - self.window_days * DAY
        return PageFilter(sites=self.sites, not_sites=self.not_sites, since=since)

    def describe(self) -> str:
        """The scope in a sentence, for the tool and for the person."""
        sites = ("only " + ", ".join(self.sites)) if self.sites else "every site"
        if self.not_sites:
            sites += " except " + ", ".join(self.not_sites)
        window = f"pages read in the last {self.window_days} days" if self.window_days \
            else "pages read at any time"
        model = "answers may use the local language model" if self.llm \
            else "answers are made of the pages' own sentences (no language model)"
        return f"{sites}; {window}; {model}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["sites"], d["not_sites"] = list(self.sites), list(self.not_sites)
        d["scope"] = self.describe()
        return d


def _sites(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple) or len(value) > MAX_SITES:
        raise ValueError(f"{what}: a list of at most {MAX_SITES} sites")
    try:
        return tuple(sorted({site_key(str(s)) for s in value if str(s).strip()}))
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None


def checked(cid: str, fields: dict[str, Any], base: ClientAccess | None = None
            ) -> ClientAccess:
    """`base` (or a new client's defaults) with `fields` changed, each checked; ValueError
    names the first bad one and nothing is changed."""
    allowed = {"label", "enabled", "sites", "not_sites", "window_days", "llm"}
    unknown = set(fields) - allowed
    if unknown:
        raise ValueError(f"unknown field {sorted(unknown)[0]!r}")
    cur = base or ClientAccess(cid, clients.label(cid))
    new: dict[str, Any] = {}
    if "label" in fields:
        label = str(fields["label"]).strip()
        if not 1 <= len(label) <= 60 or not label.isprintable():
            raise ValueError("label: 1-60 printable characters")
        new["label"] = label
    for key in ("enabled", "llm"):
        if key in fields:
            if not isinstance(fields[key], bool):
                raise ValueError(f"{key}: true or false")
            new[key] = fields[key]
    if "sites" in fields:
        new["sites"] = _sites(fields["sites"], "sites")
    if "not_sites" in fields:
        new["not_sites"] = _sites(fields["not_sites"], "not_sites")
    if "window_days" in fields:
        days = fields["window_days"]
        if isinstance(days, bool) or not isinstance(days, int | float) or days != int(days) \
                or not 0 <= days <= MAX_WINDOW_DAYS:
            raise ValueError(f"window_days: a whole number of days, 0 (all time) to "
                             f"{MAX_WINDOW_DAYS}")
        new["window_days"] = int(days)
    return replace(cur, client=cid, changed_at=round(time.time(), 3), **new)


@dataclass
class AccessBook:
    """The access of every client to one profile, as saved in its data directory."""

    data_dir: Path
    clients: dict[str, ClientAccess] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return self.data_dir / FILE

    @classmethod
    def load(cls, data_dir: Path) -> AccessBook:
        """The saved access; a missing or damaged file (or entry) enables nothing."""
        book = cls(Path(data_dir))
        try:
            raw = json.loads(book.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return book
        except (OSError, ValueError) as exc:
            log.warning("ignoring %s: %s", book.path, exc)
            return book
        entries = raw.get("clients") if isinstance(raw, dict) else None
        for cid, entry in (entries or {}).items():
            try:
                if not _CLIENT_ID.match(cid) or not isinstance(entry, dict):
                    raise ValueError("not a client entry")
                given = {k: v for k, v in entry.items()
                         if k not in ("client", "changed_at", "scope")}
                access = checked(cid, given)
                book.clients[cid] = replace(
                    access, changed_at=float(entry.get("changed_at") or 0.0))
            except (ValueError, TypeError) as exc:
                log.warning("ignoring the access of %r in %s: %s", cid, book.path, exc)
        return book

    def get(self, cid: str) -> ClientAccess:
        """The client's access (a client never set up: off)."""
        return self.clients.get(cid) or ClientAccess(cid, clients.label(cid))

    def set(self, cid: str, fields: dict[str, Any]) -> ClientAccess:
        """Change one client's access and save; ValueError: nothing changed."""
        access = checked(cid, fields, self.clients.get(cid))
        self.clients[cid] = access
        self.save()
        return access

    def remove(self, cid: str) -> bool:
        gone = self.clients.pop(cid, None) is not None
        if gone:
            self.save()
        return gone

    def save(self) -> None:
        data = {"version": VERSION, "clients": {
            cid: {k: v for k, v in a.to_dict().items() if k not in ("client", "scope")}
            for cid, a in sorted(self.clients.items())}}
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)  # atomic: a reader sees the old file or the new one


class AccessWatch:
    """The server's view of the access file: read again when it changed (by mtime and
    size), so the options page's change applies to the next call."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self._stamp: tuple[int, int] | None = None
        self._book = AccessBook(self.data_dir)

    def book(self) -> AccessBook:
        try:
            st = (self.data_dir / FILE).stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = (0, 0)
        if stamp != self._stamp:
            self._book, self._stamp = AccessBook.load(self.data_dir), stamp
        return self._book


def not_enabled(access: ClientAccess) -> RewindError:
    """The error every tool answers while access is off: what to do, in the person's words."""
    return RewindError(
        Code.FORBIDDEN,
        f"Rewind has not enabled access to the browsing history for {access.label} "
        f"(client \"{access.client}\").",
        "Ask the person to turn it on: Rewind's options page, \"AI tools (MCP)\", or "
        f"`rewind mcp --setup {access.client}` in a terminal. Nothing was read.")
