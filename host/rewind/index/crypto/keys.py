"""Where a store's key lives: the OS keyring (through `keyring`) where one works, else a
key file readable only by its owner (0600) in Rewind's key folder, outside the data folder
so that a copy of the data folder is not a copy of the key.

Keys are named by the store's key id (kept in the store, not secret). Loading tries the
keyring, then the key file; creating tries the keyring (and reads the key back) before the
file. `$REWIND_KEYRING=off` skips the keyring (tests, and people who prefer the file);
`$REWIND_KEY_DIR` moves the key folder.
This module must never print, log or return a key anywhere but to its caller.
"""

from __future__ import annotations

import base64
import logging
import os
from dataclasses import dataclass
from pathlib import Path

from ... import config

log = logging.getLogger("rewind.keys")

SERVICE = "rewind"


@dataclass(frozen=True)
class KeyPlace:
    kind: str  # "keyring" | "file"
    where: str  # the keyring backend's name, or the key file's path

    def describe(self) -> str:
        if self.kind == "keyring":
            return f"the system keyring ({self.where})"
        return f"the key file {self.where} (readable only by you)"


def key_dir() -> Path:
    env = os.environ.get("REWIND_KEY_DIR")
    return Path(env).expanduser() if env else config.app_data_dir() / "keys"


def _file(key_id: str) -> Path:
    if not key_id.replace("-", "").isalnum():
        raise ValueError(f"bad key id {key_id!r}")
    return key_dir() / f"{key_id}.key"


def _keyring():
    """The keyring module when a real backend answers, else None."""
    if os.environ.get("REWIND_KEYRING", "").lower() in ("off", "0", "no"):
        return None
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
        if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 0) <= 0:
            return None
        return keyring
    except Exception as exc:  # a broken backend is no keyring, never a crash
        log.info("no keyring: %s", exc)
        return None


def _username(key_id: str) -> str:
    return f"store-key-{key_id}"


def load(key_id: str) -> tuple[bytes, KeyPlace] | None:
    """The key and where it was found, or None when it is nowhere."""
    kr = _keyring()
    if kr is not None:
        try:
            value = kr.get_password(SERVICE, _username(key_id))
            if value:
                return base64.b64decode(value), KeyPlace("keyring", type(kr.get_keyring()).__name__)
        except Exception as exc:
            log.warning("keyring read failed: %s", exc)
    path = _file(key_id)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    return base64.b64decode(raw.strip()), KeyPlace("file", str(path))


def create(key_id: str, key: bytes) -> KeyPlace:
    """Keep a new key; where it went."""
    kr = _keyring()
    if kr is not None:
        try:
            encoded = base64.b64encode(key).decode("ascii")
            kr.set_password(SERVICE, _username(key_id), encoded)
            if kr.get_password(SERVICE, _username(key_id)) == encoded:
                return KeyPlace("keyring", type(kr.get_keyring()).__name__)
        except Exception as exc:
            log.warning("keyring write failed, using a key file: %s", exc)
    path = _file(key_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(base64.b64encode(key) + b"\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return KeyPlace("file", str(path))


def delete(key_id: str) -> None:
    """Remove the key wherever it is (after a reset: nothing it opened is left)."""
    kr = _keyring()
    if kr is not None:
        try:
            kr.delete_password(SERVICE, _username(key_id))
        except Exception as exc:
            log.info("keyring delete: %s", exc)
    _file(key_id).unlink(missing_ok=True)


def where_it_would_be(key_id: str) -> str:
    """For a message about a lost key: the places that were looked in."""
    kr = _keyring()
    places = [f"the system keyring ({type(kr.get_keyring()).__name__})"] if kr else []
    return " and ".join([*places, f"the key file {_file(key_id)}"])
