"""The holding area: pages the content check was unsure about, sealed until the person says
keep (they are indexed) or don't keep (they are wiped), and wiped unasked once they expire
(`Settings.held_hours`, at most 24).

Each held page is one file `held/<id>.page` in the profile's data folder: the page as the
host prepared it (URL, title, masked passages, the visit) and why it was held, as JSON sealed
with AES-GCM (index/crypto/cipher.py; the page's id is its associated data, so a file renamed to
another id does not open) under the holding area's own key, kept where the store's key is
(index/crypto/keys.py: the keyring, else a key file outside the data folder). The key is made when
a page is first held and deleted when the area is empty again: a wiped page cannot be
opened even from a copy of the disk. Nothing held is in the store, its WAL or the text index
until the person keeps it.
This module must never write page text anywhere but a sealed file, log it, or return a page
that has expired.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import filelock

from .. import clock
from ..errors import Code, RewindError
from ..index.crypto import keys
from ..index.crypto.cipher import FieldCipher, new_key

log = logging.getLogger("rewind.holding")

FOLDER = "held"
KEY_FILE = "key.json"  # the key's id (not secret) and its check
SUFFIX = ".page"


@dataclass(frozen=True)
class HeldPage:
    """What the person sees of a held page (never its passages)."""

    id: str
    url: str
    site: str
    title: str
    category: str
    label: str
    why: str
    rule: str
    source: str
    held_at: float
    expires_at: float

    def to_dict(self) -> dict:
        return asdict(self)


class Holding:
    """The holding area of one profile's data folder."""

    def __init__(self, data_dir: Path, hours: float, max_pages: int,
                 now: Callable[[], float] = clock.now) -> None:
        self.folder = Path(data_dir) / FOLDER
        self.seconds = max(0.0, hours) * 3600.0
        self.max_pages = max_pages
        self.now = now
        self._lock = filelock.FileLock(str(Path(data_dir) / "held.lock"), timeout=10)

    # ---- the key ---------------------------------------------------------------------

    def _cipher(self, create: bool) -> FieldCipher | None:
        path = self.folder / KEY_FILE
        try:
            info = json.loads(path.read_text(encoding="utf-8"))
            found = keys.load(info["key_id"])
            if found is not None:
                cipher = FieldCipher(found[0], info["key_id"])
                if cipher.check == info["check"]:
                    return cipher
            log.warning("the holding area's key is gone: its pages cannot be opened")
        except FileNotFoundError:
            pass
        except (OSError, ValueError, KeyError) as exc:
            log.warning("the holding area's key file is damaged: %s", exc)
        if not create:
            return None
        self._wipe_files()  # pages sealed with a key that is gone are lost anyway
        key_id = f"held-{uuid.uuid4().hex}"
        key = new_key()
        keys.create(key_id, key)
        cipher = FieldCipher(key, key_id)
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)
        _write(path, json.dumps({"key_id": key_id, "check": cipher.check}).encode())
        return cipher

    def _drop_key_if_empty(self) -> None:
        if any(self.folder.glob(f"*{SUFFIX}")):
            return
        path = self.folder / KEY_FILE
        try:
            key_id = json.loads(path.read_text(encoding="utf-8"))["key_id"]
            keys.delete(key_id)
        except (OSError, ValueError, KeyError):
            pass
        path.unlink(missing_ok=True)

    def _wipe_files(self) -> None:
        for f in self.folder.glob(f"*{SUFFIX}"):
            f.unlink(missing_ok=True)

    # ---- pages -------------------------------------------------------------------------

    def hold(self, summary: dict, page: dict) -> HeldPage | None:
        """Seal a page (`page`: what is needed to index it later) with what the person will
        see (`summary`: url, site, title, category, label, why, rule, source); None when the
        area is full (the caller refuses the page: the safe side)."""
        with self._lock:
            self._expire_locked()
            if len(list(self.folder.glob(f"*{SUFFIX}"))) >= self.max_pages:
                return None
            cipher = self._cipher(create=True)
            assert cipher is not None
            now = self.now()
            held = HeldPage(id=secrets.token_hex(8), held_at=now,
                            expires_at=now + self.seconds, **summary)
            blob = cipher.seal(json.dumps({"held": held.to_dict(), "page": page}).encode(),
                               f"held:{held.id}")
            _write(self.folder / f"{held.id}{SUFFIX}", blob)
            return held

    def _open(self, path: Path, cipher: FieldCipher) -> dict | None:
        try:
            return json.loads(cipher.open(path.read_bytes(), f"held:{path.stem}"))
        except (OSError, ValueError, RewindError) as exc:
            log.warning("dropping an unreadable held page: %s", exc)
            path.unlink(missing_ok=True)
            return None

    def _entries(self) -> list[tuple[Path, dict]]:
        cipher = self._cipher(create=False)
        files = sorted(self.folder.glob(f"*{SUFFIX}"))
        if cipher is None:
            for f in files:
                f.unlink(missing_ok=True)  # unreadable without the key: nothing to show
            return []
        return [(f, d) for f in files if (d := self._open(f, cipher)) is not None]

    def _expire_locked(self) -> list[HeldPage]:
        if not self.folder.is_dir():
            return []
        gone = []
        now = self.now()
        for path, data in self._entries():
            held = HeldPage(**data["held"])
            if held.expires_at <= now:
                path.unlink(missing_ok=True)
                gone.append(held)
        self._drop_key_if_empty()
        return gone

    def expire(self) -> list[HeldPage]:
        """Wipe the pages whose time is up; which went."""
        with self._lock:
            return self._expire_locked()

    def pages(self) -> list[HeldPage]:
        """The pages waiting for the person, the first to expire first."""
        with self._lock:
            self._expire_locked()
            if not self.folder.is_dir():
                return []
            return sorted((HeldPage(**d["held"]) for _, d in self._entries()),
                          key=lambda h: h.expires_at)

    def take(self, held_id: str) -> tuple[HeldPage, dict]:
        """Remove a held page and return it with its content (the person kept it);
        NOT_FOUND when it is not (or no longer) held."""
        with self._lock:
            self._expire_locked()
            path = self.folder / f"{_checked(held_id)}{SUFFIX}"
            cipher = self._cipher(create=False)
            data = self._open(path, cipher) if cipher is not None and path.exists() else None
            if data is None:
                raise _not_found(held_id)
            path.unlink(missing_ok=True)
            self._drop_key_if_empty()
            return HeldPage(**data["held"]), data["page"]

    def drop(self, held_id: str) -> HeldPage:
        """Wipe a held page (the person does not keep it); NOT_FOUND when it is not held."""
        held, _page = self.take(held_id)
        return held

    def count(self) -> int:
        return len(list(self.folder.glob(f"*{SUFFIX}"))) if self.folder.is_dir() else 0


def _checked(held_id: str) -> str:
    if not (isinstance(held_id, str) and 1 <= len(held_id) <= 64 and held_id.isalnum()):
        raise RewindError(Code.BAD_REQUEST, f"{held_id!r} is not a held page's id.",
                          "Use an id from list_held.")
    return held_id


def _not_found(held_id: str) -> RewindError:
    return RewindError(Code.NOT_FOUND, f"No page {held_id} is waiting for a decision.",
                       "It was decided already or its time ran out (it was wiped).")


def _write(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
