"""A profile's store as connections, and the one way to write to it.

`Stores`: the SQLite store of a data folder — the writer's connection (None when opened
read-only), a read-only connection per thread (WAL: readers never wait for a writer), the
write lock (a file lock between processes, held for one write, and a thread lock within
one) and the cipher every connection shares. `Writer`: a write under that lock, the text
index caught up before it (changes another process left) and after it (before the lock
goes), and the text index brought up to the store at open or when it let its own writer go.
A part that writes (forgetting, the embedding job through the engine) is given a `Writer`,
never the engine's state.
This module must never decide what is written: its callers do, inside `writing()`.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import filelock

from .. import faults
from ..config import Settings
from ..errors import Code, RewindError
from ..index.derived import integrity, vector_file
from ..index.store import at_rest
from ..index.store.store import Store

if TYPE_CHECKING:
    from ..index.crypto.cipher import FieldCipher
    from ..index.derived.text_index import TextIndex
    from ..index.store.at_rest import AtRest
    from .audit import AuditLog

DB_NAME = "rewind.db"
LOCK_NAME = "write.lock"


class Stores:
    def __init__(self, data_dir: Path, settings: Settings, *, readonly: bool) -> None:
        self.data_dir = data_dir
        self.busy_timeout_s = settings.busy_timeout_s
        self.lock_timeout_s = settings.writer_lock_timeout_s
        self.file_lock = filelock.FileLock(str(data_dir / LOCK_NAME), timeout=self.lock_timeout_s)
        self.thread_lock = threading.RLock()  # one writing thread at a time in this process
        self._local = threading.local()
        self._readers: list[Store] = []
        self.cipher: FieldCipher | None = None
        if not readonly:
            data_dir.mkdir(parents=True, exist_ok=True)
        self.writer = None if readonly else Store(data_dir / DB_NAME,
                                                  busy_timeout_s=self.busy_timeout_s)
        if readonly:
            self.reader()  # a clear "no store here" before anything else

    def reader(self) -> Store:
        """This thread's read-only connection."""
        store = getattr(self._local, "store", None)
        if store is None:
            store = self.fresh_reader()
            self._local.store = store
            self._readers.append(store)
        return store

    def fresh_reader(self) -> Store:
        """A read-only connection of its own (the caller closes it)."""
        return Store(self.data_dir / DB_NAME, readonly=True,
                     busy_timeout_s=self.busy_timeout_s, cipher=self.cipher)

    def any(self) -> Store:
        """The writer's connection, else this thread's reader: for reading `meta`."""
        return self.writer or self.reader()

    def acquire(self) -> None:
        try:
            self.file_lock.acquire()
        except filelock.Timeout:
            raise RewindError(
                Code.STORE_LOCKED,
                f"Another Rewind process has been writing to {self.data_dir} for over "
                f"{self.lock_timeout_s:.0f} s.",
                "Wait for it to finish (or close it) and try again; searches work "
                "meanwhile.") from None

    @contextmanager
    def locked(self) -> Iterator[Store]:
        """The write lock held, the writer's connection given."""
        if self.writer is None:
            raise RewindError(Code.INTERNAL, "this Rewind was opened read-only")
        with self.thread_lock:
            self.acquire()
            try:
                yield self.writer
            finally:
                self.file_lock.release()

    def open_cipher(self, encrypt: bool, audit: AuditLog) -> tuple[FieldCipher | None, AtRest]:
        """The store's cipher (made now, under the write lock, for a writer that wants
        encryption and finds none); KEY_MISSING when an encrypted store's key is gone."""
        store = self.any()
        cipher, info = at_rest.open_cipher(store, str(self.data_dir))
        if cipher is None and self.writer is not None and encrypt:
            self.acquire()
            try:
                cipher, info = at_rest.open_cipher(store, str(self.data_dir))  # a race lost
                if cipher is None:
                    pages = store.counts()["pages"]
                    at_rest.encrypt_store(store)
                    # plain codes
                    shutil.rmtree(self.data_dir / vector_file.DIRECTORY, ignore_errors=True)
                    cipher, info = at_rest.open_cipher(store, str(self.data_dir))
                    audit.write("encrypted", pages=pages, key=info.key_place)
            finally:
                self.file_lock.release()
        self.cipher = cipher
        for st in [*self._readers, *([self.writer] if self.writer else [])]:
            st.cipher = cipher
        return cipher, info

    def close(self) -> None:
        for store in self._readers:
            store.close()
        if self.writer is not None:
            self.writer.close()


class Writer:
    def __init__(self, stores: Stores, text_index: TextIndex, audit: AuditLog) -> None:
        self.stores = stores
        self.text_index = text_index
        self.audit = audit
        self.repaired: list[str] = []  # what was found damaged at open and rebuilt
        self.behind: str | None = None  # why the text index could not catch up at open

    @contextmanager
    def writing(self) -> Iterator[Store]:
        """One write: the lock and the writer's store; the text index follows."""
        with self.stores.locked() as store:
            self.text_index.catch_up(store)  # changes another process left behind
            yield store
            faults.hit("after_store_commit")
            self.text_index.catch_up(store)

    def reader(self) -> Store:
        return self.stores.reader()

    def recover(self, store: Store | None = None,
                then: Callable[[Store], object] | None = None) -> None:
        """Bring the text index up to the store (after a crash, or after changes left
        waiting; rebuilt when it was found damaged), if nobody else is writing: a writer
        catches up itself. `then`: what runs next under the same lock (retention at open)."""
        try:
            self.stores.file_lock.acquire(timeout=0)
        except filelock.Timeout:
            return
        try:
            damage = list(self.text_index.damage)
            # What a merge left when the disk filled up (a process that ended then): room
            # the store's writes need.
            self.text_index.collect_leftovers()
            try:
                self.text_index.catch_up(store or self.stores.writer)
            except RewindError as exc:
                if exc.code != Code.DISK_FULL:
                    raise
                self.behind = exc.message  # the store is whole; the index waits for room
                return
            if damage and not self.text_index.damage:
                self.repaired.append(f"the text index ({integrity.summary(damage)})")
                self.audit.write("rebuilt", part="text index", why=integrity.summary(damage))
            if then is not None and self.stores.writer is not None:
                then(self.stores.writer)
        finally:
            self.stores.file_lock.release()

    def text_released(self) -> None:
        """The text index let its writer go: apply what waited meanwhile, if anything did.
        Runs on the release's thread, with its own connection (never one a writing thread
        is in the middle of); a write in progress in this process catches up itself."""
        stores = self.stores
        if stores.writer is None or not stores.thread_lock.acquire(blocking=False):
            return
        try:
            store = stores.fresh_reader()
            try:
                if self.text_index.applied_seq() < store.seq():
                    self.recover(store)
            finally:
                store.close()
        finally:
            stores.thread_lock.release()
