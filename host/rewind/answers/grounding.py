"""Whether a passage holds what a sentence claims, word for word.

A sentence is grounded in a passage when the passage (with its page's title) has every
content word the sentence adds to the question — an inflected form will do ("sorts" meets
"sorting", "executable" meets "executables") — every number, code span and identifier of
the sentence as written, and the same polarity: a "not" the passage lacks near those words,
or a passage's "not" the sentence drops, is a different claim. Meaning (cosines) cannot
tell "use chmod" from "use the installer", or "supports" from "does not support"; words can.
The backing part of the passage (its sentences that hold the most of the claim) is returned
as a span, so a citation can mark and link to it.
This module must never call a sentence grounded that adds a content word, number, code
span or identifier the passage lacks beyond the coverage it is given; it is plain string
work (no model).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import tantivy

from ..index.derived import languages
from ..index.derived.analysis import STEMMERS
from ..text import DENSE, NOT_CLAIMS, STOP_WORDS, numbers, sentence_spans, words

# Words that turn a claim around, in the languages capture reads. "not" and "no" are stop
# words for search; here they decide what a sentence says.
NEGATIONS = frozenset("""
not no never none nothing nobody neither nor cannot without isn't aren't wasn't weren't
don't doesn't didn't won't wouldn't can't couldn't shouldn't hasn't haven't hadn't mustn't
nicht kein keine keinen keinem keiner keines nie niemals nichts ohne
ne pas jamais aucun aucune sans rien personne
nunca ningún ninguna ninguno nada sin
non mai nessuno nessuna niente senza
niet geen nooit zonder
nenhum nenhuma não nem
нет не никогда ни без
""".split())
# Words that frame a claim without making one ("The page says…", "According to the
# documentation…"): a page need not say them.
FRAME = frozenset("""
say says said saying explain explains explained describe describes described mention mentions
mentioned state states stated note notes noted according page article document documentation
section text passage answer question
""".split())
_PREFIX = 6  # two words with this long a common beginning may be one word inflected...
_SLACK = 3  # ... when neither goes on more than this many letters beyond it
_CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")
# file.py, os.path.join, sys.argv[0], sorted(), --flag, -r, camelCase, snake_case, /usr/bin
_IDENTIFIER = re.compile(
    r"(?<![\w/.-])(?:--?[A-Za-z][\w-]*|/?(?:[\w-]+/)+[\w.-]*|[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+"
    r"(?:\(\))?|[A-Za-z_]\w*\(\)|[a-z]+[A-Z]\w*|[A-Za-z]+_\w+)")


@cache
def _stemmer(lang: str) -> tantivy.TextAnalyzer:
    """Snowball's stemmer for a language tantivy has one for (English otherwise)."""
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw())
            .filter(tantivy.Filter.stemmer(STEMMERS.get(lang, "english"))).build())


def language(text: str) -> str:
    lang = languages.detect(text).lang
    return lang if lang in STEMMERS else "en"


def claim_words(text: str, lang: str | None = None) -> set[str]:
    """The words of `text` that carry a claim, stemmed in its language (Snowball);
    negations apart (polarity), the words that only frame a claim left out."""
    lang = lang or language(text)
    stemmer = _stemmer(lang)
    out = set()
    for w in words(text):
        if (w in STOP_WORDS or w in NOT_CLAIMS or w in NEGATIONS or w in FRAME
                or (len(w) < 2 and not w.isdigit())):
            continue
        out.add(w if DENSE.match(w) else (stemmer.analyze(w) or [w])[0])
    return out


# In Japanese and Chinese a negation is part of a word: its verb ending, its prefix.
_CJK_NEGATION = re.compile(r"ない|ません|なかった|ず[、。]|不|没|沒|無|未")


def negated(text: str) -> bool:
    low = text.lower().replace("’", "'")
    return (any(w in NEGATIONS or w.endswith("n't") for w in re.findall(r"[\w']+", low))
            or bool(DENSE.search(text) and _CJK_NEGATION.search(text)))


# A line of code, not prose: a statement keyword first, an assignment, a call ending it.
_CODE_LINE = re.compile(r"^\s*(?:import|from|def|class|return|print|>>>|\$)\s|\w\s*=[^=]|"
                        r"^[\w.]+\(.*\)")


def particulars(sentence: str) -> list[str]:
    """The details a source must have as written: code spans and identifiers, and a line
    of code whole (a source that mentions functools has not said `import functools`)."""
    bare = sentence.strip().rstrip(".")
    if _CODE_LINE.search(bare) and not _CODE_SPAN.search(bare):
        return [bare]
    spans = [m.group(1).strip() for m in _CODE_SPAN.finditer(sentence)]
    plain = _CODE_SPAN.sub(" ", sentence)
    return [s for s in spans if s] + [m.group(0) for m in _IDENTIFIER.finditer(plain)]


def _squash(text: str) -> str:
    """Lower case, one space for any run, none before punctuation (as the checker's
    sentences are written: citations.split_answer)."""
    return re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s+", " ", text)).strip().lower()


def _same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n >= _PREFIX and len(a) - n <= _SLACK and len(b) - n <= _SLACK


class PassageWords:
    """One passage read once: its claim words (and its title's), its numbers, its text for
    particulars, and its sentences' words for finding the part that backs a claim."""

    def __init__(self, text: str, title: str = "") -> None:
        self.text = text
        self.lang = language(f"{title}\n{text}")
        self.flat = _squash(f"{title}\n{text}")
        self.numbers = set(numbers(f"{title} {text}"))
        self.spans = [(s, e) for s, e in sentence_spans(text) if text[s:e].strip()]
        if not self.spans:
            self.spans = [(0, len(text))]
        self.sentence_words = [claim_words(text[s:e], self.lang) for s, e in self.spans]
        self.sentence_numbers = [set(numbers(text[s:e])) for s, e in self.spans]
        self.words = set().union(claim_words(title, self.lang), *self.sentence_words)
        self._by_head: dict[str, list[str]] = {}
        for w in self.words:
            self._by_head.setdefault(w[:_PREFIX], []).append(w)

    def has(self, word: str) -> bool:
        if word in self.words:
            return True
        return any(_same_word(word, w) for w in self._by_head.get(word[:_PREFIX], ()))


@dataclass(frozen=True)
class Grounding:
    coverage: float  # share of the claim's words the passage has (1.0: every one)
    missing: tuple[str, ...]  # its words the passage lacks
    missing_details: tuple[str, ...]  # its numbers, code spans and identifiers it lacks
    same_polarity: bool
    span: tuple[int, int] | None  # the backing sentences, offsets in the passage text

    def holds(self, min_coverage: float) -> bool:
        return (self.same_polarity and not self.missing_details
                and self.coverage >= min_coverage - 1e-9)


WINDOW = 3  # a claim is held by at most this many neighbouring sentences of a passage


def _holds_word(word: str, words: set[str]) -> bool:
    return word in words or any(_same_word(word, w) for w in words)


def _window(claimed: set[str], wanted: Sequence[str], repeated: set[str],
            passage: PassageWords) -> tuple[int, int]:
    """The run of at most WINDOW neighbouring sentences (indices lo..hi) that holds the
    most of the claim's words and numbers, then of the question's words it repeats, the
    shortest such run first."""
    best = ((-1, 0, 0), 0, 0)
    for lo in range(len(passage.spans)):
        words: set[str] = set()
        nums: set[str] = set()
        for hi in range(lo, min(lo + WINDOW, len(passage.spans))):
            words |= passage.sentence_words[hi]
            nums |= passage.sentence_numbers[hi]
            got = sum(_holds_word(w, words) for w in claimed) + sum(n in nums for n in wanted)
            also = sum(_holds_word(w, words) for w in repeated)
            if (got, also, lo - hi) > best[0]:
                best = ((got, also, lo - hi), lo, hi)
    return best[1], best[2]


def ground(sentence: str, asked: set[str], passage: PassageWords) -> Grounding:
    """How `passage` holds `sentence`, given the question's own words `asked` (its
    claim_words: restating the question proves nothing and needs no source). What the
    sentence adds must be found together, in a few neighbouring sentences of the passage
    (WINDOW), not picked from all over it; a sentence that adds no more than one word (or a
    number) to the question must also find the words it repeats of the question there —
    "The ECCN for SQLite is 10" is not held by a line of code with a 10 in it. The sentence
    is read in the passage's language (the checker never holds one to a passage in
    another)."""
    mine = claim_words(sentence, passage.lang)
    claimed = {w for w in mine if w not in asked} or mine
    nums = numbers(sentence)
    repeated = mine & asked
    lo, hi = _window(claimed, nums, repeated, passage)
    near = set().union(*passage.sentence_words[lo:hi + 1])
    near_nums = set().union(*passage.sentence_numbers[lo:hi + 1])
    found = [w for w in claimed if _holds_word(w, near)]
    missing = [w for w in claimed if w not in found]
    details = [n for n in nums if n not in near_nums]
    details += [p for p in particulars(sentence) if _squash(p) not in passage.flat]
    says = [w for w in claimed if not w.isdigit()]
    if len(says) <= 1 and repeated:  # it hangs on the question's words: they must be here
        held = [w for w in repeated if _holds_word(w, near)]
        if 2 * len(held) < len(repeated):
            details += sorted(repeated - set(held))
    coverage = len(found) / len(claimed) if claimed else 0.0
    span = (passage.spans[lo][0], passage.spans[hi][1]) if found or nums else None
    # Polarity: the sentence's "not" must be the passage's, in the part that backs it.
    backing = passage.text[span[0]:span[1]] if span else passage.text
    same = negated(sentence) == negated(backing)
    return Grounding(coverage, tuple(missing), tuple(dict.fromkeys(details)), same, span)
