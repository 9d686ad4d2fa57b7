"""Citations checked against the sources: every sentence of an answer held to the words of
each passage it could come from; its [Source N] corrected, added, or the sentence left out.

A small local model cites the wrong source or none, adds details no page has, and writes
things that are not answers at all: a heading, a page title, a question back, a lead-in
("The answer to your question is:"). A sentence is a claim when it has content words and is
none of those; each claim is held to every passage of every source (grounding.py): the
passage must have every word the sentence adds to the question, its numbers, code and
identifiers as written, and the same "not". Meaning (cosine of embeddings) only ranks the
passages that hold it and keeps out word salad. The passage that backs a sentence is its
`quote`, and the part of it that does its `mark`: the citation points there. What is shown
is only the supported claims; a bare "Yes." or "No." is no claim a page can back.
`Checker` reads the sources once, so a streamed answer is checked a sentence at a time.
Cosines are read through a `Meaning`: the embedding function and its model's cosine scale,
given together, so the thresholds (fitted on the reference scale) hold for any model.
This module must never call a sentence supported that no source backs, and never change
the words of a sentence it keeps (only its citations).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..config import Settings
from ..index.derived import languages
from ..models.cosine_scale import calibrated
from ..models.specs import Confidence
from ..text import SENTENCE_BREAK, content_words, letter_words, spaced_words, words
from .grounding import PassageWords, claim_words, ground
from .packing import Source

if TYPE_CHECKING:
    from ..models.embedder import Embedder

# [Source 1], [Sources 1 and 2], [Source 1, Source 3], [1], (Source 2) — but not a bare
# "(1)": "git-config(1)" is a man page, and its words are the sentence's own.
_NUMS = r"(\d{1,3}(?:\s*(?:,|;|&|and)\s*(?:sources?\s*)?\d{1,3})*)"
CITE = re.compile(rf"\[\s*(?:sources?\s*)?{_NUMS}\s*\]|\(\s*sources?\s*{_NUMS}\s*\)",
                  re.IGNORECASE)
# An answer that says the sources do not hold it: no claim about the world. Said of the
# sources, the context or the speaker — "the packages do not have known bugs" is a claim.
_ABOUT_SOURCES = r"(?:sources?|pages?|context|text|history|passages?|documents?|articles?)"
_NOT_FOUND = re.compile(
    rf"(couldn'?t|could not|can'?t|cannot|unable to) find|not (?:mentioned|found|covered|"
    rf"included|present|contained|given|provided) in (?:the|your|any|these|this) "
    rf"(?:\w+ )?{_ABOUT_SOURCES}|{_ABOUT_SOURCES} (?:do|does)(?:n'?t| not) (?:contain|mention|"
    rf"say|include|have|cover|provide)|\bI (?:don'?t|do not) (?:know|have)|no information "
    rf"(?:about|on|in|is given)",
    re.IGNORECASE,
)
_LEADING_CITES = re.compile(rf"\s*(?:(?:{CITE.pattern})\s*)+", re.IGNORECASE)
_LIST_MARKER = re.compile(r"(?m)(?:^|(?<=[:.!?])[ \t]+)[ \t]*(?:\d{1,2}[.)]|[-*•])(?=\s)")
_CODE_FENCE = re.compile(r"```[\w+-]*")
# Boilerplate in front of an answer: dropped, the claim after it kept.
_LEAD_IN = re.compile(
    r"^\s*(?:(?:the\s+)?(?:short\s+)?answer(?:\s+to\s+(?:your|the|this)\s+question)?(?:\s+is)?"
    r"(?:\s*[:,]|\s+that\b)|(?:according\s+to|based\s+on)\s+(?:the\s+)?(?:provided\s+|given\s+)?"
    r"(?:sources?|pages?|context|text)\s*(?:\[[^\]]*\]\s*)?,|sure[!,.]|certainly[!,.]"
    r"|here\s+(?:is|'s)\s+(?:the|an|my)\s+answer\s*[:.])\s*",
    re.IGNORECASE,
)
_QUESTION_LABEL = re.compile(r"^\s*(?:question|q)\s*\d*\s*[:.]", re.IGNORECASE)
_END = re.compile(r"[.!?。！？][\"'”’)\]]*$")
_SMALL = frozenset("a an and as at but by for from in into of on or the to with".split())


def cited_numbers(text: str) -> list[int]:
    out: list[int] = []
    for m in CITE.finditer(text):
        out += [int(n) for n in re.findall(r"\d+", m.group(1) or m.group(2))]
    return out


def split_answer(text: str) -> list[tuple[str, list[int]]]:
    """(sentence without its citations, numbers it cites), in order.

    A citation placed after the full stop ("It does. [Source 2]") belongs to the
    sentence before it; boilerplate lead-ins are cut off the sentence they open.
    """
    text = _LIST_MARKER.sub("\n", _CODE_FENCE.sub("\n", text))  # "1." is no sentence
    out: list[list[Any]] = []
    for piece in SENTENCE_BREAK.split(text):
        if not piece.strip():
            continue
        lead = _LEADING_CITES.match(piece)  # "[Source 2] Then…": the 2 is the last one's
        if lead and out:
            out[-1][1] += cited_numbers(lead.group())
            piece = piece[lead.end():]
        cites = cited_numbers(piece)
        body = CITE.sub("", piece)
        body = re.sub(r"\s+([.,;:!?])", r"\1", body)
        body = _LEAD_IN.sub("", re.sub(r"\s{2,}", " ", body).strip(), count=1)
        if not words(body):
            if out:
                out[-1][1] += cites
            continue
        out.append([body, cites])
    return [(b, list(dict.fromkeys(c))) for b, c in out]


def with_citations(sentence: str, numbers: Sequence[int]) -> str:
    """'It does [Source 2].': citations go before the sentence's closing punctuation."""
    if not numbers:
        return sentence
    tags = " ".join(f"[Source {n}]" for n in numbers)
    m = re.search(r"[.!?:;]+[\"'”’)]*$", sentence)
    if m:
        return f"{sentence[: m.start()].rstrip()} {tags}{sentence[m.start() :]}"
    return f"{sentence} {tags}."


def fragment_kind(body: str, titles: Sequence[str] = ()) -> str | None:
    """What a piece of an answer is when it is not an answer sentence: "question", "lead_in",
    "title" (a page's title said again), "heading" (a short title-cased line), or None."""
    stripped = body.strip().strip("\"'“”")
    if stripped.endswith("?") or _QUESTION_LABEL.match(stripped):
        return "question"
    if stripped.endswith(":"):
        return "lead_in"
    mine = content_words(stripped)
    for title in titles:
        theirs = content_words(title)
        if mine and theirs and len(mine & theirs) >= 0.8 * len(mine) and len(
                spaced_words(stripped)) <= len(spaced_words(title)) + 4:
            return "title"
    tokens = letter_words(stripped)
    # a line of Latin words (a sentence in Chinese with "Debian" in it is no heading)
    latin = len(tokens) >= 0.8 * len(spaced_words(stripped))
    if 0 < len(tokens) <= 10 and latin and not _END.search(stripped):
        capital = [w for w in tokens if w.lower() not in _SMALL]
        if capital and sum(w[0].isupper() for w in capital) >= 0.75 * len(capital):
            return "heading"
    return None


def is_answer_sentence(body: str, titles: Sequence[str] = ()) -> bool:
    """A sentence that can stand in an answer: a claim, not a fragment of page furniture."""
    return bool(content_words(body)) and fragment_kind(body, titles) is None and not (
        _NOT_FOUND.search(body))


# ---- the citation checker -----------------------------------------------------------------


@dataclass
class SentenceCheck:
    sentence: str
    cited: list[int]  # as the model wrote them
    sources: list[int]  # after checking
    # ok | corrected | added | quoted (a source's own sentence) | unsupported | no_claim |
    # repeat, or a fragment never shown: question | lead_in | title | heading
    status: str
    support: float  # the best passage's share of the sentence's words (1.0: all of them)
    best: int | None  # its source's number
    quote: str | None = None  # the passage that backs the sentence (as packed)
    mark: tuple[int, int] | None = None  # the part of `quote` that backs it
    missing: tuple[str, ...] = ()  # unsupported: what no source has (words, details)

    def to_dict(self) -> dict:
        return {
            "sentence": self.sentence,
            "cited": self.cited,
            "sources": self.sources,
            "status": self.status,
            "support": round(self.support, 3),
            "best": self.best,
            "quote": self.quote,
            "mark": list(self.mark) if self.mark else None,
            "missing": list(self.missing),
        }


SHOWN = ("ok", "corrected", "added", "quoted")


@dataclass
class Checked:
    answer: str
    checks: list[SentenceCheck]
    supported: bool
    unsupported: list[str]


Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Meaning:
    """How the answer reads meaning: `embed` turns texts into unit vectors (an embedder's
    `embed_documents`, or anything standing in for it), and `scale` is the cosine scale of
    the model behind it (the embedder's `confidence`; None: the reference scale). Both are
    given, never recovered from the function, so a wrapped `embed` keeps its calibration
    only by being given it."""

    embed: Embed
    scale: Confidence | None

    @classmethod
    def of(cls, embedder: Embedder | None) -> Meaning | None:
        """An embedder's documents and its scale; None without an embedder."""
        return None if embedder is None else cls(embedder.embed_documents,
                                                 embedder.confidence)

    def reference(self, cosine):
        """Cosines (a float or an array) of this model on the reference scale, MiniLM's,
        which the thresholds of the answer were fitted on (models/cosine_scale.py)."""
        return calibrated(self.scale, cosine)


def _passage_vectors(sources: Sequence[Source], embed: Embed | None
                     ) -> dict[int, np.ndarray]:
    """One row per packed passage of each source: its stored vector, else embedded."""
    out: dict[int, np.ndarray] = {}
    todo: list[tuple[int, str]] = []
    for src in sources:
        vecs = [p.vector for p in src.passages if p.vector is not None]
        if len(vecs) == len(src.passages) == len(src.texts) and vecs:
            out[src.n] = np.vstack(vecs)
        else:
            todo += [(src.n, t) for t in src.texts]
    if todo and embed is not None:
        mat = embed([t for _, t in todo])
        for n in {n for n, _ in todo}:
            out[n] = mat[[i for i, (m, _) in enumerate(todo) if m == n]]
    return out


def language_of(text: str) -> str:
    """The language `text` is written in (index/derived/languages.py), or "und" when too short."""
    return languages.detect(text).lang


def across(a: str, b: str) -> bool:
    """Whether two texts' languages are both known and differ: their words cannot meet."""
    return languages.UNKNOWN not in (a, b) and a != b


@dataclass(frozen=True)
class _Backing:
    """One passage's verdict on one sentence."""

    holds: bool
    coverage: float
    cosine: float
    text: str
    mark: tuple[int, int] | None
    missing: tuple[str, ...]

    @property
    def rank(self) -> tuple[bool, float, float]:
        return self.holds, self.coverage, self.cosine


class Checker:
    """The sources of one answer read once (their words, vectors and languages), so that
    its sentences can be checked one at a time as the model writes them.

    A sentence is backed by a passage when the passage has every word it adds to the
    question (grounding.py: inflection allowed; numbers, code and identifiers as written;
    the same polarity), with `citation_min_coverage` of its words at least, and is not far
    from it in meaning (`citation_min_similarity`). A sentence in another language than
    a source cannot be held to its words, so that source never backs it: the source's own
    sentences are quoted instead (the reader, extractive.py).
    """

    def __init__(self, sources: Sequence[Source], meaning: Meaning | None, settings: Settings,
                 question: str = "") -> None:
        self.sources = list(sources)
        self.meaning = meaning
        self.settings = settings
        self.asked = claim_words(question)
        self.titles = [s.title for s in sources if s.title]
        self._words = {s.n: [PassageWords(t, s.title) for t in s.texts] for s in sources}
        self._vecs = _passage_vectors(sources, meaning.embed) if meaning is not None else {}
        self._lang = {s.n: language_of(f"{s.title}\n" + "\n".join(s.texts)) for s in sources}
        self._asked_lang = language_of(question) if question else languages.UNKNOWN
        self._said: set[frozenset[str]] = set()

    def kind(self, body: str) -> str | None:
        """None for a claim to check; else why it is no claim (fragment_kind, no_claim)."""
        kind = fragment_kind(body, self.titles)
        if kind is None and (not content_words(body) or _NOT_FOUND.search(body)):
            return "no_claim"
        return kind

    def check(self, body: str, cited: list[int], vec: np.ndarray | None = None
              ) -> SentenceCheck:
        """One sentence (citations already split off) against every source."""
        key = frozenset(content_words(body))
        if key and key in self._said:  # the same sentence again: say it once
            return SentenceCheck(body, cited, [], "repeat", 0.0, None)
        self._said.add(key)
        kind = self.kind(body)
        if kind is not None:
            return SentenceCheck(body, cited, [], kind, 0.0, None)
        if vec is None and self.meaning is not None and self._vecs:
            vec = self.meaning.embed([body])[0]
        lang = language_of(body)
        lang = self._asked_lang if lang == languages.UNKNOWN else lang
        best: dict[int, _Backing] = {}
        for src in self.sources:
            if across(lang, self._lang[src.n]):
                continue  # its words cannot be held to this source's
            cos = (self.meaning.reference(self._vecs[src.n] @ vec)
                   if self.meaning is not None and vec is not None and src.n in self._vecs
                   else None)
            for j, pw in enumerate(self._words[src.n]):
                g = ground(body, self.asked, pw)
                c = float(cos[j]) if cos is not None else 1.0
                b = _Backing(g.holds(self.settings.citation_min_coverage)
                             and c >= self.settings.citation_min_similarity,
                             g.coverage, c, src.texts[j], g.span,
                             g.missing + g.missing_details)
                if src.n not in best or b.rank > best[src.n].rank:
                    best[src.n] = b
        top = max(best, key=lambda n: (best[n].rank, -n)) if best else None
        good = [n for n in cited if n in best and best[n].holds]
        if good:
            status, keep = ("ok" if good == cited else "corrected"), good
        elif top is not None and best[top].holds:
            status, keep = ("corrected" if cited else "added"), [top]
        else:
            missing = best[top].missing if top is not None else ()
            return SentenceCheck(body, cited, [], "unsupported",
                                 best[top].coverage if top is not None else 0.0, top,
                                 missing=missing)
        b = best[keep[0]]
        return SentenceCheck(body, cited, keep, status, b.coverage, top, b.text, b.mark)

    def quote(self, sentence: str, n: int, passage: str) -> SentenceCheck:
        """A source's own sentence, as the reader picked it from `passage` of source `n`:
        held by its source word for word (it is verbatim), shown in quotation marks."""
        at = passage.find(sentence)
        if at < 0:  # never: the reader only picks a passage's sentences
            raise ValueError("a quote must be its passage's own text")
        self._said.add(frozenset(content_words(sentence)))
        return SentenceCheck(sentence, [n], [n], "quoted", 1.0, n, passage,
                             (at, at + len(sentence)))

    def claims(self, parts: Sequence[tuple[str, list[int]]]) -> dict[int, np.ndarray]:
        """The vectors of the parts that are claims, embedded in one batch."""
        todo = [i for i, (body, _c) in enumerate(parts) if self.kind(body) is None]
        if not todo or self.meaning is None or not self._vecs:
            return {}
        return dict(zip(todo, self.meaning.embed([parts[i][0] for i in todo]), strict=True))


def shown_text(checks: Sequence[SentenceCheck]) -> str:
    """The sentences an answer shows, with their checked citations (a source's own
    sentence in quotation marks)."""
    out = []
    for c in checks:
        if c.status == "quoted":
            out.append(f"“{c.sentence}” " + " ".join(f"[Source {n}]" for n in c.sources))
        elif c.status in SHOWN:
            out.append(with_citations(c.sentence, c.sources))
    return " ".join(out)


def checked(checks: list[SentenceCheck]) -> Checked:
    return Checked(shown_text(checks), checks, any(c.status in SHOWN for c in checks),
                   [c.sentence for c in checks if c.status == "unsupported"])


def check_answer(
    text: str,
    sources: Sequence[Source],
    meaning: Meaning | None,
    settings: Settings,
    question: str = "",
) -> Checked:
    """Match every sentence of `text` against the sources' passages; fix, add or flag its
    citations; leave out what no passage backs and what is no answer sentence.

    Words are judged on what a sentence adds to the question: "The quokkaflux method
    counts marsupials by the moon" shares most words with a page about quokkaflux because
    it repeats the question; only "moon" is a claim, and the page must have it.
    """
    checker = Checker(sources, meaning, settings, question)
    parts = split_answer(text)
    vecs = checker.claims(parts)
    return checked([checker.check(body, cited, vecs.get(i))
                    for i, (body, cited) in enumerate(parts)])
