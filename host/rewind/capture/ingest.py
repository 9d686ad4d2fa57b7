"""Validate what arrives to be indexed and turn it into store records.

Pages from the browser come with passages; files and `ingest()` calls come as
text and are chunked here. Everything is bounded (URL, title, passage count and
length, document size), personal data is masked (redact.py; `mask`, the person's
choice, on by default, whatever the source: the extension masks before sending too)
and the result is hashed, so the same content twice is recognised.
This module must never write: the engine screens (gate.py), embeds and stores what
it returns.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
import time
from dataclasses import dataclass, field

from ..config import Settings
from ..errors import Code, RewindError
from ..index.store.records import PassageRecord
from . import urls
from .chunker import approx_tokens, chunk_blocks
from .extract import Document, text_document
from .redact import redact


@dataclass
class PassageInput:
    text: str
    position: int = 0
    quality: float = 0.5


@dataclass
class PageInput:
    url: str
    title: str = ""
    passages: list[PassageInput] | None = None  # from the extension's chunker
    text: str | None = None  # or plain text, chunked here
    document: Document | None = None  # or extracted blocks (files)
    visited_at: float | None = None  # epoch seconds; now when missing
    dwell_s: float = 0.0
    source: str = "browser"
    metadata: dict = field(default_factory=dict)
    # False: the text was loaded again from the site for a page imported from the history
    # (visits.py), not read in a tab: it fills in that page's text and counts no visit.
    read: bool = True
    signals: dict | None = None  # what the page says of itself (capture/page_signals.py)


@dataclass
class IndexResult:
    url: str
    page_id: int | None  # None when skipped
    status: str  # new | updated | unchanged | visit | skipped | held
    passages: int
    embedded: bool
    skipped: dict[str, str] | None = None  # why (gate.py's Verdict: category, label, why)

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if k != "skipped"}
        return {**out, **(self.skipped or {})}


@dataclass
class Prepared:
    url: str
    domain: str
    title: str
    passages: list[PassageRecord]
    content_hash: str
    visited_at: float
    dwell_s: float


# C0 and C1 control characters but tab, newline and carriage return: page text never needs
# them, and printed by the CLI an escape sequence would drive the person's terminal.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def clean(text: str, mask: bool = False) -> str:
    # Lone surrogates cannot be stored as UTF-8; control characters have no business in text.
    text = _CONTROLS.sub(" ", text).encode("utf-8", "replace").decode("utf-8").strip()
    return redact(text).text if mask else text


def _number(value: object, name: str, *, minimum: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RewindError(Code.BAD_REQUEST, f"{name} must be a number.")
    if value < minimum:
        raise RewindError(Code.BAD_REQUEST, f"{name} must be >= {minimum}.")
    return float(value)


def content_hash(title: str, passages: list[PassageRecord]) -> str:
    h = hashlib.sha256(title.encode())
    for p in passages:
        h.update(b"\x1f")
        h.update(p.text.encode())
    return h.hexdigest()


def prepare(page: PageInput, settings: Settings, *, max_tokens: int = 256,
            count_tokens=approx_tokens, mask: bool = True) -> Prepared:
    """Check and normalise `page`; chunk its text if it has no passages yet."""
    url = urls.normalize(page.url, settings.max_url_chars)
    title = clean(page.title or "", mask)[: settings.max_title_chars]
    visited = time.time() if page.visited_at is None else _number(page.visited_at, "visited_at")
    dwell = _number(page.dwell_s or 0.0, "dwell_s")

    passages: list[PassageRecord] = []
    if page.passages is not None:
        if len(page.passages) > settings.max_passages_per_page:  # the title passage included
            raise RewindError(
                Code.TOO_LARGE,
                f"{len(page.passages)} passages; a page may send at most "
                f"{settings.max_passages_per_page}, its title included.")
        offset = 0
        for i, p in enumerate(page.passages):
            text = clean(p.text, mask)[: settings.max_passage_chars]
            if not text:
                continue
            q = min(1.0, max(0.0, _number(p.quality, "quality")))
            passages.append(PassageRecord(text, int(p.position) if p.position is not None else i,
                                          (offset, offset + len(text)), q, text == title))
            offset += len(text) + 2
    else:
        doc = page.document
        if doc is None:
            if page.text is None:
                raise RewindError(Code.BAD_REQUEST, "A page needs passages or text.")
            if len(page.text.encode("utf-8", "replace")) > settings.max_document_bytes:
                raise RewindError(
                    Code.TOO_LARGE,
                    f"The text is over {settings.max_document_bytes / 1e6:.0f} MB.",
                    "Split it into smaller documents.")
            doc = text_document(clean(page.text), title)
        title = title or clean(doc.title, mask)[: settings.max_title_chars]
        blocks = doc.blocks
        if mask:  # before chunking, so the passages' spans are spans of the masked text
            blocks = [dataclasses.replace(b, text=redact(b.text).text) for b in blocks]
        _page_text, chunks = chunk_blocks(
            blocks, settings, max_tokens=max_tokens, count_tokens=count_tokens,
            max_passages=settings.max_passages_per_document)
        if title:
            passages.append(PassageRecord(title, -1, (0, 0), 0.6, True))
        passages += [PassageRecord(c.text, c.position, c.span, c.quality) for c in chunks]
    if not any(not p.is_title for p in passages):
        raise RewindError(
            Code.BAD_INPUT, f"{url} has no readable text (passages of at least "
            f"{settings.min_passage_words} words).", "Nothing was stored.")
    return Prepared(url, urls.domain(url), title, passages, content_hash(title, passages),
                    visited, dwell)
