"""Answers made of the sources' own sentences: when no language model is installed, and
when the small model's answer has no supported sentence although a source clearly answers.

Candidates are the sentences of the packed passages that can stand in an answer (a claim
with enough content words; no heading, page title, question or lead-in: citations.py says
which); each is scored by meaning and words against the question, in its page's context
("Feed it once a day." says what "it" is only after the title); a question that asks for
someone, a time, a number or a place takes only sentences that hold one. The best are picked
with maximal marginal relevance (a sentence that repeats a picked one adds nothing), then
put back in reading order — by source, then where they stand in the passage — so the answer
reads as prose, and each is cited with the source it came from. What is returned is checked
like any answer (answer.py runs the checker over it).
This module must never write a word of its own: every sentence is a source's, verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..config import Settings
from ..text import content_words, letter_words, names, sentences, spaced_words
from .citations import Embed, is_answer_sentence, reference_cosine, with_citations
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
    """Whether `sentence` holds the kind of thing the question asks for."""
    if kind is None:
        return True
    if kind == "a time":
        return bool(_YEARISH.search(sentence))
    if kind == "a number":
        return bool(_NUMBERISH.search(sentence))
    asked = {w.lower() for w in letter_words(question)}
    # a name the question did not say
    return any(n.lower() not in asked for n in names(sentence.strip()))


@dataclass
class Candidate:
    source: int  # its [Source N]
    order: tuple[int, int, int]  # (source, passage, sentence): reading order
    text: str


def candidates(sources: Sequence[Source], settings: Settings, limit: int = 60
               ) -> list[Candidate]:
    titles = [s.title for s in sources if s.title]
    out: list[Candidate] = []
    for src in sources:
        for j, passage in enumerate(src.texts):
            for k, sent in enumerate(sentences(passage)):
                sent = sent.strip(" …")
                if (len(content_words(sent)) >= settings.citation_min_words
                        and len(spaced_words(sent)) <= MAX_WORDS
                        and is_answer_sentence(sent, titles)):
                    out.append(Candidate(src.n, (src.n, j, k), sent))
    return out[:limit]


def compose(question: str, sources: Sequence[Source], embed: Embed | None,
            qvec: np.ndarray | None, settings: Settings, max_sentences: int = 3,
            per_source_max: int = 2, keep_share: float = 0.75, mmr_lambda: float = 0.7,
            ) -> str:
    """Up to `max_sentences` of the sources' best sentences for `question`, in reading
    order, each cited; "" when none is close enough to the question."""
    kind = asks_for(question)
    cands = [c for c in candidates(sources, settings) if holds(c.text, kind, question)]
    if not cands:
        return ""
    qwords = content_words(question)
    title = {src.n: (src.title or "").strip() for src in sources}
    in_context = [f"{title[c.source]}: {c.text}" if title[c.source] else c.text for c in cands]
    overlap = np.array([len(qwords & content_words(t)) / (len(qwords) or 1)
                        for t in in_context])
    vecs = None
    if embed is not None and qvec is not None:
        vecs = embed(in_context)
        sims = reference_cosine(embed, vecs @ qvec)
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
            if vecs is None or not picked:
                return float(score[i])
            redundancy = float(np.max(reference_cosine(embed, vecs[picked] @ vecs[i])))
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
        if vecs is not None and picked and float(
                np.max(reference_cosine(embed, vecs[picked] @ vecs[i]))) > SAME:
            continue  # says again what a picked sentence says
        picked.append(i)
        per_source[c.source] = per_source.get(c.source, 0) + 1
    chosen = sorted((cands[i] for i in picked), key=lambda c: c.order)
    return " ".join(with_citations(c.text, [c.source]) for c in chosen)
