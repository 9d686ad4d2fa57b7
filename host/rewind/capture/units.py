"""How long a piece of text is, in "words", for every script: what the chunkers measure.

Spaces separate words in most scripts, but not in Chinese, Japanese, Thai, Lao, Khmer or
Myanmar: counted by spaces, a Japanese page is a handful of giant "words". Here a word
between spaces counts one, and a character of a script without spaces counts the share of
a word it carries for an embedding model (measured with multilingual-e5-small's tokenizer,
which sees ~1.3 tokens in an English word, ~1.5 chars a token in Chinese, ~2.8 in
Japanese kana, ~3.5 in Thai): a Han character half a word, a kana a third, a Thai-family
letter a quarter. English counts as it always did, so its limits are unchanged.
Weights are integers in twelfths so that the extension's twin (content/units.js),
which does the same, agrees to the character (tests/data/chunk_units.json holds the cases
both are tested on).
This module must never change the text it measures or cuts: pieces are slices of it.
"""

from __future__ import annotations

import math
import unicodedata

WHOLE = 12  # a word between spaces, in twelfths

# (first, last code point, weight in twelfths) of the scripts written without spaces
_DENSE = (
    (0x3400, 0x4DBF, 6), (0x4E00, 0x9FFF, 6), (0xF900, 0xFAFF, 6),  # Han
    (0x20000, 0x2FFFF, 6),
    (0x3040, 0x30FF, 4), (0x31F0, 0x31FF, 4), (0xFF66, 0xFF9F, 4),  # kana
    (0x0E00, 0x0EFF, 3), (0x1000, 0x109F, 3), (0x1780, 0x17FF, 3),  # Thai, Lao, Myanmar, Khmer
)
# ideographic space, 、。「」… and full-width punctuation (，！？): separators, no weight
_CJK_PUNCT = (0x3000, 0x303F)
_FULL_WIDTH = (0xFF00, 0xFF65)


def weight(ch: str) -> int:
    """Twelfths of a word for one character of a script without spaces; 0 for the rest."""
    cp = ord(ch)
    if cp < 0x0E00:
        return 0
    for first, last, w in _DENSE:
        if first <= cp <= last:
            return w
    return 0


def _separator(ch: str) -> bool:
    cp = ord(ch)
    return (ch.isspace() or _CJK_PUNCT[0] <= cp <= _CJK_PUNCT[1]
            or (_FULL_WIDTH[0] <= cp <= _FULL_WIDTH[1] and not ch.isalnum()))


def _units(text: str):
    """(start, end, twelfths) of each unit: a word between separators, or one character of
    a script without spaces with the combining marks that follow it (Thai vowels and tone
    marks stay on their letter)."""
    start = -1
    last: list[int] | None = None  # the dense unit a combining mark would join
    for i, ch in enumerate(text):
        w = weight(ch)
        if last is not None and unicodedata.category(ch).startswith("M"):
            last[1] = i + 1
            continue
        if last is not None:
            yield tuple(last)
            last = None
        if w or _separator(ch):
            if start >= 0:
                yield start, i, WHOLE
                start = -1
            if w:
                last = [i, i + 1, w]
        elif start < 0:
            start = i
    if last is not None:
        yield tuple(last)
    if start >= 0:
        yield start, len(text), WHOLE


def twelfths(text: str) -> int:
    return sum(w for _s, _e, w in _units(text))


def count_words(text: str) -> int:
    """Words in `text`: spaced words count one, characters of scripts without spaces their
    share (rounded up over the whole text)."""
    return math.ceil(twelfths(text) / WHOLE)


def cut(text: str, max_words: int) -> list[str]:
    """`text` in consecutive pieces of at most `max_words` words each (a single word longer
    than that is a piece of its own), cut where a unit starts: pieces are stripped slices
    that together hold all of the text but its outer whitespace."""
    limit = max(1, max_words) * WHOLE
    pieces: list[str] = []
    start = None
    total = 0
    for s, _e, w in _units(text):
        if start is not None and total + w > limit:
            pieces.append(text[start:s].strip())
            start, total = None, 0
        if start is None:
            start = s
        total += w
    if start is not None:
        pieces.append(text[start:].strip())
    return [p for p in pieces if p]
