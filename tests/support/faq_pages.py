"""The nine real FAQ pages of the Python documentation, indexed into an engine: shared by
the engine's tests (tests/profile/) and the tests of what is built on it (native, browser)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rewind.capture.extract import html_document
from rewind.capture.ingest import PageInput

if TYPE_CHECKING:
    from rewind.profile.engine import Rewind

BASE = "http://docs.python.local/faq/"


def index_faq(eng: Rewind, html_root) -> dict[str, str]:
    """Index the nine real FAQ pages; returns {file stem: url}."""
    urls = {}
    for path in sorted((html_root / "faq").glob("*.html")):
        doc = html_document(path.read_text(), path.stem)
        res = eng.index_page(PageInput(url=BASE + path.name, title=doc.title, document=doc,
                                       visited_at=1_700_000_000.0, dwell_s=60, source="file"))
        urls[path.stem] = res.url
    return urls
