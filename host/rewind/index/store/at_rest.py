"""Whether a store is encrypted, and its cipher: made once, found again, or said to be lost.

The store's `meta` row `encryption` names its key (`key_id`, not secret) and the key's
`check` (crypto/cipher.py). A writer opening a store that has none, with encryption wanted,
makes a key, keeps it (crypto/keys.py), seals what the store already holds (one transaction,
then VACUUM and a WAL checkpoint so no plaintext copy stays in the file) and records the meta
row last: a crash before that leaves a plaintext store and a spare key, never a store
without its key. A VACUUM that finds the disk full is left to the next writer (noted in
`meta`): the sealing is committed, the store opens. A store whose key cannot be found
or does not match is refused with `key_missing`, saying where the key was looked for and
how to start again (`rewind reset`).
This module must never print a key or open a store it was not given.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from contextlib import suppress
from dataclasses import dataclass

from ... import faults
from ...errors import Code, RewindError
from ..crypto import keys
from ..crypto.cipher import FieldCipher, new_key
from .store import Store

log = logging.getLogger("rewind.at_rest")

META = "encryption"
COMPACT_PENDING = "compact_pending"  # sealed, but the VACUUM after it found no room


@dataclass(frozen=True)
class AtRest:
    """What stats and doctor say about a store's encryption."""

    encrypted: bool
    key_place: str | None  # where the key is, in words
    since: float | None

    def to_dict(self) -> dict:
        return {"encrypted": self.encrypted, "key": self.key_place, "since": self.since}


def describe(store: Store) -> dict | None:
    raw = store.get_meta(META)
    return json.loads(raw) if raw else None


def lost_key(data_dir: str, key_id: str, why: str) -> RewindError:
    return RewindError(
        Code.KEY_MISSING,
        f"The history in {data_dir} is encrypted and {why} (looked in "
        f"{keys.where_it_would_be(key_id)}). Without its key nothing in it can be read.",
        "If the key is in a keyring that is locked, unlock it and try again. Otherwise "
        "start an empty history with `rewind reset` (the unreadable one is moved aside, not "
        "deleted), then `rewind import` a backup if you have one.")


def open_cipher(store: Store, data_dir: str) -> tuple[FieldCipher | None, AtRest]:
    """The cipher of an encrypted store (KEY_MISSING if its key is gone), else None."""
    info = describe(store)
    if info is None:
        return None, AtRest(False, None, None)
    key_id = info["key_id"]
    found = keys.load(key_id)
    if found is None:
        raise lost_key(data_dir, key_id, "its key is gone")
    key, place = found
    try:
        cipher = FieldCipher(key, key_id)
    except ValueError:
        raise lost_key(data_dir, key_id, "its key is damaged") from None
    if cipher.check != info["check"]:
        raise lost_key(data_dir, key_id, "the key found is not its key")
    if not store.readonly and store.get_meta(COMPACT_PENDING):
        compact(store)  # a full disk stopped it last time
    return cipher, AtRest(True, place.describe(), info.get("since"))


def encrypt_store(store: Store) -> FieldCipher:
    """Make a key for `store`, keep it, and seal everything the store holds. The caller
    holds the write lock."""
    key_id = uuid.uuid4().hex
    key = new_key()
    place = keys.create(key_id, key)
    cipher = FieldCipher(key, key_id)
    with store.transaction() as db:
        pages = db.execute("SELECT id, title, metadata FROM pages").fetchall()
        for pid, title, meta in pages:
            db.execute("UPDATE pages SET title=?, metadata=? WHERE id=?",
                       (cipher.seal_text(title, "title"), cipher.seal_text(meta, "metadata"),
                        pid))
        for pid, text in db.execute("SELECT id, text FROM passages").fetchall():
            db.execute("UPDATE passages SET text=? WHERE id=?",
                       (cipher.seal_text(text, "text"), pid))
        for pid, vec in db.execute("SELECT passage_id, vector FROM vectors").fetchall():
            db.execute("UPDATE vectors SET vector=? WHERE passage_id=?",
                       (cipher.seal(vec, "vector"), pid))
        db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                   (META, json.dumps({"key_id": key_id, "check": cipher.check,
                                      "since": time.time()})))
    store.cipher = cipher
    if pages:
        compact(store)  # the plaintext rows' old bytes leave the file
    log.info("store encrypted (%d pages); key in %s", len(pages), place.kind)
    return cipher


def compact(store: Store) -> bool:
    """VACUUM the store (it needs room for a copy of the file). With no room, or a reader in
    the way, it stays to do: noted in `meta`, and the next writer to open the store does it
    (`open_cipher`). The sealing before it is committed whatever happens here."""
    try:
        faults.hit("store_compact")
        store.compact()
    except (RewindError, OSError) as exc:
        log.warning("compaction left for the next writer: %s", exc)
        with suppress(RewindError):
            store.set_meta(COMPACT_PENDING, "1")
        return False
    if store.get_meta(COMPACT_PENDING):
        with store.transaction() as db:
            db.execute("DELETE FROM meta WHERE key=?", (COMPACT_PENDING,))
    return True
