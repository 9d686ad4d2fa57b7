"""The audit log: what happened to the history, when — never what a page says.

One JSON object a line in `audit.log` in the profile's data directory: `at` (seconds since
1970), `event` (indexed, updated, skipped, forgotten, expired, exported, imported, reset,
encrypted, rebuilt, mcp, held, held_kept, held_dropped), and only what names the event: the
URL of a page indexed, the site (not the URL) and the category of a page the capture gate
refused or held and what the person decided (held_dropped's `by`: person or expiry), the kind
and the count of what was forgotten, a file's name and counts for an export or import, an AI
tool's call (`mcp`: the client, the tool, what it asked, the URLs it was given;
mcp/activity.py). Page text and titles never go in. Lines are appended with one write each
(O_APPEND: two processes never interleave); at `audit_log_bytes` the file is rotated
(`audit.log.1`, `.2`, the oldest dropped).
Forgetting removes the forgotten pages' lines from every file, so the log does not keep
what the person asked to forget.
This module must never read page text or raise into a write: a log that cannot be
written is logged to host.log and skipped.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("rewind.audit")

FILE = "audit.log"
BACKUPS = 2
EVENTS = ("indexed", "updated", "skipped", "forgotten", "expired", "exported", "imported",
          "reset", "encrypted", "rebuilt", "mcp", "held", "held_kept", "held_dropped")


@dataclass
class AuditLog:
    data_dir: Path
    max_bytes: int = 1_000_000

    @property
    def path(self) -> Path:
        return self.data_dir / FILE

    def files(self) -> list[Path]:
        """Oldest first."""
        older = [self.path.with_name(f"{FILE}.{i}") for i in range(BACKUPS, 0, -1)]
        return [p for p in [*older, self.path] if p.exists()]

    def write(self, event: str, **fields: object) -> None:
        if event not in EVENTS:
            raise ValueError(f"unknown audit event {event!r}")
        entry = {"at": round(time.time(), 3), "event": event,
                 **{k: v for k, v in fields.items() if v is not None}}
        line = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        try:
            self._rotate_if_full()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError as exc:
            log.warning("audit log not written: %s", exc)

    def _rotate_if_full(self) -> None:
        try:
            if self.path.stat().st_size < self.max_bytes:
                return
        except FileNotFoundError:
            return
        for i in range(BACKUPS, 0, -1):
            src = self.path if i == 1 else self.path.with_name(f"{FILE}.{i - 1}")
            if src.exists():
                os.replace(src, self.path.with_name(f"{FILE}.{i}"))

    def entries(self) -> Iterator[dict]:
        """Every entry, oldest first (a damaged line is skipped)."""
        for path in self.files():
            try:
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            for line in lines:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict):
                    yield entry

    def tail(self, n: int = 50, event: str | None = None) -> list[dict]:
        out = [e for e in self.entries() if event is None or e.get("event") == event]
        return out[-n:] if n > 0 else out

    def drop(self, forgotten: Callable[[dict], bool],
             within: Sequence[str] | None = None) -> int:
        """Rewrite every file without the entries `forgotten` matches; how many went.
        `within`: strings one of which every such entry's line holds (as `write` wrote
        it): a line holding none is kept unread. Reading each line's JSON was most of a
        forget's time once the log held ~20,000 lines (bench/perf/soak.py)."""
        removed = 0
        needles = None if within is None else [json.dumps(x, ensure_ascii=False)[1:-1]
                                               for x in within]
        for path in self.files():
            try:
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            keep = []
            for line in lines:
                if needles is not None and not any(x in line for x in needles):
                    keep.append(line)
                    continue
                try:
                    entry = json.loads(line)
                except ValueError:
                    entry = None
                if isinstance(entry, dict) and forgotten(entry):
                    removed += 1
                else:
                    keep.append(line)
            if len(keep) != len(lines):
                tmp = path.with_suffix(".tmp")
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write("".join(x + "\n" for x in keep))
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, path)
        return removed
