"""How times and durations read to a person: the CLI's output and the sources' headers
that the answering model sees ("visited 3 days ago, read 4 min").

This module must never import anything heavy: the CLI loads it for every command.
"""

from __future__ import annotations

import time

_UNITS = (
    ("year", 365 * 86400),
    ("month", 30 * 86400),
    ("week", 7 * 86400),
    ("day", 86400),
    ("hour", 3600),
    ("minute", 60),
)


def ago(ts: float, now: float | None = None) -> str:
    """'3 days ago', 'just now' (a time in the future reads as now)."""
    s = max(0.0, (time.time() if now is None else now) - ts)
    for unit, size in _UNITS:
        if s >= size:
            n = int(s // size)
            return f"{n} {unit}{'s' if n > 1 else ''} ago"
    return "just now"


def duration(seconds: float) -> str:
    """'45 s' up to a minute and a half, then '4 min'."""
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
