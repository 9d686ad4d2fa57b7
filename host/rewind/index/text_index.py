"""BM25 keyword search over passages with tantivy: derived from the store, rebuildable.

One tantivy document per passage: its text (stemmed, stop words removed), the
page's title (boosted), URL words, domain suffixes and last visit time, so that
filters run inside the index. The index remembers the store sequence it has
applied (`applied_seq`) and catches up from the store's change log.

This module must never be the only copy of anything: the store is the truth.
"""

from __future__ import annotations

import math
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import tantivy

from .. import faults
from ..config import Settings
from ..text import STOP_WORDS
from .store import Store

ANALYZER = "rewind_en"

@dataclass
class KeywordHit:
    passage_id: int
    page_id: int
    score: float


def _analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.custom_stopword(sorted(STOP_WORDS)))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_unsigned_field("passage_id", stored=True, indexed=True, fast=True)
    b.add_unsigned_field("page_id", stored=True, indexed=True, fast=True)
    b.add_text_field("text", stored=False, tokenizer_name=ANALYZER)
    b.add_text_field("title", stored=False, tokenizer_name=ANALYZER)
    b.add_text_field("url", stored=False, tokenizer_name="default")
    b.add_text_field("domain", stored=False, tokenizer_name="raw", index_option="basic")
    b.add_integer_field("visited", stored=False, indexed=True, fast=True)
    return b.build()


def domain_suffixes(domain: str) -> list[str]:
    """docs.python.org -> [docs.python.org, python.org]: a filter on a site includes subdomains."""
    labels = domain.split(".")
    return [".".join(labels[i:]) for i in range(max(1, len(labels) - 1))] if domain else []


class TextIndex:
    """tantivy index in `directory`. Writes happen only under the store's writer lock."""

    def __init__(self, directory: Path, settings: Settings, *, readonly: bool = False):
        self.dir = directory
        self.settings = settings
        self.schema = _schema()
        self._analyzer = _analyzer()  # to read a query's terms as the index reads them
        if not readonly:
            directory.mkdir(parents=True, exist_ok=True)
        try:
            self.index = tantivy.Index(self.schema, path=str(directory), reuse=True)
        except ValueError:
            if readonly:  # a reader cannot repair it: answer from an empty one, doctor tells
                self.index = tantivy.Index(self.schema)
                self.index.register_tokenizer(ANALYZER, _analyzer())
                self._loaded_seq = -1
                return
            # A damaged or incompatible index is derived data: start it again, then catch up.
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir(parents=True, exist_ok=True)
            self.index = tantivy.Index(self.schema, path=str(directory), reuse=False)
            self._write_applied(0)
        self.index.register_tokenizer(ANALYZER, _analyzer())
        self._loaded_seq = -1
        self.boosts = {"title": settings.title_boost, "url": settings.url_boost,
                       "text": settings.text_boost}

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

    def catch_up(self, store: Store) -> int:
        """Apply every store change after `applied_seq`; returns the pages touched."""
        if not (self.dir / "meta.json").exists():  # deleted under us: start it again
            self.rebuild(store)
            return store.seq()
        target = store.seq()
        applied = self.applied_seq()
        if applied >= target:
            return 0
        changed, deleted = store.changes_since(applied)
        self._apply(store, changed, deleted)
        faults.hit("after_text_commit")
        self._write_applied(target)
        self.index.reload()
        self._loaded_seq = target
        return len(changed) + len(deleted)

    def rebuild(self, store: Store) -> None:
        """Start the index again from nothing and fill it from the store."""
        self.index = None  # drop tantivy's handles before the files go
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(self.schema, path=str(self.dir), reuse=False)
        self.index.register_tokenizer(ANALYZER, _analyzer())
        self._write_applied(0)
        self._loaded_seq = 0
        self.catch_up(store)

    def _apply(self, store: Store, changed: list[int], deleted: list[int]) -> None:
        writer = self.index.writer(heap_size=64_000_000, num_threads=1)
        try:
            for page_id in {*changed, *deleted}:
                writer.delete_documents_by_query(
                    tantivy.Query.term_query(self.schema, "page_id", page_id))
            pages = store.pages_by_ids(changed)
            for passage_id, page_id, passage in store.passages_of(sorted(pages)):
                page = pages[page_id]
                doc = tantivy.Document()
                doc.add_unsigned("passage_id", passage_id)
                doc.add_unsigned("page_id", page_id)
                doc.add_text("text", passage.text)
                doc.add_text("title", page.title)
                doc.add_text("url", page.url)
                for suffix in domain_suffixes(page.domain):
                    doc.add_text("domain", suffix)
                doc.add_integer("visited", int(page.last_visit))
                writer.add_document(doc)
            writer.commit()
            # Merges run on tantivy's threads; waiting for them leaves the files settled when
            # this returns (a closed engine's folder can be removed or backed up at once).
            writer.wait_merging_threads()
        except BaseException:
            writer.rollback()
            raise
        finally:
            del writer  # releases tantivy's own writer lock

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
            self._loaded_seq = seq

    def parse(self, text: str) -> tantivy.Query:
        query, _errors = self.index.parse_query_lenient(
            text, ["text", "title", "url"], field_boosts=self.boosts)
        return query

    def search(self, text: str, k: int, *, domain: str | None = None,
               since: float | None = None, until: float | None = None) -> list[KeywordHit]:
        query = self.parse(text)
        clauses = [(tantivy.Occur.Must, query)]
        if domain:
            clauses.append((tantivy.Occur.Must, tantivy.Query.term_query(
                self.schema, "domain", domain.lower().removeprefix("www."))))
        if since is not None or until is not None:
            clauses.append((tantivy.Occur.Must, tantivy.Query.range_query(
                self.schema, "visited", tantivy.FieldType.Integer,
                int(since) if since is not None else None,
                int(until) - 1 if until is not None else None)))
        if len(clauses) > 1:
            query = tantivy.Query.boolean_query(clauses)
        searcher = self.index.searcher()
        hits = []
        for score, address in searcher.search(query, k).hits:
            doc = searcher.doc(address)
            hits.append(KeywordHit(doc["passage_id"][0], doc["page_id"][0], float(score)))
        return hits

    def highlighter(self, query_text: str):
        """A function passage text -> character ranges of the query's terms in it."""
        if not query_text.strip():
            return lambda _text: []
        gen = tantivy.SnippetGenerator.create(
            self.index.searcher(), self.parse(query_text), self.schema, "text")

        def ranges(passage_text: str) -> list[tuple[int, int]]:
            gen.set_max_num_chars(len(passage_text) + 1)
            doc = tantivy.Document()
            doc.add_text("text", passage_text)
            snippet = gen.snippet_from_doc(doc)
            fragment = snippet.fragment()
            offset = max(passage_text.find(fragment), 0) if fragment else 0
            raw = fragment.encode()  # tantivy's ranges are byte offsets into the fragment

            def chars(byte_pos: int) -> int:
                return offset + len(raw[:byte_pos].decode("utf-8", "ignore"))

            return [(chars(r.start), chars(r.end)) for r in snippet.highlighted()]

        return ranges

    def highlights(self, query_text: str, passage_text: str) -> list[tuple[int, int]]:
        """Character ranges of `passage_text` that match the query's terms."""
        return self.highlighter(query_text)(passage_text)

    def passage_ids(self) -> set[int]:
        searcher = self.index.searcher()
        n = searcher.num_docs
        if n == 0:
            return set()
        result = searcher.search(tantivy.Query.all_query(), n)
        return {searcher.doc(addr)["passage_id"][0] for _score, addr in result.hits}

    def num_docs(self) -> int:
        return self.index.searcher().num_docs

    # ---- what the relevance gate reads (search/relevance.py) ---------------------------

    def terms(self, text: str) -> list[str]:
        """The distinct terms BM25 makes of `text` (stop words out, stemmed), in order."""
        return list(dict.fromkeys(self._analyzer.analyze(text)))

    def idf(self, terms: list[str]) -> dict[str, float]:
        """Each term's inverse document frequency over the passages' text (BM25's own)."""
        searcher = self.index.searcher()
        n = max(1, searcher.num_docs)
        out = {}
        for t in terms:
            df = searcher.doc_freq("text", t)
            out[t] = math.log(1 + (n - df + 0.5) / (df + 0.5))
        return out
