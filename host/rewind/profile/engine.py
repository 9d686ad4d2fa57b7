"""One profile's Rewind: the store, the two derived indexes and the embedder, together.

The CLI and the native host both work through `Rewind`. Writes are serialised
by a file lock held only for the length of one write (so the browser's host and
a CLI command can take turns), embedding happens before the lock is taken, and
every write catches the text index up before the lock is released. Reads use a
connection per thread and never wait for a writer (SQLite WAL). Forgetting and retention
(forgetting.py), what stats and doctor read (inspection.py) and the pages held for the
person's decision (held_pages.py) are mixins of `Rewind`.
This module must never parse requests or print: callers present results.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import filelock

from .. import config, faults
from ..capture import urls, visits
from ..capture.gate import Gate, save_choices
from ..capture.ingest import IndexResult, PageInput, prepare
from ..config import Settings
from ..errors import Code, RewindError
from ..index import at_rest, integrity, models, multilingual, vector_file
from ..index.embedder import Embedder
from ..index.page_filter import PageFilter
from ..index.pieces import embed_passages
from ..index.records import PageRecord
from ..index.store import Store
from ..index.text_index import TextIndex
from ..index.vectors import VectorIndex, snapshot_prefix
from ..search import Searcher, SearchQuery, SearchResponse, search
from . import embedding_job
from .audit import AuditLog
from .forget_marks import ForgetMarks
from .forgetting import Forgetting
from .held_pages import HeldPages
from .inspection import Inspection

DB_NAME = "rewind.db"
TEXT_DIR = "text_index"
LOCK_NAME = "write.lock"

class Rewind(Forgetting, Inspection, HeldPages):
    def __init__(self, data_dir: Path, settings: Settings | None = None, *,
                 readonly: bool = False, embedder: Embedder | None | str = "auto",
                 model_dir: Path | None = None):
        self.data_dir = Path(data_dir)
        self.settings = settings or Settings()
        self.readonly = readonly
        self.model_dir = model_dir or config.model_dir()
        self._lock = filelock.FileLock(str(self.data_dir / LOCK_NAME),
                                       timeout=self.settings.writer_lock_timeout_s)
        self._thread_lock = threading.RLock()  # one writing thread at a time in this process
        self._vec_lock = threading.Lock()
        self._local = threading.local()
        self._stores: list[Store] = []
        self.cipher = None
        if not readonly:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        self._writer = None if readonly else Store(
            self.data_dir / DB_NAME, busy_timeout_s=self.settings.busy_timeout_s)
        if readonly:
            self._reader()  # a clear "no store here" before anything else
        self.audit = AuditLog(self.data_dir, self.settings.audit_log_bytes)
        self.cipher, self.at_rest = self._open_cipher()
        self.marks = ForgetMarks(self.data_dir, self.cipher.term if self.cipher else None,
                                 self.settings.forget_mark_days)
        self.text_index = TextIndex(self.data_dir / TEXT_DIR, self.settings, readonly=readonly,
                                    cipher=self.cipher,
                                    on_released=None if readonly else self._text_released)
        self._embedder_arg = embedder
        self._embedder: Embedder | None = None
        self._embedder_problem: str | None = None
        self._embedder_tried = False
        self.embedder_load_s: float | None = None  # how long the model took to load
        self._vectors: VectorIndex | None = None
        self._gate: Gate | None = None
        self.repaired: list[str] = []  # what was found damaged at open and rebuilt
        self.behind: str | None = None  # why the text index could not catch up at open
        if not readonly:
            self._recover()
            if self.expire_held() or self.holding().count():
                self._arm_held_timer()

    @classmethod
    def open(cls, data_dir: Path, settings: Settings | None = None, *, writer: bool = True,
             **kwargs) -> Rewind:
        return cls(data_dir, settings, readonly=not writer, **kwargs)

    def close(self) -> None:
        self.stop_held_timer()
        self.text_index.close()  # its merges finish: the folder is settled
        for store in self._stores:
            store.close()
        if self._writer is not None:
            self._writer.close()

    def __enter__(self) -> Rewind:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- plumbing -------------------------------------------------------------------------

    def _reader(self) -> Store:
        store = getattr(self._local, "store", None)
        if store is None:
            store = Store(self.data_dir / DB_NAME, readonly=True,
                          busy_timeout_s=self.settings.busy_timeout_s, cipher=self.cipher)
            self._local.store = store
            self._stores.append(store)
        return store

    def _acquire(self) -> None:
        try:
            self._lock.acquire()
        except filelock.Timeout:
            raise RewindError(
                Code.STORE_LOCKED,
                f"Another Rewind process has been writing to {self.data_dir} for over "
                f"{self.settings.writer_lock_timeout_s:.0f} s.",
                "Wait for it to finish (or close it) and try again; searches work "
                "meanwhile.") from None

    def _open_cipher(self):
        """The store's cipher (made now, under the write lock, for a writer that wants
        encryption and finds none); KEY_MISSING when an encrypted store's key is gone."""
        store = self._writer or self._reader()
        cipher, info = at_rest.open_cipher(store, str(self.data_dir))
        if cipher is None and self._writer is not None and self.settings.encrypt_at_rest:
            self._acquire()
            try:
                cipher, info = at_rest.open_cipher(store, str(self.data_dir))  # a race lost
                if cipher is None:
                    pages = store.counts()["pages"]
                    at_rest.encrypt_store(store)
                    # plain codes
                    shutil.rmtree(self.data_dir / vector_file.DIRECTORY, ignore_errors=True)
                    cipher, info = at_rest.open_cipher(store, str(self.data_dir))
                    self.audit.write("encrypted", pages=pages, key=info.key_place)
            finally:
                self._lock.release()
        for st in [*self._stores, *([self._writer] if self._writer else [])]:
            st.cipher = cipher
        return cipher, info

    @contextmanager
    def _writing(self) -> Iterator[Store]:
        if self._writer is None:
            raise RewindError(Code.INTERNAL, "this Rewind was opened read-only")
        with self._thread_lock:
            self._acquire()
            try:
                self.text_index.catch_up(self._writer)  # changes another process left behind
                yield self._writer
                faults.hit("after_store_commit")
                self.text_index.catch_up(self._writer)
            finally:
                self._lock.release()

    def writing(self):
        """The write lock and the writer store, for control/ (import): one write each."""
        return self._writing()

    def reader(self) -> Store:
        """This thread's read-only store (for control/: backups read a snapshot of it)."""
        return self._reader()

    def _recover(self, store: Store | None = None) -> None:
        """Bring the text index up to the store (after a crash, or after changes left
        waiting; rebuilt when it was found damaged), if nobody else is writing: a writer
        catches up itself."""
        try:
            self._lock.acquire(timeout=0)
        except filelock.Timeout:
            return
        try:
            damage = list(self.text_index.damage)
            try:
                self.text_index.catch_up(store or self._writer)
            except RewindError as exc:
                if exc.code != Code.DISK_FULL:
                    raise
                self.behind = exc.message  # the store is whole; the index waits for room
                return
            if damage and not self.text_index.damage:
                self.repaired.append(f"the text index ({integrity.summary(damage)})")
                self.audit.write("rebuilt", part="text index", why=integrity.summary(damage))
            if store is None:
                self._retain(self._writer)  # the person's limits, once at start
        finally:
            self._lock.release()

    def _text_released(self) -> None:
        """The text index let its writer go: apply what waited meanwhile, if anything did.
        Runs on the release's thread, with its own connection (never one a writing thread
        is in the middle of); a write in progress in this process catches up itself."""
        if self._writer is None or not self._thread_lock.acquire(blocking=False):
            return
        try:
            store = Store(self.data_dir / DB_NAME, readonly=True,
                          busy_timeout_s=self.settings.busy_timeout_s, cipher=self.cipher)
            try:
                if self.text_index.applied_seq() < store.seq():
                    self._recover(store)
            finally:
                store.close()
        finally:
            self._thread_lock.release()

    def model_id(self) -> str:
        """The embedding model whose vectors this store holds (or will hold)."""
        store = self._writer or self._reader()
        stored = store.get_meta("embedding_model")
        if stored:
            return stored
        spec = models.embedding_spec(self.settings.default_embedding_model)
        return f"{spec.name}@{spec.dim}"

    def embedder(self) -> Embedder | None:
        """The embedder, loaded once (again when another process switched the store's
        model: reembedding.py); None (with `embedder_problem`) when unusable."""
        if self._embedder_tried and not self._model_switched():
            return self._embedder
        with self._thread_lock:
            if self._embedder_tried and not self._model_switched():
                return self._embedder
            self._embedder, self._embedder_problem = None, None
            if self._embedder_arg != "auto":
                self._embedder = self._embedder_arg  # type: ignore[assignment]
                if self._embedder is None:
                    self._embedder_problem = "no embedding model configured"
            else:
                try:
                    name, _, dim = self.model_id().partition("@")
                    spec = models.embedding_spec(name)
                    start = time.perf_counter()
                    self._embedder = multilingual.embedder_class(spec)(
                        spec, self.model_dir, self.settings, dim=int(dim) if dim else None)
                    self.embedder_load_s = time.perf_counter() - start
                except RewindError as exc:
                    self._embedder_problem = str(exc)
            self._embedder_tried = True
            return self._embedder

    def _model_switched(self) -> bool:
        if self._embedder_arg != "auto" or self._embedder is None:
            return False
        stored = self._reader().get_meta("embedding_model")  # this thread's connection
        return stored is not None and stored != self._embedder.model_id

    @property
    def embedder_problem(self) -> str | None:
        self.embedder()
        return self._embedder_problem

    # ---- writes ---------------------------------------------------------------------------

    def gate(self) -> Gate:
        """The capture gate of this profile: its rules and (per the settings) the check."""
        with self._thread_lock:
            want_check = self.settings.content_check
            if self._gate is None or (self._gate.check is not None) != want_check:
                self._gate = Gate.open(self.data_dir, want_check)
            return self._gate

    def set_rules(self, rules: dict, redact: bool | None = None) -> None:
        """Keep the person's own recording rules and masking choice (as the extension has
        them) for this profile: every page from any source is screened against them.
        ValueError: bad rules, and nothing changed."""
        with self._thread_lock:
            save_choices(self.data_dir, rules, redact)
            self._gate = None

    def index_page(self, page: PageInput, *, check_content: bool = True) -> IndexResult:
        """Add or update a page; the same content twice changes nothing. A page the gate
        refuses (the person's rules, the sensitive-page policy, its own text) leaves
        nothing behind: the result says why. A browser page the content check is unsure
        about is held for the person's decision (held_pages.py), sealed, outside the store.
        `check_content`: False for a page the person kept (then and on later visits)."""
        emb = self.embedder()
        gate = self.gate()
        prep = prepare(page, self.settings, mask=gate.redact,
                       max_tokens=emb.max_tokens if emb else 256,
                       **({"count_tokens": emb.count_tokens} if emb else {}))
        # A browser's copy that was on its way when the person forgot it (a file's time is
        # when it changed, not a visit: `rewind index` again after a forget is a new ask).
        forgot = self.marks.covers(prep.url, prep.domain, prep.visited_at) \
            if page.source == "browser" or not page.read else None
        if forgot is not None:
            return IndexResult(prep.url, None, "skipped", 0, False, {
                "category": "forgotten", "label": "Forgotten",
                "why": "you asked Rewind to forget it", "rule": f"forget ({forgot})"})
        existing = self._writer.page_by_url(prep.url) if self._writer is not None else None
        kept = bool(existing and existing.metadata.get("kept_after_hold"))
        verdict = gate.screen_url(prep.url) or (None if kept or not check_content else
                                                gate.screen_text(
            prep.url, prep.title, [p.text for p in prep.passages if not p.is_title],
            page.signals))
        if verdict is not None and verdict.hold:
            held, verdict = self.hold_if_asked(prep, page, verdict)
            if held is not None:
                return held
        if verdict is not None:
            # the site and the rule, not the URL: the log keeps no more than the gate allowed
            self.audit.write("skipped", site=prep.domain, category=verdict.category,
                             rule=verdict.rule, source=page.source)
            return IndexResult(prep.url, None, "skipped", 0, False, verdict.to_dict())
        reader = self._writer
        existing = reader.page_by_url(prep.url)
        if not page.read and (existing is None or existing.source != visits.SOURCE):
            # Text for an imported page that is gone (forgotten, expired) or was read since.
            return IndexResult(prep.url, existing.id if existing else None, "unchanged", 0,
                               False)
        if existing and existing.content_hash == prep.content_hash and (
                existing.source != visits.SOURCE or not page.read):
            if prep.visited_at > existing.last_visit:
                self.record_visit(prep.url, prep.visited_at, prep.dwell_s)
                return IndexResult(prep.url, existing.id, "visit", len(prep.passages), True)
            return IndexResult(prep.url, existing.id, "unchanged", len(prep.passages), True)

        vectors = None
        model_id = None
        if emb is not None:
            vectors = embed_passages(emb, [p.text for p in prep.passages])
            model_id = emb.model_id
        with self._writing() as store:
            existing = store.page_by_url(prep.url)
            new_visit = page.read and (existing is None or prep.visited_at > existing.last_visit)
            record = PageRecord(
                url=prep.url, domain=prep.domain, title=prep.title,
                content_hash=prep.content_hash,
                source=page.source if page.read else visits.SOURCE, metadata=page.metadata,
                first_visit=min(existing.first_visit, prep.visited_at) if existing
                else prep.visited_at,
                last_visit=max(existing.last_visit, prep.visited_at) if existing
                else prep.visited_at,
                visit_count=(existing.visit_count if existing else 0) + int(new_visit),
                dwell_s=(existing.dwell_s if existing else 0.0)
                + (prep.dwell_s if new_visit else 0.0),
                indexed_at=time.time(),
            )
            if kept or not check_content:  # the person kept it: later visits are not held
                record.metadata = {**record.metadata, "kept_after_hold": True}
            record.metadata = {**record.metadata, "last_visit_dwell": prep.dwell_s
                               if new_visit else float((existing.metadata if existing else {})
                                                      .get("last_visit_dwell", 0.0))}
            if not page.read:
                record.metadata["fetched_at"] = record.indexed_at  # its text came later
            if model_id and not store.get_meta("embedding_model"):
                store.set_meta("embedding_model", model_id)
            if model_id and model_id != self.model_id():
                vectors, model_id = None, None  # the store holds another model's vectors
            page_id, _ids = store.upsert_page(record, prep.passages, vectors, model_id)
            if vectors is not None and vectors.truncated:
                embedding_job.add_truncated(store, model_id, vectors.truncated)
            self._after_write(store)
        status = "updated" if existing else "new"
        self.audit.write("updated" if existing else "indexed", url=prep.url,
                         passages=len(prep.passages), source=page.source)
        return IndexResult(prep.url, page_id, status, len(prep.passages), vectors is not None)

    def record_visit(self, url: str, visited_at: float | None, dwell_s: float = 0.0) -> bool:
        """Count a revisit of a known page (no re-embedding); False if the page is unknown."""
        norm = urls.normalize(url, self.settings.max_url_chars)
        when = time.time() if visited_at is None else float(visited_at)
        with self._writing() as store:
            page = store.page_by_url(norm)
            if page is None:
                return False
            dwell = max(0.0, float(dwell_s))
            # `dwell_s` is the visit's reading time so far: the extension reports a visit
            # at the threshold and again, with the same visited_at, when it ends.
            visit_dwell = float(page.metadata.get("last_visit_dwell", 0.0))
            if when < page.last_visit or (when == page.last_visit and dwell <= visit_dwell):
                return True  # an older visit, or a retry of one already counted
            if when == page.last_visit:
                page.dwell_s += dwell - visit_dwell
            else:
                page.visit_count += 1
                page.last_visit = when
                page.dwell_s += dwell
            page.metadata = {**page.metadata, "last_visit_dwell": dwell}
            store.upsert_page(page, None, None, None)
        return True

    def import_visits(self, items: list[visits.VisitInput]) -> dict:
        """The browser's history as "visited, not read" pages, in one write: each visit
        through the same gate as a page (the person's rules, the sensitive-page policy, a
        forget), new pages found by title and address at once (their vectors come from
        the embedding job), known pages' visits merged. Says what it did, per reason, and
        which of these pages still wait for their text (`pending`)."""
        gate = self.gate()
        now = time.time()
        report: dict = {"imported": 0, "updated": 0, "unchanged": 0, "skipped": {}}
        pending: dict[str, float] = {}  # url -> last visit, once each
        max_age = self.settings.retention_max_age_days * 86400
        reasons: list[str] = []
        titled: list[visits.Visit] = []  # past the address rules: their titles are checked
        for item in items:
            try:
                v = visits.prepare_visit(item, self.settings, mask=gate.redact)
            except RewindError:
                reasons.append("not a web address")
                continue
            verdict = ("forgotten" if self.marks.covers(v.url, v.domain, v.last_visit)
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
        with self._writing() as store:
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
            self._after_write(store)
        report["pending"] = [{"url": u, "last_visit": t} for u, t in pending.items()]
        self.audit.write("imported", source=visits.SOURCE, pages=report["imported"],
                         updated=report["updated"], skipped=sum(report["skipped"].values()))
        return report

    def ingest(self, source_id: str, text: str, metadata: dict | None = None) -> IndexResult:
        """Seed 002's contract: index any text under an id (a URL, or a bare name)."""
        meta = dict(metadata or {})
        url = source_id if "://" in source_id else f"rewind://doc/{source_id}"
        return self.index_page(PageInput(
            url=url, title=str(meta.get("title", "")), text=text,
            visited_at=meta.get("visited_at"), source="ingest", metadata=meta))

    def reindex(self, progress: Callable[[dict], None] | None = None) -> dict:
        """Rebuild the derived indexes, then embed what lacks a vector, in this thread (a
        recorded re-embedding job too: reembedding.py; `rewind reindex --model` starts one)."""
        from .reembedding import Reembedder

        with self._writing() as store:
            self.text_index.rebuild(store)
        with self._vec_lock:  # never inside the write lock (switch_embedder says why)
            self._vectors = None
            shutil.rmtree(self.data_dir / vector_file.DIRECTORY, ignore_errors=True)  # derived
        before = self._reader().unembedded(self.model_id())
        Reembedder(self).run(progress)
        return {"embedded_passages": before - self._reader().unembedded(self.model_id()),
                "text_docs": self.text_index.num_docs()}

    def switch_embedder(self, emb: Embedder) -> bool:
        """Make `emb`'s model the store's in one transaction, if its vectors cover every
        passage (index/embedding_job.py); searches use it from then on. The old model's vectors
        are left for the job to delete, its vector snapshot goes now."""
        with self._writing() as store:
            old = self.model_id()
            if not embedding_job.finish(store, emb.model_id):
                return False
            self._embedder, self._embedder_tried, self._embedder_problem = emb, True, None
            self._gate = None
        # After the write lock: a search holds the vector lock while it may load an embedder
        # (which takes the thread lock), so the two are never taken in the other order.
        with self._vec_lock:
            self._vectors = None  # (a search rebuilds it for the new model anyway)
            folder = self.data_dir / vector_file.DIRECTORY
            if old != emb.model_id and folder.is_dir():
                for f in folder.glob(snapshot_prefix(old) + "*"):
                    f.unlink(missing_ok=True)
        return True

    # ---- reads ----------------------------------------------------------------------------

    def _vector_index(self) -> VectorIndex | None:
        emb = self.embedder()
        if emb is None:
            return None
        if self._vectors is None or self._vectors.model_id != emb.model_id:
            # An encrypted store's snapshot is sealed with its key (vector_file.py).
            self._vectors = VectorIndex(
                emb.model_id, emb.dim, self.data_dir / vector_file.DIRECTORY,
                persist=not self.readonly, cipher=self.cipher)
        return self._vectors

    @contextmanager
    def searcher(self, scope: PageFilter | None = None) -> Iterator[Searcher]:
        """The current indexes as a Searcher (search, answers and build_context retrieve
        through it), seeing only the pages `scope` admits. Held briefly: it locks the
        vectors."""
        store = self._reader()
        self.text_index.reload(store.seq())
        emb = self.embedder()
        with self._vec_lock:
            yield Searcher(store, self.text_index, self._vector_index(),
                           emb.embed_query if emb else None,
                           emb.confidence if emb else None, self.settings,
                           self._embedder_problem, scope)

    def search(self, query: SearchQuery) -> SearchResponse:
        with self.searcher() as searcher:
            return search(searcher, query)
