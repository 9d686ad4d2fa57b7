"""One profile's Rewind: the door to its history, and the composition of its parts.

The CLI, the native host and the MCP server all work through `Rewind`. It owns the parts
— the store as connections and its write lock (stores.py), the text index, the active
embedding model and its vectors (embedding.py), the audit log, the forget marks — and
hands each collaborator only what it needs: forgetting and retention (forgetting.py) get
the `Writer`; what stats and doctor read (inspection.py) gets readers; the pages held for
the person's decision (held_pages.py) get a way to index a kept page. The write of a page
is here: embedded before the lock is taken, stored under it, the text index caught up
before the lock is released. Reads use a connection per thread and never wait for a
writer (SQLite WAL). The embedding job (reembedding.py) sits above: it takes an engine.
This module must never parse requests or print: callers present results.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from .. import config
from ..capture import urls, visits
from ..capture.gate import Gate, save_choices
from ..capture.ingest import IndexResult, PageInput, prepare
from ..config import Settings
from ..index.derived.text_index import TextIndex
from ..index.store.page_filter import PageFilter
from ..index.store.records import PageRecord
from ..index.store.store import Store
from ..models.embedder import Embedder
from ..models.pieces import embed_passages
from ..search import Searcher, SearchQuery, SearchResponse, search
from . import embedding_job, history
from .audit import AuditLog
from .embedding import ActiveModel, Vectors
from .forget_marks import ForgetMarks
from .forgetting import Forgetter
from .held_pages import HeldPages
from .holding import HeldPage, Holding
from .inspection import Inspector, TextIndexState, VectorState
from .stores import Stores, Writer

TEXT_DIR = "text_index"


class Rewind:
    def __init__(self, data_dir: Path, settings: Settings | None = None, *,
                 readonly: bool = False, embedder: Embedder | None | str = "auto",
                 model_dir: Path | None = None):
        self.data_dir = Path(data_dir)
        self.settings = settings or Settings()  # set_settings replaces it while running
        self.readonly = readonly
        self.model_dir = model_dir or config.model_dir()
        live = lambda: self.settings  # noqa: E731 - the parts read the settings of now
        self.stores = Stores(self.data_dir, self.settings, readonly=readonly)
        self.audit = AuditLog(self.data_dir, self.settings.audit_log_bytes)
        self.cipher, self.at_rest = self.stores.open_cipher(self.settings.encrypt_at_rest,
                                                            self.audit)
        self.marks = ForgetMarks(self.data_dir, self.cipher.term if self.cipher else None,
                                 self.settings.forget_mark_days)
        self.text_index = TextIndex(self.data_dir / TEXT_DIR, self.settings, readonly=readonly,
                                    cipher=self.cipher, on_released=None if readonly
                                    else lambda: self.writer.text_released())
        self.writer = Writer(self.stores, self.text_index, self.audit)
        self.model = ActiveModel(self.stores, live, self.model_dir, embedder)
        self.vectors = Vectors(self.data_dir, self.model, persist=not readonly,
                               cipher=self.cipher)
        self.forgetting = Forgetter(self.writer, live, self.data_dir, self.audit, self.marks,
                                    self.cipher)
        self.held = HeldPages(self.data_dir, live, self.audit,
                              lambda page: self.index_page(page, check_content=False))
        self.inspection = Inspector(self.stores.reader, live, self.data_dir, self.text_index,
                                    self.model, self.vectors, self.at_rest,
                                    self.forgetting.sizes, lambda: self.holding().count())
        self._gate: Gate | None = None
        # A hybrid search's BM25 half runs here while its dense half scans the codes: both
        # leave the GIL (tantivy, numpy), so on two cores the halves overlap.
        self._keyword_worker = ThreadPoolExecutor(1, thread_name_prefix="rewind-keyword")
        if not readonly:
            self.writer.recover(then=self.forgetting.retain)  # the person's limits, at start
            if self.held.expire() or self.holding().count():
                self.held.arm_timer()

    @classmethod
    def open(cls, data_dir: Path, settings: Settings | None = None, *, writer: bool = True,
             **kwargs) -> Rewind:
        return cls(data_dir, settings, readonly=not writer, **kwargs)

    def close(self) -> None:
        self.held.stop_timer()
        self._keyword_worker.shutdown()
        self.text_index.close()  # its merges finish: the folder is settled
        self.stores.close()

    def __enter__(self) -> Rewind:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the parts, as the callers (and the embedding job) use them ----------------------

    def writing(self) -> AbstractContextManager[Store]:
        """The write lock and the writer store, for one write (control/: import; the job)."""
        return self.writer.writing()

    def reader(self) -> Store:
        """This thread's read-only store (for control/: backups read a snapshot of it)."""
        return self.stores.reader()

    def model_id(self) -> str:
        """The embedding model whose vectors this store holds (or will hold)."""
        return self.model.model_id()

    def embedder(self) -> Embedder | None:
        """The active model's embedder; None (with `embedder_problem`) when unusable."""
        return self.model.embedder()

    def let_go(self, idle_s: float) -> bool:
        """At rest (native/resting.py): when no search has asked for the embedder in
        `idle_s` seconds, let it go with what only searches need — the vector index (an
        encrypted store's snapshot is held in memory) and the cache of sealed terms. The
        next search loads them again. Whether anything was let go."""
        if not self.model.let_go(idle_s):
            return False
        self.vectors.release()  # (after the thread lock: embedding.py's lock order)
        if self.cipher is not None:
            self.cipher.term.cache_clear()
        return True

    @property
    def embedder_problem(self) -> str | None:
        self.model.embedder()
        return self.model.problem

    def forget_url(self, url: str) -> int:
        return self.forgetting.forget_url(url)

    def forget_domain(self, domain: str) -> int:
        return self.forgetting.forget_domain(domain)

    def forget_range(self, since: float | None, until: float | None) -> int:
        return self.forgetting.forget_range(since, until)

    def clear(self) -> int:
        return self.forgetting.clear()

    def apply_retention(self) -> int:
        return self.forgetting.apply_retention()

    def stats(self) -> dict:
        return self.inspection.stats()

    def page_info(self, url: str) -> dict | None:
        return self.inspection.page_info(url)

    def list_pages(self, offset: int = 0, limit: int = 100) -> list[dict]:
        return self.inspection.list_pages(offset, limit)

    def export_pages(self, offset: int = 0, limit: int = 100) -> list[dict]:
        return self.inspection.export_pages(offset, limit)

    def integrity(self) -> list[str]:
        return self.inspection.integrity()

    def text_index_state(self) -> TextIndexState:
        return self.inspection.text_index_state()

    def vector_state(self) -> VectorState | None:
        return self.inspection.vector_state()

    def holding(self) -> Holding:
        return self.held.holding()

    def held_pages(self) -> list[HeldPage]:
        return self.held.pages()

    def decide_held(self, held_id: str, keep: bool) -> IndexResult | None:
        return self.held.decide(held_id, keep)

    # ---- writes ---------------------------------------------------------------------------

    def gate(self) -> Gate:
        """The capture gate of this profile: its rules and (per the settings) the check."""
        with self.stores.thread_lock:
            want_check = self.settings.content_check
            if self._gate is None or (self._gate.check is not None) != want_check:
                self._gate = Gate.open(self.data_dir, want_check)
            return self._gate

    def set_rules(self, rules: dict, redact: bool | None = None) -> None:
        """Keep the person's own recording rules and masking choice (as the extension has
        them) for this profile: every page from any source is screened against them.
        ValueError: bad rules, and nothing changed."""
        with self.stores.thread_lock:
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
        existing = self.stores.writer.page_by_url(prep.url) \
            if self.stores.writer is not None else None
        kept = bool(existing and existing.metadata.get("kept_after_hold"))
        verdict = gate.screen_url(prep.url) or (None if kept or not check_content else
                                                gate.screen_text(
            prep.url, prep.title, [p.text for p in prep.passages if not p.is_title],
            page.signals))
        if verdict is not None and verdict.hold:
            held, verdict = self.held.hold_if_asked(prep, page, verdict)
            if held is not None:
                return held
        if verdict is not None:
            # the site and the rule, not the URL: the log keeps no more than the gate allowed
            self.audit.write("skipped", site=prep.domain, category=verdict.category,
                             rule=verdict.rule, source=page.source)
            return IndexResult(prep.url, None, "skipped", 0, False, verdict.to_dict())
        reader = self.stores.writer
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
        with self.writing() as store:
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
            self.forgetting.after_write(store)
        status = "updated" if existing else "new"
        self.audit.write("updated" if existing else "indexed", url=prep.url,
                         passages=len(prep.passages), source=page.source)
        return IndexResult(prep.url, page_id, status, len(prep.passages), vectors is not None)

    def record_visit(self, url: str, visited_at: float | None, dwell_s: float = 0.0) -> bool:
        """Count a revisit of a known page (no re-embedding); False if the page is unknown."""
        norm = urls.normalize(url, self.settings.max_url_chars)
        when = time.time() if visited_at is None else float(visited_at)
        with self.writing() as store:
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
        """The browser's history as "visited, not read" pages, in one write (history.py)."""
        return history.import_visits(items, self.gate(), self.settings, self.marks,
                                     self.writer, self.forgetting.after_write, self.audit)

    def ingest(self, source_id: str, text: str, metadata: dict | None = None) -> IndexResult:
        """Index any text under an id (a URL, or a bare name): `rewind ingest`, the MCP server."""
        meta = dict(metadata or {})
        url = source_id if "://" in source_id else f"rewind://doc/{source_id}"
        return self.index_page(PageInput(
            url=url, title=str(meta.get("title", "")), text=text,
            visited_at=meta.get("visited_at"), source="ingest", metadata=meta))

    def rebuild_indexes(self) -> None:
        """Rebuild the text index from the store and let the vector snapshots go (derived:
        made again before the next search). `reembedding.reindex` embeds what lacks one."""
        with self.writing() as store:
            self.text_index.rebuild(store)
        self.vectors.drop()  # never inside the write lock (embedding.py says why)

    def switch_embedder(self, emb: Embedder) -> bool:
        """Make `emb`'s model the store's in one transaction, if its vectors cover every
        passage (embedding_job.py); searches use it from then on. The old model's vectors
        are left for the job to delete, its vector snapshot goes now."""
        with self.writing() as store:
            old = self.model_id()
            if not embedding_job.finish(store, emb.model_id):
                return False
            self.model.use(emb)
            self._gate = None
        if old != emb.model_id:  # after the write lock (embedding.py: the lock order)
            self.vectors.drop(old)
        else:
            self.vectors.release()  # (a search rebuilds it for the new model anyway)
        return True

    # ---- reads ----------------------------------------------------------------------------

    @contextmanager
    def searcher(self, scope: PageFilter | None = None) -> Iterator[Searcher]:
        """The current indexes as a Searcher (search, answers and build_context retrieve
        through it), seeing only the pages `scope` admits. Held briefly: it locks the
        vectors."""
        store = self.reader()
        self.text_index.reload(store.seq())
        emb = self.embedder()
        with self.vectors.lock:
            yield Searcher(store, self.text_index, self.vectors.index(),
                           emb.embed_query if emb else None,
                           emb.confidence if emb else None, self.settings,
                           self.model.problem, scope, self._keyword_worker)

    def search(self, query: SearchQuery) -> SearchResponse:
        with self.searcher() as searcher:
            return search(searcher, query)
