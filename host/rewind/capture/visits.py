"""Visits from the browser's history, ready to be kept as "visited, not read" pages.

The extension reads the history span the person chose (chrome.history) and sends each
address once: its title, first and last visit and visit count. A visit is checked and
cleaned as a page is (the one URL canonicaliser, control characters out, personal data
in the title masked) and becomes what the store keeps for a page nobody read in a tab:
its title as its only passage, so the page is found by its title and address at once.
Its text may come later, loaded again from the site by the extension's backfill (an
`index_page` with `read: false`), through the same gate as every page.
This module must never store or fetch anything, and never decide what may be kept: the
capture gate does, before the engine stores a visit.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
import urllib.parse
from dataclasses import dataclass

from ..config import Settings
from ..errors import Code, RewindError
from ..index.store.records import HISTORY, PageRecord, PassageRecord
from . import urls
from .ingest import clean

SOURCE = HISTORY  # pages.source of a page imported from the history, not read in a tab

@dataclass(frozen=True)
class VisitInput:
    url: str
    title: str
    first_visit: float  # epoch seconds
    last_visit: float
    visit_count: int


@dataclass(frozen=True)
class Visit:
    url: str
    domain: str
    title: str
    passage: PassageRecord  # the title, or the address's words when there is none
    content_hash: str
    first_visit: float
    last_visit: float
    visit_count: int


_WORDS = re.compile(r"[^\W_]+")


def address_words(url: str) -> str:
    """A page without a title is found by its address: 'docs.python.org › tutorial › classes'."""
    parts = urllib.parse.urlsplit(url)
    path = [" ".join(_WORDS.findall(urllib.parse.unquote(seg)))
            for seg in parts.path.split("/")]
    return " › ".join([parts.hostname or "", *[p for p in path if p]])


def _time(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
            or value < 0:
        raise RewindError(Code.BAD_REQUEST, f"{name} must be a time in seconds since 1970.")
    return float(value)


def prepare_visit(v: VisitInput, settings: Settings, *, mask: bool = True) -> Visit:
    """Check and normalise one visit; RewindError (bad_request) when it cannot be kept."""
    url = urls.normalize(v.url, settings.max_url_chars)
    last = _time(v.last_visit, "last_visit")
    first = min(_time(v.first_visit, "first_visit"), last)
    title = clean(v.title or "", mask)[: settings.max_title_chars]
    text = title or address_words(url)[: settings.max_title_chars]
    passage = PassageRecord(text, -1, (0, 0), 0.6, True)
    digest = hashlib.sha256(b"history\x1f" + text.encode()).hexdigest()
    return Visit(url, urls.domain(url), title, passage, digest, first, last,
                 max(1, int(v.visit_count)))


def merged(existing: PageRecord | None, v: Visit, now: float) -> PageRecord | None:
    """The page to store for visit `v`: a new "visited, not read" page, or `existing` with
    the history's visits folded in (the earliest first visit, the latest last visit, the
    larger count: the browser's count includes the visits Rewind saw). None: nothing new."""
    if existing is None:
        return PageRecord(url=v.url, domain=v.domain, title=v.title,
                          content_hash=v.content_hash, source=SOURCE, first_visit=v.first_visit,
                          last_visit=v.last_visit, visit_count=v.visit_count, dwell_s=0.0,
                          metadata={}, indexed_at=now)
    first = min(existing.first_visit, v.first_visit)
    last = max(existing.last_visit, v.last_visit)
    count = max(existing.visit_count, v.visit_count)
    if (first, last, count) == (existing.first_visit, existing.last_visit,
                                existing.visit_count):
        return None
    return dataclasses.replace(existing, first_visit=first, last_visit=last, visit_count=count)


def waits_for_text(page: PageRecord | None) -> bool:
    """An imported page whose text the backfill has not loaded yet."""
    return page is not None and not page.read and "fetched_at" not in page.metadata
