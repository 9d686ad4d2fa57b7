"""Private screens on hostnames no rule list holds, in two languages per category, articles
about each topic, and borderline pages — for the content check in a real browser
(tests/browser/test_capture_content.py) and on the host (tests/capture/test_sensitive.py).

Written apart from the labelled pages the check is fitted on (tests/data/sensitive_pages/)
and never fitted on: they stand for "a site and a page the check never saw". Each page has a
made-up word (`mark`) found nowhere else, so a test can ask whether any of it was stored.
Served by demo.sites.NamedSites under their hostnames, like tests/browser/capture_pages.py's
pages (`page()` makes one: only the browser tests need it).

The pages are kept in three modules, gathered here: support.private_screens (`PRIVATE`),
support.article_pages (`ARTICLES`) and support.journal_pages (`JOURNALS`, `BORDERLINE`).
"""

from __future__ import annotations

from typing import Any

from support.article_pages import ARTICLES, Article
from support.journal_pages import BORDERLINE, JOURNALS
from support.private_screens import PRIVATE, Screen

__all__ = ["ARTICLES", "BORDERLINE", "JOURNALS", "PRIVATE", "Article", "Screen", "pages"]


def pages() -> list[Any]:
    """Every page of this module, to be served (capture_pages.Page)."""
    return [p.page() for p in [*PRIVATE, *ARTICLES, *(s for v in JOURNALS.values() for s in v)]]
