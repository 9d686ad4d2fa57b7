"""How times and durations read to a person: the CLI's output and the sources' headers
that the answering model sees ("visited 3 days ago, read 4 min").

This module must never import anything heavy: the CLI loads it for every command.
"""

from __future__ import annotations

import time

MINUTE, HOUR, DAY = 60, 3600, 86400


def _plural(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"


def ago(ts: float, now: float | None = None) -> str:
    """'just now', '5 minutes ago', 'yesterday', '10 days ago', '3 weeks ago', ...: the same
    words as the extension's relativeTime (extension/lib/format.js; one table of cases,
    tests/data/ago_cases.json, checks both). A time in the future reads as now."""
    s = max(0.0, (time.time() if now is None else now) - ts)
    if s < MINUTE:
        return "just now"
    if s < HOUR:
        return f"{_plural(int(s // MINUTE), 'minute')} ago"
    if s < DAY:
        return f"{_plural(int(s // HOUR), 'hour')} ago"
    days = int(s // DAY)
    if days == 1:
        return "yesterday"
    if days < 14:
        return f"{days} days ago"
    if days < 60:
        return f"{days // 7} weeks ago"
    if days < 365:
        return f"{days // 30} months ago"
    return "a year ago" if days < 730 else f"{days // 365} years ago"


def duration(seconds: float) -> str:
    """'45 s' up to a minute and a half, then '4 min'."""
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
