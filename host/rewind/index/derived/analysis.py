"""Words -> index terms, per language: what BM25 counts in a page and in a query.

A page's text is analysed by its language (index/derived/languages.py): tantivy's Snowball
stemmer and stop-word list where tantivy has them (Arabic, Danish, Dutch, English,
Finnish, French, German, Greek, Hungarian, Italian, Norwegian, Portuguese, Romanian,
Russian, Spanish, Swedish, Tamil, Turkish), lower-casing alone otherwise; accents folded
after stemming (the stemmer reads them; a person types "Grosse" for "Größe"). Runs of
scripts written without spaces (Chinese, Japanese, Korean, Thai, Lao, Khmer, Myanmar) become
overlapping character bigrams in every language, the usual segmentation when no
dictionary is at hand; a page whose language is unknown, or that has none (an index of
names, a table of numbers: the detector's `zxx`), is analysed as English. A query's
language is unknown (two words rarely tell), so it is analysed the way each language
present in the index analyses text, and its terms are the union.
English is analysed exactly as before languages were known (its own stop-word list,
folded before stemming), so English rankings do not move. Analysed plainly, a `zxx` page's
stop words were rare terms of high IDF (English pages drop them): every "... in Python?"
matched Python's index pages on "in" (FAQ MRR@10 at a million passages 0.46 against 0.58).
The plain analyzer keeps stop words all the same: a list there would drop real words of the
languages it serves (Polish "most", a bridge). A passage's terms are one tantivy call over
its text: assembling them from each word's cached terms was slower (a Python call a word).
This module must never keep page text: it turns text into terms and forgets it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

import tantivy

from ...text import DENSE, STOP_WORDS, bigrams
from .languages import NOT_LANGUAGES

VERSION = 2  # changes what the index holds: the index is rebuilt when it changes
# 2: pages of no language (`zxx`) analysed as English, not by the plain analyzer

STEMMERS = {
    "ar": "arabic", "da": "danish", "de": "german", "el": "greek", "en": "english",
    "es": "spanish", "fi": "finnish", "fr": "french", "hu": "hungarian", "it": "italian",
    "nl": "dutch", "no": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sv": "swedish", "ta": "tamil", "tr": "turkish",
}
MAX_TERM = 40
# Words whose terms Analysis keeps: the words of the last searches' top passages. ~430 B
# a word (with its key): 20k ~9 MB (100k was 43 MB, which a long soak filled).
WORD_CACHE = 20_000
_WORD = re.compile(r"\w+")


def _build(lang: str) -> tantivy.TextAnalyzer:
    b = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
         .filter(tantivy.Filter.remove_long(MAX_TERM))
         .filter(tantivy.Filter.lowercase()))
    if lang == "en":
        return (b.filter(tantivy.Filter.ascii_fold())
                .filter(tantivy.Filter.custom_stopword(sorted(STOP_WORDS)))
                .filter(tantivy.Filter.stemmer("english"))
                .build())
    if lang in STEMMERS:
        b = (b.filter(tantivy.Filter.stopword(STEMMERS[lang]))
             .filter(tantivy.Filter.stemmer(STEMMERS[lang])))
    return b.filter(tantivy.Filter.ascii_fold()).build()


class Analysis:
    """The analyzers of the languages met so far (built on first use; thread-safe)."""

    def __init__(self) -> None:
        self._analyzers: dict[str, tantivy.TextAnalyzer] = {}
        self._lock = threading.Lock()
        # A word's terms under a set of analyzers, kept across searches: the highlighter
        # and the relevance gate analysed the same words of the same passages every time
        # (a sixth of a search). Dropped whole when full: words, never a page's text.
        self._word_terms: dict[tuple[tuple[str, ...], str], frozenset[str]] = {}

    def key(self, lang: str | None) -> str:
        """The analyzer a language gets: its own with a stemmer, the plain one for another
        language, English's when it is unknown (short pages: what Rewind always did) or
        when the page has none (`zxx`). Each key in the index adds its analysis of every
        query, and the plain one keeps stop words: a single index page of names used to
        add "how", "do" and "i" to the queries of an English history."""
        if lang in STEMMERS:
            return lang
        return "en" if lang is None or lang in NOT_LANGUAGES else "plain"

    def analyzer(self, lang: str | None) -> tantivy.TextAnalyzer:
        k = self.key(lang)
        with self._lock:
            if k not in self._analyzers:
                self._analyzers[k] = _build(k)
            return self._analyzers[k]

    def terms(self, text: str, lang: str | None) -> list[str]:
        """The terms of `text` in order, as the index holds them for a page in `lang`."""
        analyzer = self.analyzer(lang)
        if not DENSE.search(text):
            return analyzer.analyze(text)
        out: list[str] = []
        pos = 0
        for m in DENSE.finditer(text):
            if m.start() > pos:
                out += analyzer.analyze(text[pos:m.start()])
            out += bigrams(m.group())
            pos = m.end()
        if pos < len(text):
            out += analyzer.analyze(text[pos:])
        return out

    def query_terms(self, text: str, langs: Iterable[str]) -> list[str]:
        """The distinct terms of `text` analysed as each of `langs` would be, in order."""
        seen: dict[str, None] = {}
        for lang in sorted({self.key(x) for x in langs}):
            for t in self.terms(text, lang):
                seen.setdefault(t, None)
        return list(seen)

    def phrases(self, text: str, langs: Iterable[str]) -> list[list[str]]:
        """`text` as a phrase in each of `langs` (distinct term sequences)."""
        out: list[list[str]] = []
        for lang in sorted({self.key(x) for x in langs}):
            terms = self.terms(text, lang)
            if terms and terms not in out:
                out.append(terms)
        return out

    def highlighter(self, wanted: set[str], langs: Iterable[str]):
        """A function text -> character ranges of its words whose terms (in any of
        `langs`) are `wanted`, and of its character pairs in scripts without spaces."""
        if not wanted:
            return lambda _text: []
        keys = tuple(sorted({self.key(x) for x in langs}))
        analyzers = [self.analyzer(k) for k in keys]
        known = self._word_terms
        seen: dict[str, bool] = {}  # a word's verdict for this query

        def hit(word: str) -> bool:
            if word not in seen:
                terms = known.get((keys, word))
                if terms is None:
                    if len(known) >= WORD_CACHE:
                        known.clear()
                    terms = known[(keys, word)] = frozenset(
                        t for a in analyzers for t in a.analyze(word))
                seen[word] = not wanted.isdisjoint(terms)
            return seen[word]

        def ranges(text: str) -> list[tuple[int, int]]:
            out: list[tuple[int, int]] = []

            def add(a: int, b: int) -> None:  # neighbouring pairs make one range
                out.append((out.pop()[0], b) if out and out[-1][1] >= a else (a, b))

            pos = 0
            for d in [*DENSE.finditer(text), None]:
                end = d.start() if d else len(text)
                for m in _WORD.finditer(text, pos, end):
                    if hit(m.group()):
                        out.append((m.start(), m.end()))
                if d is None:
                    break
                run = d.group()
                for i in range(max(1, len(run) - 1)):
                    if run[i:i + 2] in wanted:
                        add(d.start() + i, d.start() + min(i + 2, len(run)))
                pos = d.end()
            return out

        return ranges
