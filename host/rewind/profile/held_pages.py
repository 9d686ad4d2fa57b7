"""Pages held for the person's decision: a part of the engine, given the audit log and
a way to index the pages the person keeps.

When the content check is unsure about a page (capture/sensitive.py: between its hold and
refuse thresholds) and the person wants to be asked (`Settings.hold_unsure`), the page goes
to the holding area (holding.py) instead of the store: sealed, listed with its title and why,
kept (indexed as it was read, the content check not asked again) or not kept (wiped) when
the person says so, and wiped unasked when its time is up (`Settings.held_hours`) — at the
next write, listing or host start, and by a timer while the host runs. The audit log gets
each step (held, kept, not kept, expired) with the site and category, never text or a title.
This module must never put a held page into the store unless the person kept it.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from typing import TYPE_CHECKING

from ..capture.ingest import IndexResult, PageInput, PassageInput
from .holding import HeldPage, Holding

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from ..capture.ingest import Prepared
    from ..capture.policy import Verdict
    from ..config import Settings
    from .audit import AuditLog

log = logging.getLogger("rewind.held")


class HeldPages:
    def __init__(self, data_dir: Path, settings: Callable[[], Settings], audit: AuditLog,
                 index: Callable[[PageInput], IndexResult]) -> None:
        """`settings` is read at each use (a person may change them while the host runs);
        `index` stores a kept page as it was read, the content check not asked again."""
        self.data_dir = data_dir
        self.settings = settings
        self.audit = audit
        self.index = index
        self._timer: threading.Timer | None = None

    def holding(self) -> Holding:
        s = self.settings()
        return Holding(self.data_dir, s.held_hours, s.max_held_pages)

    def hold_if_asked(self, prep: Prepared, page: PageInput, verdict: Verdict
                      ) -> tuple[IndexResult | None, Verdict]:
        """An unsure page is held if the person wants to be asked and can be (a browser
        page; the area not full); else it is refused: the verdict without its `hold`."""
        if self.settings().hold_unsure and page.source == "browser":
            held = self.hold(prep, page, verdict)
            if held is not None:
                return held, verdict
        return None, dataclasses.replace(verdict, hold=False)

    def hold(self, prep: Prepared, page: PageInput, verdict: Verdict) -> IndexResult | None:
        """Put a prepared page in the holding area; None when it is full (the caller
        refuses the page instead)."""
        summary = {"url": prep.url, "site": prep.domain, "title": prep.title,
                   "category": verdict.category, "label": verdict.label, "why": verdict.why,
                   "rule": verdict.rule, "source": page.source}
        content = {"passages": [[p.text, p.position, p.quality] for p in prep.passages
                                if not p.is_title],
                   "visited_at": prep.visited_at, "dwell_s": prep.dwell_s,
                   "metadata": page.metadata, "read": page.read}
        held = self.holding().hold(summary, content)
        if held is None:
            return None
        self.audit.write("held", site=prep.domain, category=verdict.category,
                         rule=verdict.rule, source=page.source)
        self.arm_timer()
        return IndexResult(prep.url, None, "held", 0, False, {
            **verdict.to_dict(), "held_id": held.id, "expires_at": held.expires_at})

    def pages(self) -> list[HeldPage]:
        """The pages waiting for a decision (expired ones are wiped first)."""
        self.expire()
        return self.holding().pages()

    def decide(self, held_id: str, keep: bool) -> IndexResult | None:
        """Keep (index it, as read) or not keep (wipe) a held page; NOT_FOUND when it is not
        held. The index result when kept, else None."""
        self.expire()
        held, content = self.holding().take(held_id)
        if not keep:
            self.audit.write("held_dropped", site=held.site, category=held.category,
                             by="person")
            return None
        self.audit.write("held_kept", site=held.site, category=held.category)
        page = PageInput(url=held.url, title=held.title,
                         passages=[PassageInput(t, pos, q) for t, pos, q in content["passages"]],
                         visited_at=content["visited_at"], dwell_s=content["dwell_s"],
                         source=held.source, metadata={**content.get("metadata", {}),
                                                       "kept_after_hold": True},
                         read=content.get("read", True))  # a history page's text stays unread
        return self.index(page)

    def expire(self) -> int:
        """Wipe the held pages whose time is up; how many went."""
        gone = self.holding().expire()
        for held in gone:
            self.audit.write("held_dropped", site=held.site, category=held.category,
                             by="expiry")
        return len(gone)

    def arm_timer(self) -> None:
        """Wipe the next page due even if nothing else happens meanwhile (while the host
        runs; a host that was not running wipes them when it starts)."""
        pages = self.holding().pages()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not pages:
            return
        wait = max(1.0, min(p.expires_at for p in pages) - self.holding().now() + 1.0)
        timer = threading.Timer(wait, self._timer_fired)
        timer.daemon = True
        timer.start()
        self._timer = timer

    def _timer_fired(self) -> None:
        try:
            self.expire()
            self.arm_timer()
        except Exception:  # a timer must never take the host down
            log.exception("wiping expired held pages failed")

    def stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
