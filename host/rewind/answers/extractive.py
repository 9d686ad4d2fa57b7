"""The reader: the sentences of the sources that answer the question, quoted as they stand.
They lead the answer of a small model (models.json `answer_lead`), are the answer without a
language model, and stand in for a larger model's answer when none of its sentences holds.

Candidates are the sentences of the packed passages that can stand in an answer (a claim
with enough content words; no heading, page title, question or lead-in: citations.py says
which); each is scored by meaning and words against the question, in its page's context
("Feed it once a day." says what "it" is only after the title); a question that asks for
someone, a time, a number or a place takes only sentences that hold one. The best are picked
with maximal marginal relevance (a sentence that repeats a picked one adds nothing), then
put back in reading order — by source, then where they stand in the passage — so the answer
reads as prose, and each is cited with the source it came from. A sentence that leans on the
one before it ("This is enough to…", "It…", an item after a lead-in ending in ":") brings
that sentence with it, or is not picked when it has none that can stand in an answer.
Sentences end at block ends (the chunkers keep a heading on its own line), so no heading or
title is glued to a quote. What is returned is checked like any answer (stages.py).
This module must never write a word of its own: every sentence is a source's, verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..config import Settings
from ..text import content_words, letter_words, names, sentences, spaced_words
from .citations import Meaning, is_answer_sentence, with_citations
from .packing import Source

MAX_WORDS = 80  # a longer "sentence" is a run-on list, not an answer
SAME = 0.9  # cosine above which two sentences say the same thing

# What kind of thing a question asks for, when its first words say so, and what a
# sentence must hold to answer it: "Who invented the starter?" is not answered by a
# sentence about starters that names nobody.
_ASKS = (
    ("someone", re.compile(r"^\s*(?:who|whom|whose)\b", re.I)),
    ("a time", re.compile(r"^\s*(?:when\b|(?:in\s+)?what\s+(?:year|date|decade|century|"
                          r"month|day)\b)", re.I)),
    ("a number", re.compile(r"^\s*how\s+(?:many|much|long|old|far|big|often|fast|large|"
                            r"heavy|tall|deep|wide)\b", re.I)),
    ("a place", re.compile(r"^\s*where\b", re.I)),
)
_YEARISH = re.compile(r"\b(?:1\d{3}|20\d{2})s?\b|\b(?:january|february|march|april|may|june|"
                      r"july|august|september|october|november|december|monday|tuesday|"
                      r"wednesday|thursday|friday|saturday|sunday|century|decade|ago|"
                      r"yesterday|today)\b", re.I)
_NUMBERISH = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                        r"twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|"
                        r"dozen|once|twice|half|daily|weekly|monthly|yearly|hourly|every|"
                        r"few|several)\b", re.I)


def asks_for(question: str) -> str | None:
    """"someone", "a time", "a number", "a place", or None (any answer will do)."""
    return next((kind for kind, pattern in _ASKS if pattern.match(question)), None)


def holds(sentence: str, kind: str | None, question: str) -> bool:
    """Whether `sentence` holds the kind of thing the question asks for, about what it
    asks: "Who invented the starter?" is not answered by "Keep the starter at 24 degrees
    Celsius", which names a unit and says nothing of inventing."""
    if kind is None:
        return True
    if kind == "a time":
        return bool(_YEARISH.search(sentence))
    if kind == "a number":
        return bool(_NUMBERISH.search(sentence))
    wanted = content_words(question)
    if wanted and len(wanted & content_words(sentence)) < 0.5 * len(wanted):
        return False  # a name, but not of who did what the question asks about
    asked = {w.lower() for w in letter_words(question)}
    # a name the question did not say
    return any(n.lower() not in asked for n in names(sentence.strip()))


# A sentence that cannot be read alone: it points back at the one before it.
_LEANS_BACK = re.compile(
    r"^\W*(?:this|that|these|those|it|its|they|their|them|such|both|here|then|so|thus|also|"
    r"however|but|instead|otherwise|therefore|similarly|likewise|another|the same|the other|"
    r"second|third|fourth|next|finally|lastly|then|afterwards|"
    r"the (?:above|former|latter|previous)|in (?:this|that|either) case|for (?:this|that) "
    r"reason|there (?:is|are) also|dies|das|diese[rs]?|es|sie|dann|cela|ceci|ce|il|elle|ils|"
    r"elles|alors|esto|eso|ello)\b", re.I)
_PROSE = re.compile(r"[.!?:。！？][\"'”’)\]]*$")  # a sentence, not a code line or a label
_CODE = re.compile(r">>>|›››|^\s*\.\.\.|\.\.\.\s*$|[{};=]\s*$|\w=\w|\w = [\w{\[(\'\"]|"
                   r"^\s*=|^\s*(?:def|class|return|import|from)\s")
# "Author: A. Dalke Release: 0.1 Python lists have…": fields of a page run into its first
# sentence where the page's blocks were joined without a line break (older passages).
_LABEL = re.compile(r"(?:^|\s)[A-Z][\w-]{1,20}:\s+\S+.*\s[A-Z][\w-]{1,20}:\s")
PROSE_WORDS = 8  # a line this long is prose even without a full stop (a list item, a cell)


@dataclass
class Candidate:
    source: int  # its [Source N]
    order: tuple[int, int, int]  # (source, passage, sentence): reading order
    text: str
    passage: str  # the passage it is in (as packed)
    context: str = ""  # the sentence before it, which it needs to be understood
    context_passage: str = ""  # the passage that one is in (this one, or the one before)
    score: float = 0.0  # how well it answers the question (read: meaning and words)


def leans_back(sentence: str, before: str) -> bool:
    """Whether `sentence` needs `before` to be understood: it opens with a word pointing
    back, or `before` leads in to it (ends in a colon)."""
    return bool(_LEANS_BACK.match(sentence)) or before.rstrip().endswith(":")


def _quotable(sent: str, titles: Sequence[str], settings: Settings) -> bool:
    """A prose sentence that can stand in an answer: no heading, label or line of code."""
    return (len(content_words(sent)) >= settings.citation_min_words
            and len(spaced_words(sent)) <= MAX_WORDS
            and (bool(_PROSE.search(sent)) or len(spaced_words(sent)) >= PROSE_WORDS)

            and not _CODE.search(sent) and not _LABEL.search(sent)
            and is_answer_sentence(sent, titles))


def candidates(sources: Sequence[Source], settings: Settings, limit: int = 80
               ) -> list[Candidate]:
    titles = [s.title for s in sources if s.title]
    out: list[Candidate] = []
    for src in sources:
        for j, passage in enumerate(src.texts):
            said = [x.strip(" …") for x in sentences(passage)]
            earlier = src.passages[j].before if j < len(src.passages) else ""
            for k, sent in enumerate(said):
                if not _quotable(sent, titles, settings) or (k and sent[:1].islower()):
                    continue  # not prose; or the tail of a sentence a line break cut
                before, where = (said[k - 1], passage) if k else ("", "")
                if not k and earlier:  # the page's passage before this one, its last
                    # sentence that says something (not "For example:")
                    said_before = [x.strip(" …") for x in sentences(earlier)]
                    before = next((x for x in reversed(said_before)
                                   if not x.endswith(":") and _quotable(x, titles, settings)),
                                  "")
                    where = earlier
                context = ""
                if leans_back(sent, before):
                    lead_in = before.rstrip().endswith(":") and content_words(before)
                    if not (lead_in or (_quotable(before, titles, settings)
                                        and not _LEANS_BACK.match(before))):
                        continue  # it points at something the passage does not hold, or
                        # at a sentence that itself points further back
                    context = before
                out.append(Candidate(src.n, (src.n, j, k), sent, passage, context,
                                     where if context else ""))
    return out[:limit]


def quoted(picked: Sequence[Candidate]) -> list[tuple[str, int, str]]:
    """(sentence, source, the passage it is in) of the picked sentences in reading order,
    each after the sentence it needs (once)."""
    out: list[tuple[str, int, str]] = []
    for c in picked:
        for text, passage in ((c.context, c.context_passage), (c.text, c.passage)):
            if text and (text, c.source, passage) not in out:
                out.append((text, c.source, passage))
    return out


def compose(question: str, sources: Sequence[Source], meaning: Meaning | None,
            qvec: np.ndarray | None, settings: Settings, **kw: float) -> str:
    """The reader's sentences as an answer's text, each cited; "" when none answers."""
    return " ".join(with_citations(t, [n]) for t, n, _p in
                    quoted(read(question, sources, meaning, qvec, settings, **kw)))


def read(question: str, sources: Sequence[Source], meaning: Meaning | None,
         qvec: np.ndarray | None, settings: Settings, max_sentences: int | None = None,
         per_source_max: int | None = None, keep_share: float = 0.75,
         mmr_lambda: float = 0.7) -> list[Candidate]:
    """Up to `max_sentences` (settings.reader_sentences) of the sources' best sentences
    for `question`, in reading order; none when no sentence is close enough to it."""
    max_sentences = max_sentences or settings.reader_sentences
    per_source_max = per_source_max or settings.reader_sentences_per_page
    kind = asks_for(question)
    cands = [c for c in candidates(sources, settings)
             if holds(f"{c.context} {c.text}", kind, question)]
    if not cands:
        return []
    qwords = content_words(question)
    title = {src.n: (src.title or "").strip() for src in sources}
    windows = [f"{c.context} {c.text}".strip() for c in cands]
    in_context = [f"{title[c.source]}: {w}" if title[c.source] else w
                  for c, w in zip(cands, windows, strict=True)]
    overlap = np.array([len(qwords & content_words(t)) / (len(qwords) or 1)
                        for t in in_context])
    vecs = None
    if meaning is not None and qvec is not None:
        vecs = meaning.embed(in_context)
        sims = meaning.reference(vecs @ qvec)
        score = 0.7 * sims + 0.3 * overlap
    else:
        sims = None
        score = overlap
    top = float(score.max())
    picked: list[int] = []
    per_source: dict[int, int] = {}
    left = set(range(len(cands)))
    while left and len(picked) < max_sentences:
        def gain(i: int) -> float:
            if meaning is None or vecs is None or not picked:
                return float(score[i])
            redundancy = float(np.max(meaning.reference(vecs[picked] @ vecs[i])))
            return mmr_lambda * float(score[i]) - (1 - mmr_lambda) * redundancy
        i = max(left, key=lambda i: (gain(i), -i))
        left.discard(i)
        c = cands[i]
        if sims is not None and sims[i] < settings.answer_min_similarity:
            continue
        if sims is None and overlap[i] == 0:
            continue
        if score[i] < keep_share * top:  # far below the best sentence: not the answer
            continue
        if per_source.get(c.source, 0) >= per_source_max:
            continue
        if meaning is not None and vecs is not None and picked and float(
                np.max(meaning.reference(vecs[picked] @ vecs[i]))) > SAME:
            continue  # says again what a picked sentence says
        picked.append(i)
        per_source[c.source] = per_source.get(c.source, 0) + 1
        c.score = float(score[i])
    return sorted((cands[i] for i in picked), key=lambda c: c.order)
