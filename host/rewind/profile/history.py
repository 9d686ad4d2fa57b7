"""The browser's history imported as "visited, not read" pages (a part of the engine).

Each visit goes through the same gate as a page (the person's rules, the sensitive-page
policy, a forget mark, the retention limit), the titles of those that pass checked in one
batch; new pages are found by title and address at once (their vectors come later, from the
embedding job), known pages' visits merged; all of it in one write.
This module must never store a visit the gate refused, nor any text but a title.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..capture import visits
from ..errors import RewindError

if TYPE_CHECKING:
    from ..capture.gate import Gate
    from ..config import Settings
    from ..index.store.store import Store
    from .audit import AuditLog
    from .forget_marks import ForgetMarks
    from .stores import Writer


def import_visits(items: list[visits.VisitInput], gate: Gate, settings: Settings,
                  marks: ForgetMarks, writer: Writer, after_write: Callable[[Store], None],
                  audit: AuditLog) -> dict:
    """The browser's history as "visited, not read" pages, in one write: each visit
    through the same gate as a page (the person's rules, the sensitive-page policy, a
    forget), new pages found by title and address at once (their vectors come from
    the embedding job), known pages' visits merged. Says what it did, per reason, and
    which of these pages still wait for their text (`pending`)."""
    now = time.time()
    report: dict = {"imported": 0, "updated": 0, "unchanged": 0, "skipped": {}}
    pending: dict[str, float] = {}  # url -> last visit, once each
    max_age = settings.retention_max_age_days * 86400
    reasons: list[str] = []
    titled: list[visits.Visit] = []  # past the address rules: their titles are checked
    for item in items:
        try:
            v = visits.prepare_visit(item, settings, mask=gate.redact)
        except RewindError:
            reasons.append("not a web address")
            continue
        verdict = ("forgotten" if marks.covers(v.url, v.domain, v.last_visit)
                   else "retention" if max_age > 0 and v.last_visit < now - max_age
                   else gate.screen_url(v.url))
        if verdict is None:
            titled.append(v)
        else:
            reasons.append(verdict if isinstance(verdict, str) else verdict.category)
    ready: list[visits.Visit] = []
    for v, verdict in zip(titled, gate.screen_titles([(v.url, v.title) for v in titled]),
                          strict=True):
        if verdict is None:
            ready.append(v)
        else:
            reasons.append(verdict.category)
    for reason in reasons:
        report["skipped"][reason] = report["skipped"].get(reason, 0) + 1
    with writer.writing() as store:
        with store.transaction():  # one commit for the whole batch
            for v in ready:
                existing = store.page_by_url(v.url)
                record = visits.merged(existing, v, now)
                if visits.waits_for_text(record or existing):
                    pending[v.url] = (record or existing).last_visit
                if record is None:
                    report["unchanged"] += 1
                    continue
                store.upsert_page(record, None if existing else [v.passage], None, None)
                report["updated" if existing else "imported"] += 1
        after_write(store)
    report["pending"] = [{"url": u, "last_visit": t} for u, t in pending.items()]
    audit.write("imported", source=visits.SOURCE, pages=report["imported"],
                updated=report["updated"], skipped=sum(report["skipped"].values()))
    return report

