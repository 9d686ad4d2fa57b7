"""Searching the keyword index (a mixin of `TextIndex`): a query analysed as every language
of the index would analyse it (keyed under a cipher), BM25 over text and title with URL
words, the page filter inside the query, highlights, and the term statistics the relevance
gate reads.
This module must never write the index: catching up and rebuilding are text_index.py's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import tantivy

from ...errors import Code, RewindError
from ..store.page_filter import PageFilter, tantivy_clauses
from . import integrity

if TYPE_CHECKING:
    from ..crypto.cipher import FieldCipher
    from .analysis import Analysis

_QUOTED = re.compile(r'"([^"]*)"')
# A typed word the query parser reads as one term of the URL field: letters and digits
# alone (anything else may be syntax, or split it into a phrase), not an operator.
_PLAIN_WORD = re.compile(r"[^\W_]+")
_OPERATORS = {"AND", "OR", "NOT", "IN", "TO"}
# The URL field's tokenizer ("default"), as tantivy builds it: what a typed word becomes.
_URL_WORDS = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
              .filter(tantivy.Filter.remove_long(40)).filter(tantivy.Filter.lowercase()).build())


@dataclass
class KeywordHit:
    passage_id: int
    page_id: int
    score: float


class TextQueries:
    """Needs from the index: `index`, `schema`, `analysis`, `cipher`, `boosts`, `damage`,
    `_stale`, `languages()` and `searcher()`."""

    index: tantivy.Index
    schema: tantivy.Schema
    analysis: Analysis
    cipher: FieldCipher | None
    boosts: dict[str, float]
    damage: list[str]
    _stale: bool
    languages: Callable[[], set[str]]
    searcher: Callable[[], tantivy.Searcher]

    def _query_terms(self, text: str) -> tuple[list[str], list[str]]:
        """The query in the terms the index holds: its words analysed as each language of
        the index would analyse them, and each "quoted phrase" as a phrase in each (query
        syntax)."""
        langs = self.languages()
        key = self.cipher.term if self.cipher is not None else (lambda t: t)
        words = [key(t) for t in self.analysis.query_terms(_QUOTED.sub(" ", text), langs)]
        phrases = ['"' + " ".join(key(t) for t in phrase) + '"'
                   for quoted in _QUOTED.findall(text)
                   for phrase in self.analysis.phrases(quoted, langs)]
        return words, phrases

    def parse(self, text: str) -> tantivy.Query:
        """Words in text and title (as terms, see `_query_terms`); URLs as typed.

        One flat OR of term queries where it can be: tantivy ranks that with block-max
        WAND, skipping the postings that cannot reach the top k, where an OR of ORs (a
        term's fields, then the words, then the URL) was scored exhaustively (BM25's tail
        at a million passages). The scores are the same sums."""
        words, phrases = self._query_terms(text)
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for term in words:
            for field in ("text", "title"):
                clauses.append((tantivy.Occur.Should, self._boosted(
                    field, tantivy.Query.term_query(self.schema, field, term))))
        if phrases:
            q, _errors = self.index.parse_query_lenient(
                " ".join(phrases), ["text", "title"], field_boosts=self.boosts)
            clauses.append((tantivy.Occur.Should, q))
        chunks = text.split()
        if all(_PLAIN_WORD.fullmatch(c) and c not in _OPERATORS for c in chunks):
            tokens = dict.fromkeys(t for c in chunks for t in _URL_WORDS.analyze(c))
            for token in tokens:  # what the query parser makes of them: each term once
                clauses.append((tantivy.Occur.Should, self._boosted(
                    "url", tantivy.Query.term_query(self.schema, "url", token))))
        else:  # URL parts, or query syntax: as the parser reads them
            q, _errors = self.index.parse_query_lenient(text, ["url"],
                                                        field_boosts=self.boosts)
            clauses.append((tantivy.Occur.Should, q))
        return tantivy.Query.boolean_query(clauses)

    def _boosted(self, field: str, query: tantivy.Query) -> tantivy.Query:
        boost = self.boosts.get(field, 1.0)
        return query if boost == 1.0 else tantivy.Query.boost_query(query, boost)

    def check_usable(self) -> None:
        """INDEX_DAMAGED when this index must not be searched (a reader found it damaged,
        or holding another key's terms, and cannot rebuild it)."""
        if self._stale or self.damage:
            why = integrity.summary(self.damage) or "it holds terms under another key"
            raise RewindError(
                Code.INDEX_DAMAGED, f"The keyword index cannot be used ({why}).",
                "Rewind rebuilds it from your pages the next time it writes (the browser's "
                "helper, `rewind index`); `rewind reindex` rebuilds it now.")

    def search(self, text: str, k: int, *, domain: str | None = None,
               since: float | None = None, until: float | None = None,
               where: PageFilter | None = None) -> list[KeywordHit]:
        """The k best passages for `text` among the pages `where` (and domain, since,
        until) admit: the filter is part of the query, so no other page is scored."""
        self.check_usable()
        f = PageFilter(domain.lower().removeprefix("www.") if domain else None,
                       since=since, until=until)
        f = f.narrowed(where) if where is not None else f
        query = self.parse(text)
        clauses = [(tantivy.Occur.Must, query), *tantivy_clauses(f, self.schema)]
        if len(clauses) > 1:
            query = tantivy.Query.boolean_query(clauses)
        searcher = self.searcher()
        found = searcher.search(query, k).hits
        addresses = [address for _score, address in found]  # ids from the fast fields:
        passages = searcher.fast_field_values("passage_id", addresses)  # no stored doc read
        pages = searcher.fast_field_values("page_id", addresses)
        return [KeywordHit(passage, page, float(score))
                for (score, _a), passage, page in zip(found, passages, pages, strict=True)]

    def highlighter(self, query_text: str):
        """A function passage text -> character ranges of the words (or, in scripts
        without spaces, the character pairs) that match the query's terms."""
        return self.analysis.highlighter(set(self.terms(query_text)), self.languages())

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
        """The distinct terms BM25 makes of `text` (stop words out, stemmed) as each
        language of the index would, in order."""
        return self.analysis.query_terms(text, self.languages())

    def idf(self, terms: list[str]) -> dict[str, float]:
        """Each term's inverse document frequency over the passages' text (BM25's own)."""
        searcher = self.searcher()
        n = max(1, searcher.num_docs)
        out = {}
        for t in terms:
            df = searcher.doc_freq("text", self.cipher.term(t) if self.cipher else t)
            out[t] = math.log(1 + (n - df + 0.5) / (df + 0.5))
        return out
