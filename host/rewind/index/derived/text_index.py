"""BM25 keyword search over passages with tantivy: derived from the store, rebuildable.

One tantivy document per passage: its text (stemmed, stop words removed), the
page's title (boosted), URL words, domain suffixes and last visit time, so that
filters run inside the index. Text is analysed in Python by the page's language
(analysis.py, languages.py: stemmers per language, CJK bigrams) and tantivy indexes those
terms as they come; a query is analysed as every language the index holds (`languages`
file) would analyse it. The first passage of each page carries the page's language, so
the history's language mix is a count (profile/language_mix.py). The index remembers the store
sequence it has applied (`applied_seq`) and catches up from the store's change log.

An encrypted store's index (a `cipher`) holds keyed terms instead of words: each term
the analyzer makes is replaced by its HMAC (crypto/cipher.py), queries are analysed and
hashed the same way, so BM25 counts the same terms and the files hold no word of a page
(phrase queries become term queries; highlights are found in Python). The index records
which terms it holds (`terms` file) and is rebuilt from the store when that changes.

Merges never block a write: a process keeps its tantivy writer between writes (a commit
does not wait for merges; tantivy merges segments on its own threads, by its default log
merge policy) and lets it go after IDLE_RELEASE_S without writes, or after
WRITER_MAX_COMMITS commits under a steady stream of them, waiting for the merges on a
background thread, then opens the folder again (a new handle). A write that finds tantivy's
lock taken meanwhile (by that release, or by another process's writer) leaves the text
index behind the store and says so (`catch_up` returns None); `on_released` — the engine's
catch-up under its write lock — runs after each release and picks up what was left, and
the store stays the truth.
A merge of 8 segments of 40k passages takes ~10 s on this machine: when every write
waited for merges, a page write could wait that long. A merge that runs out of room (a full
disk) fails alone, the segments it merged stay searchable, but its half-written segment
holds the disk's last room until tantivy's next commit: the release deletes it
(`collect_leftovers`), so the store's next write finds the room it had before.

Queries (BM25 over the analysed terms, filters, highlights, the relevance gate's term
statistics) are the `TextQueries` mixin's (text_queries.py).
This module must never be the only copy of anything: the store is the truth.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import tantivy

from ... import faults, heap
from ...config import Settings
from ...errors import LOW_SPACE_BYTES, disk_full, free_bytes
from ..crypto.cipher import FieldCipher
from ..store.store import Store
from . import analysis, integrity, languages
from .text_queries import TextQueries

ANALYZER = "rewind_terms"  # terms arrive analysed (analysis.py): tantivy splits at spaces
IDLE_RELEASE_S = 2.0  # a writer unused this long is let go (its merges finish first)
# A writer kept through a steady stream of commits grows by ~13 KB each (its delete queue
# and segment bookkeeping): one never idle for 2 s held 10 MB more a 1,000 operations of
# the soak. Let go after this many, it gives that memory back (docs/benchmarks.md, soak).
WRITER_MAX_COMMITS = 256
WRITER_HEAP = 64_000_000
GC_HEAP = 15_000_000  # tantivy's least: a writer taken only to delete leftover files

def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_unsigned_field("passage_id", stored=True, indexed=True, fast=True)
    b.add_unsigned_field("page_id", stored=True, indexed=True, fast=True)
    b.add_text_field("text", stored=False, tokenizer_name=ANALYZER)
    b.add_text_field("title", stored=False, tokenizer_name=ANALYZER)
    b.add_text_field("url", stored=False, tokenizer_name="default")
    b.add_text_field("domain", stored=False, tokenizer_name="raw", index_option="basic")
    b.add_integer_field("visited", stored=False, indexed=True, fast=True)
    b.add_text_field("lang", stored=False, tokenizer_name="raw", index_option="basic")
    return b.build()


def domain_suffixes(domain: str) -> list[str]:
    """docs.python.org -> [docs.python.org, python.org]: a filter on a site includes subdomains."""
    labels = domain.split(".")
    return [".".join(labels[i:]) for i in range(max(1, len(labels) - 1))] if domain else []


class TextIndex(TextQueries):
    """tantivy index in `directory`. Writes happen only under the store's writer lock."""

    def __init__(self, directory: Path, settings: Settings, *, readonly: bool = False,
                 cipher: FieldCipher | None = None,
                 on_released: Callable[[], None] | None = None):
        self.dir = directory
        self.settings = settings
        self.schema = _schema()
        self.analysis = analysis.Analysis()  # to read a query's terms as the index reads them
        self.cipher = cipher
        self.boosts = {"title": settings.title_boost, "url": settings.url_boost,
                       "text": settings.text_boost}
        kind = f"keyed {cipher.key_id}" if cipher else "plain"
        self._terms_mode = f"{kind} analysis {analysis.VERSION}"
        self._langs: set[str] | None = None  # the languages of its pages (read when needed)
        self.on_released = on_released
        self._writer: tantivy.IndexWriter | None = None
        self._writer_lock = threading.Lock()  # the writer, between writes and its release
        self._commits = 0  # by the writer in hand
        self._release_timer: threading.Timer | None = None
        self._searcher: tantivy.Searcher | None = None
        if not readonly:
            directory.mkdir(parents=True, exist_ok=True)
        fresh = not (directory / "meta.json").exists()
        if fresh and not readonly:
            self._write_mode()  # first: whoever opens it next knows what terms it holds
        # A damaged index (integrity.py: a file cut short, a checksum that does not match,
        # a segment gone) is never searched: it would answer "no matches" silently.
        self.damage: list[str] = [] if fresh else integrity.problems(directory)
        # Terms of another kind (the store was just encrypted), or damage: rebuilt by the
        # next catch_up, under the write lock, never here where another process may write.
        self._stale = not fresh and (bool(self.damage)
                                     or self._stored_mode() != self._terms_mode)
        try:
            if readonly and self._stale:
                raise ValueError("the index holds terms of another kind")
            self.index = self._opened(reuse=True)
        except ValueError:
            if readonly:  # a reader cannot repair it: searches say so (`unusable`)
                self.damage = self.damage or ["it could not be opened"]
                self.index = self._opened(reuse=None)
                self._loaded_seq = -1
                return
            # A damaged or incompatible index is derived data: start it again, then catch up.
            self.damage = self.damage or ["it could not be opened"]
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir(parents=True, exist_ok=True)
            self.index = self._opened(reuse=False)
            self._write_applied(0)
            self._write_mode()
        self._loaded_seq = -1

    def _opened(self, reuse: bool | None) -> tantivy.Index:
        """The folder as an Index, analyzer registered (reuse False: emptied; None: in memory)."""
        index = (tantivy.Index(self.schema) if reuse is None
                 else tantivy.Index(self.schema, path=str(self.dir), reuse=reuse))
        index.register_tokenizer(ANALYZER, self._index_analyzer())
        return index

    def _index_analyzer(self) -> tantivy.TextAnalyzer:
        """What tantivy runs on the text and title fields: terms (or keyed terms) arrive
        analysed."""
        return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()

    def _field_text(self, text: str, lang: str) -> str:
        terms = self.analysis.terms(text, lang)
        return self.cipher.terms(terms) if self.cipher is not None else " ".join(terms)

    # ---- the languages of its pages -----------------------------------------------------

    @property
    def _langs_file(self) -> Path:
        return self.dir / "languages"

    def languages(self) -> set[str]:
        """The languages of the indexed pages, English always among them."""
        if self._langs is None:
            try:
                self._langs = set(json.loads(self._langs_file.read_text()))
            except (OSError, ValueError):
                self._langs = set()
        return self._langs | {"en"}

    def _add_languages(self, found: set[str]) -> None:
        self.languages()  # read what the file holds
        if not found <= self._langs:
            self._langs = self._langs | found
            tmp = self._langs_file.with_suffix(".tmp")
            tmp.write_text(json.dumps(sorted(self._langs)))
            os.replace(tmp, self._langs_file)

    def _stored_mode(self) -> str:
        try:
            return (self.dir / "terms").read_text().strip()
        except OSError:
            return "plain"  # indexes written before encryption existed

    def _write_mode(self) -> None:
        (self.dir / "terms").write_text(self._terms_mode + "\n")

    # ---- the applied sequence -----------------------------------------------------------

    @property
    def _seq_file(self) -> Path:
        return self.dir / "applied_seq"

    def applied_seq(self) -> int:
        try:
            return int(self._seq_file.read_text())
        except (OSError, ValueError):
            return 0

    def _write_applied(self, seq: int) -> None:
        tmp = self._seq_file.with_suffix(".tmp")
        with open(tmp, "w") as fh:
            fh.write(str(seq))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self._seq_file)

    # ---- writes -------------------------------------------------------------------------

    def catch_up(self, store: Store) -> int | None:
        """Apply every store change after `applied_seq`; returns the pages touched, or None
        when tantivy's writer lock is taken (a release's merges, another process): the
        changes wait for the next catch-up (`on_released` runs one)."""
        if self._stale or not (self.dir / "meta.json").exists():  # deleted under us: again
            self.rebuild(store)
            return store.seq()
        with self._writer_lock:  # two threads catching up apply one after the other
            target = store.seq()
            applied = self.applied_seq()
            if applied >= target:
                return 0
            writer = self._take_writer()
            if writer is None:
                self._schedule_release()  # try again once that writer has gone
                return None
            changed, deleted = store.changes_since(applied)
            self._apply(writer, store, changed, deleted)
            self._commits += 1
            faults.hit("after_text_commit")
            self._write_applied(target)
            worn = self._commits >= WRITER_MAX_COMMITS
        self.index.reload()
        self._searcher = None
        self._loaded_seq = target
        self._schedule_release(now=worn)
        return len(changed) + len(deleted)

    def rebuild(self, store: Store) -> None:
        """Start the index again from nothing and fill it from the store."""
        self.close()
        self.index = None  # drop tantivy's handles before the files go
        self._searcher = None
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.index = self._opened(reuse=False)
        self._write_applied(0)
        self._write_mode()
        self._langs = set()
        self._stale = False
        self.damage = []
        self._loaded_seq = 0
        self.catch_up(store)

    def _take_writer(self) -> tantivy.IndexWriter | None:
        """This process's writer (opened once, kept between writes); None while tantivy's
        lock is held elsewhere. Call with `_writer_lock` held."""
        if self._writer is None:
            try:
                self._writer = self.index.writer(heap_size=WRITER_HEAP, num_threads=1)
            except ValueError:  # LockBusy: a writer is still merging, here or elsewhere
                return None
            self._commits = 0
        return self._writer

    def _apply(self, writer: tantivy.IndexWriter, store: Store, changed: list[int],
               deleted: list[int]) -> None:
        try:
            for page_id in {*changed, *deleted}:
                writer.delete_documents_by_query(
                    tantivy.Query.term_query(self.schema, "page_id", page_id))
            pages = store.pages_by_ids(changed)
            rows = list(store.passages_of(sorted(pages)))
            lang = languages.page_languages(pages, rows)
            self._add_languages(set(lang.values()))
            titles: dict[int, str] = {}  # a page's title field, analysed once for its passages
            for passage_id, page_id, passage in rows:
                page = pages[page_id]
                doc = tantivy.Document()
                doc.add_unsigned("passage_id", passage_id)
                doc.add_unsigned("page_id", page_id)
                doc.add_text("text", self._field_text(passage.text, lang[page_id]))
                first = page_id not in titles
                if first:
                    titles[page_id] = self._field_text(page.title, lang[page_id])
                doc.add_text("title", titles[page_id])
                if first:  # one per page: the language mix counts pages
                    doc.add_text("lang", lang[page_id])
                doc.add_text("url", page.url)
                for suffix in domain_suffixes(page.domain):
                    doc.add_text("domain", suffix)
                doc.add_integer("visited", int(page.last_visit))
                writer.add_document(doc)
            writer.commit()  # merges go on in tantivy's threads: not waited for here
        except BaseException as exc:
            with contextlib.suppress(ValueError):  # a writer tantivy killed cannot roll back
                writer.rollback()
            self._writer = None  # a writer that failed is not kept
            with contextlib.suppress(ValueError):  # its merges end (no room: they fail fast)
                writer.wait_merging_threads()
            del writer
            free = free_bytes(self.dir)
            no_room = isinstance(exc, OSError) and exc.errno == errno.ENOSPC
            if no_room or (isinstance(exc, ValueError) and free is not None
                           and free < LOW_SPACE_BYTES):
                self._collect_leftovers()  # what the commit and its merges left
                raise disk_full(self.dir, f"the keyword index could not take {len(changed)} "
                                "changed pages (they are stored; it catches up later)") from None
            raise

    def _schedule_release(self, now: bool = False) -> None:
        if self._release_timer is not None:
            self._release_timer.cancel()
        self._release_timer = threading.Timer(0.0 if now else IDLE_RELEASE_S, self._release)
        self._release_timer.daemon = True
        self._release_timer.start()

    def _release(self) -> None:
        """Let the idle writer go on this thread, waiting for its merges; then catch up."""
        with self._writer_lock:
            writer, self._writer = self._writer, None
        try:
            if writer is not None:
                writer.wait_merging_threads()  # releases the GIL: searches go on meanwhile
                del writer  # releases tantivy's lock
                with self._writer_lock:
                    if self._writer is None:  # no write took one meanwhile
                        # A new handle: tantivy's Index keeps something of every commit made
                        # through it until dropped (12,000 page writes: 145 → 217 MB with one
                        # handle, no trend with a new one at each release; benchmarks.md).
                        self.index, self._searcher = self._opened(reuse=True), None
                self.collect_leftovers()
                heap.give_back()  # the writer's buffers and merges: tens of MB, now free
            if self.on_released is not None:
                self.on_released()
        except Exception:  # noqa: BLE001 - a background tidy-up: the next write catches up
            return

    def collect_leftovers(self) -> int:
        """Delete what a merge that failed for want of room left half written; returns the
        bytes freed. tantivy deletes such files only at its next commit, which may never
        come: they hold the disk's last room, so the store's next write fails first. Safe
        only with tantivy's writer lock (no merge in progress anywhere): skipped without."""
        with self._writer_lock:
            return self._collect_leftovers()

    def _collect_leftovers(self) -> int:
        """`collect_leftovers` with `_writer_lock` held."""
        if self._writer is not None or not integrity.leftovers(self.dir):
            return 0
        before = free_bytes(self.dir) or 0
        try:
            writer = self.index.writer(heap_size=GC_HEAP, num_threads=1)
        except ValueError:  # another writer: its commits collect them
            return 0
        try:
            writer.garbage_collect_files()
        except ValueError:
            return 0
        finally:
            del writer
        return max(0, (free_bytes(self.dir) or 0) - before)

    def close(self) -> None:
        """Let the writer go, its merges finished (the folder is then settled)."""
        timer, self._release_timer = self._release_timer, None
        if timer is not None:
            timer.cancel()
            if timer.is_alive() and timer is not threading.current_thread():
                timer.join()
        with self._writer_lock:
            writer, self._writer = self._writer, None
        if writer is not None:
            writer.wait_merging_threads()
            del writer
            self.collect_leftovers()  # a process that ends after a failed merge

    # ---- reads --------------------------------------------------------------------------

    def reload(self, store_seq: int | None = None) -> None:
        """Open the latest commit, if there is one we have not seen (reloading costs ms).

        `store_seq`: the store's change sequence, when the caller has it. Loaded at that
        sequence, nothing newer can exist: the applied-sequence file need not be read.
        """
        if store_seq is not None and store_seq == self._loaded_seq:
            return
        seq = self.applied_seq()
        if seq != self._loaded_seq:
            self.index.reload()
            self._searcher = None
            self._langs = None  # another process may have met a new language
            self._loaded_seq = seq

    def searcher(self) -> tantivy.Searcher:
        """The searcher of the loaded commit, reused until the next reload."""
        if self._searcher is None:
            self._searcher = self.index.searcher()
        return self._searcher
