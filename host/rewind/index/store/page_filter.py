"""Which pages a read may see: a site, sites included or excluded, a span of last visits.

A `PageFilter` is applied inside the queries themselves, never to results afterwards:
as SQL over the pages table here (the page ids the dense search may score, the pages
`recent_pages` lists) and as tantivy clauses in derived/text_index.py (BM25 never scores a page
outside it). A search's own filters (one site, since/until) and a reader's scope (an AI
tool's sites and time window: mcp/access.py) are the same kind of thing, and `narrowed`
makes one filter that asks both.
A site means the site and its subdomains (python.org admits docs.python.org), as
everywhere in Rewind; sites are compared without a leading "www.".
This module must never write to the store.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import tantivy

from .records import PageRecord
from .store import Store

_SITE = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)*$")


def site_key(site: str) -> str:
    """`site` as pages store their domain (lower case, no "www."), or ValueError."""
    s = site.strip().lower().removeprefix("www.").rstrip(".")
    if not _SITE.match(s) or len(s) > 253:
        raise ValueError(f"{site[:80]!r} is not a site name (e.g. example.com)")
    return s


def on_site(domain: str, site: str) -> bool:
    return domain == site or domain.endswith("." + site)


@dataclass(frozen=True)
class PageFilter:
    domain: str | None = None  # one site (a search's filter)
    sites: tuple[str, ...] = ()  # any of these sites; empty: every site
    not_sites: tuple[str, ...] = ()  # never these sites
    since: float | None = None  # last visit at or after
    until: float | None = None  # last visit before

    @property
    def everything(self) -> bool:
        """Admits every page: nothing to ask of the indexes."""
        return (self.domain is None and not self.sites and not self.not_sites
                and self.since is None and self.until is None)

    def narrowed(self, other: PageFilter) -> PageFilter:
        """One filter asking what both ask (a search's filters within a reader's scope)."""
        if self.domain and other.domain and self.domain != other.domain:
            # Two single sites: the narrower one if nested, else a site nothing is on.
            inner = self.domain if on_site(self.domain, other.domain) else other.domain \
                if on_site(other.domain, self.domain) else "-"
            domain = inner
        else:
            domain = self.domain or other.domain
        since = max((t for t in (self.since, other.since) if t is not None), default=None)
        until = min((t for t in (self.until, other.until) if t is not None), default=None)
        sites = self.sites or other.sites
        if self.sites and other.sites:  # any of both lists: the pairs that nest
            sites = tuple(sorted({a if on_site(a, b) else b for a in self.sites
                                  for b in other.sites if on_site(a, b) or on_site(b, a)}))
            sites = sites or ("-",)
        return PageFilter(domain, sites, tuple(sorted({*self.not_sites, *other.not_sites})),
                          since, until)

    def admits(self, page: PageRecord) -> bool:
        d = page.domain
        return ((self.domain is None or on_site(d, self.domain))
                and (not self.sites or any(on_site(d, s) for s in self.sites))
                and not any(on_site(d, s) for s in self.not_sites)
                and (self.since is None or page.last_visit >= self.since)
                and (self.until is None or page.last_visit < self.until))

    def sql(self) -> tuple[str, list]:
        """A WHERE condition over `pages` (its columns unqualified) and its arguments."""
        parts, args = ["1=1"], []

        def one(site: str) -> str:
            args.extend([site, "%." + _like(site)])
            return "(domain=? OR domain LIKE ? ESCAPE '\\')"

        if self.domain is not None:
            parts.append(one(self.domain))
        if self.sites:
            parts.append("(" + " OR ".join(one(s) for s in self.sites) + ")")
        for s in self.not_sites:
            parts.append("NOT " + one(s))
        if self.since is not None:
            parts.append("last_visit >= ?")
            args.append(self.since)
        if self.until is not None:
            parts.append("last_visit < ?")
            args.append(self.until)
        return " AND ".join(parts), args


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def page_ids(store: Store, f: PageFilter) -> list[int]:
    """The ids of the pages `f` admits."""
    where, args = f.sql()
    return [r[0] for r in store.db.execute(f"SELECT id FROM pages WHERE {where}", args)]


def recent_pages(store: Store, f: PageFilter, limit: int) -> list[PageRecord]:
    """The pages `f` admits, the most recently read first."""
    where, args = f.sql()
    ids = [r[0] for r in store.db.execute(
        f"SELECT id FROM pages WHERE {where} ORDER BY last_visit DESC, id DESC LIMIT ?",
        [*args, int(limit)])]
    pages = store.pages_by_ids(ids)
    return [pages[i] for i in ids if i in pages]


def tantivy_clauses(f: PageFilter, schema: tantivy.Schema) -> list[tuple[tantivy.Occur,
                                                                        tantivy.Query]]:
    """`f` as clauses of a tantivy boolean query over derived/text_index.py's fields (`domain`
    holds each suffix of a page's site, `visited` its last visit in whole seconds)."""
    def site(s: str) -> tantivy.Query:
        return tantivy.Query.term_query(schema, "domain", s)

    must, out = tantivy.Occur.Must, []
    if f.domain:
        out.append((must, site(f.domain)))
    if f.sites:
        out.append((must, tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, site(s)) for s in f.sites])))
    out += [(tantivy.Occur.MustNot, site(s)) for s in f.not_sites]
    if f.since is not None or f.until is not None:
        # Bounds round inwards, so a page just outside a span (a scope's time window) is
        # never in it (at worst one a second inside is left out).
        out.append((must, tantivy.Query.range_query(
            schema, "visited", tantivy.FieldType.Integer,
            math.ceil(f.since) if f.since is not None else None,
            math.floor(f.until) - 1 if f.until is not None else None)))
    return out
