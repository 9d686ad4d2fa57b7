"""Words and sentences: the one place that says what a word, a sentence and a stop word are.

BM25's analyzer (index/derived/text_index.py: its stop words), the form of a query
(search/query_form.py), the chunker's cuts (capture/chunker.py), the packing of sources
(answers/packing.py), the citation checker (answers/citations.py) and extractive answers
(answers/extractive.py) all read text through these functions, so they agree on it. How
long text is in every script (a Han character half a word) is capture/units.py's, the twin
of the extension's.
This module must never import anything heavy: it is plain string work.
"""

from __future__ import annotations

import re

# A common English stop-word list: on the Python FAQ set it lifted BM25 MRR@10 from
# .632 to .688 (measured at the start, with tantivy's en_stem); tantivy's own 33-word
# list changed nothing.
# BM25 indexes with it: changing it changes every store's ranking.
STOP_WORDS: frozenset[str] = frozenset("""
a about above after again against all am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't
doing don't down during each few for from further had hadn't has hasn't have haven't having he
he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if
in into is isn't it it's its itself let's me more most mustn't my myself no nor not of off on
once only or other ought our ours ourselves out over own same shan't she she'd she'll she's
should shouldn't so some such than that that's the their theirs them themselves then there
there's these they they'd they'll they're they've this those through to too under until up very
was wasn't we we'd we'll we're we've were weren't what what's when when's where where's which
while who who's whom why why's will with won't would wouldn't you you'd you'll you're you've
your yours yourself yourselves also just may might must shall us s t can will
""".split())

# Words that say nothing about the world in an answer: a sentence made only of these and
# stop words makes no claim a source could back.
NOT_CLAIMS: frozenset[str] = frozenset(
    "source sources page pages history yes ok okay sure now".split())

# Scripts without spaces between words (and Hangul, whose words are long agglutinations):
# their runs are cut into overlapping character pairs, here and in BM25 (index/derived/analysis.py).
DENSE = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002ffff]+")
# A word: a run of a dense script, or of letters and digits of any other script.
_WORD = re.compile(rf"{DENSE.pattern}|(?:(?!{DENSE.pattern})[^\W_])+")
_TERM = re.compile(r"[\w'-]+")
_LETTER_WORD = re.compile(r"[A-Za-z][\w'-]*")
# A capitalised word that opens neither the text nor a sentence in it.
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z][\w'-]*")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# In an answer (and the passages it quotes) a sentence ends at . ! ? followed by space, at
# a CJK full stop 。！？ (no space follows one), or at a line break (a list item, a heading).
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\n+")
# Where a long block of a page is cut (capture/chunker.py): the same ends but line breaks,
# which blocks do not hold (extraction folds whitespace).
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*")


def bigrams(run: str) -> list[str]:
    """A run of a script without spaces -> its overlapping character pairs (a single
    character stays itself)."""
    if len(run) < 2:
        return [run]
    return [run[i:i + 2] for i in range(len(run) - 1)]


def words(text: str) -> list[str]:
    """Lower-case runs of letters and digits, in every script; a run of a script written
    without spaces (Japanese, Chinese, Thai...) as its character pairs: what word overlap
    counts. ASCII text gives what it always gave."""
    out: list[str] = []
    for w in _WORD.findall(text.lower()):
        out += bigrams(w) if DENSE.match(w) else [w]
    return out


def spaced_words(text: str) -> list[str]:
    """Words between spaces, as written: what a length limit on a sentence, a title or a
    query counts (capture/units.py measures text in every script)."""
    return text.split()


def terms(text: str) -> list[str]:
    """Lower-case runs of word characters, apostrophes and hyphens ("rng-pruning", "don't"):
    the words of a query as a person typed them (lib/query-form.js reads them the same way)."""
    return _TERM.findall(text.lower())


def letter_words(text: str) -> list[str]:
    """Words as written (case kept) that start with an ASCII letter, apostrophes and hyphens
    inside: what a heading's capitals and a question's names are judged on."""
    return _LETTER_WORD.findall(text)


def names(text: str) -> list[str]:
    """Capitalised words that open neither `text` nor a sentence in it: what a name looks
    like ("Guido", not "The")."""
    return _NAME.findall(text)


def numbers(text: str) -> list[str]:
    """Numbers as written ("42", "3.14"): a detail a source must contain to back a claim."""
    return _NUMBER.findall(text)


def sentences(text: str) -> list[str]:
    """The sentences of an answer or a passage (SENTENCE_BREAK), stripped, none empty."""
    return [s.strip() for s in SENTENCE_BREAK.split(text) if s and s.strip()]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of a page's block (SENTENCE_END), the separators left
    out; the last one runs to the end of `text` (and may be empty)."""
    spans, pos = [], 0
    for m in SENTENCE_END.finditer(text):
        if m.end() > pos and m.start() >= pos:
            spans.append((pos, m.start()))
            pos = m.end()
    spans.append((pos, len(text)))
    return spans


def stem(w: str) -> str:
    """A light suffix strip, enough for "prunes" to meet "pruning" in word overlap."""
    for suffix in ("ing", "ed", "es", "ly", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def content_words(text: str) -> set[str]:
    """The stemmed words of `text` that can carry a claim (no stop words, no "source")."""
    return {
        stem(w)
        for w in words(text)
        if w not in STOP_WORDS and w not in NOT_CLAIMS and (len(w) > 1 or w.isdigit())
    }
