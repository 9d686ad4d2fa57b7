"""Forget marks: what was forgotten and when, so that a copy already on its way (a page
waiting in the extension's queue while `rewind forget` ran in a terminal) is not stored
again. A page visited before a mark that covers it is refused; a later visit is recorded
as usual. Imports are not checked against marks: importing is the person asking.

A mark keeps the kind (page, site, time range, everything), a keyed hash of the URL or
site (the store's term key when it is encrypted, else a random salt of this file: never
the forgotten address itself), the range's times, and when it was made. Marks expire
after `forget_mark_days`. The file is written atomically, under the engine's write lock.
This module must never keep a forgotten URL, site or any page text.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("rewind.forget")

FILE = "forget_marks.json"
DAY = 86400.0


def _suffixes(domain: str) -> list[str]:
    labels = domain.split(".")
    return [".".join(labels[i:]) for i in range(len(labels))] if domain else []


@dataclass
class ForgetMarks:
    data_dir: Path
    keyed: Callable[[str], str] | None  # the store's term hash when it is encrypted
    max_age_days: float = 30.0

    @property
    def path(self) -> Path:
        return self.data_dir / FILE

    def _load(self) -> dict:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(raw, dict) and isinstance(raw.get("marks"), list):
                return raw
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            log.warning("ignoring %s: %s", self.path, exc)
        return {"salt": os.urandom(16).hex(), "marks": []}

    def _hash(self, salt: str, value: str) -> str:
        if self.keyed is not None:
            return self.keyed("forget:" + value)
        return hashlib.sha256(bytes.fromhex(salt) + value.encode("utf-8")).hexdigest()[:32]

    def add(self, kind: str, *, url: str | None = None, site: str | None = None,
            since: float | None = None, until: float | None = None) -> None:
        doc = self._load()
        now = time.time()
        marks = [m for m in doc["marks"] if now - m.get("at", 0) < self.max_age_days * DAY]
        mark: dict = {"kind": kind, "at": now}
        if url is not None:
            mark["h"] = self._hash(doc["salt"], url)
        if site is not None:
            mark["h"] = self._hash(doc["salt"], site)
        if since is not None:
            mark["since"] = since
        if until is not None:
            mark["until"] = until
        doc["marks"] = [*marks, mark]
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def covers(self, url: str, domain: str, visited_at: float) -> str | None:
        """The kind of the mark that forgot this visit of the page, or None."""
        if not self.path.exists():
            return None
        doc = self._load()
        now = time.time()
        hashes: dict[str, str] = {}

        def h(value: str) -> str:
            if value not in hashes:
                hashes[value] = self._hash(doc["salt"], value)
            return hashes[value]

        for m in doc["marks"]:
            at = float(m.get("at", 0))
            if visited_at > at or now - at >= self.max_age_days * DAY:
                continue  # a visit after the forget, or an expired mark
            kind = m.get("kind")
            if kind == "everything" \
                    or (kind == "page" and m.get("h") == h(url)) \
                    or (kind == "site" and any(m.get("h") == h(s) for s in _suffixes(domain))) \
                    or (kind == "time range"
                        and m.get("since", float("-inf")) <= visited_at
                        < m.get("until", float("inf"))):
                return kind
        return None
