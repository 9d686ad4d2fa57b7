"""The closest thing you read: when no answer is backed by the sources but search found a
page near the question, its best passage itself, quoted and cited, instead of a bare
"I couldn't find that in your history."

The passage is the first source's best (the one retrieval ranked first); a long one is cut
to the run of its sentences most about the question (by meaning and words, as extractive.py
scores them), at most QUOTE_WORDS words, with "…" where it was cut. The reply says what it
is — the closest passage, not an answer — and answer.py marks it so (`outcome: "closest"`,
`supported: false`), so that nothing counts it as an answer the pages back.
This module must never write a word of the quote: it is the passage's own text, cut only
at sentence (or, for one over-long sentence, word) boundaries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..text import content_words, sentences, spaced_words
from .citations import Meaning, fragment_kind
from .packing import Source

QUOTE_WORDS = 60  # a longer passage is cut to its best sentences
LEAD = "The closest thing you read"


@dataclass(frozen=True)
class Closest:
    n: int  # its [Source N]
    kind: str
    url: str
    title: str
    quote: str  # what is shown, "…" where cut
    passage: str  # the whole passage

    @property
    def answer(self) -> str:
        where = self.title.strip() or self.url
        return f"{LEAD} — {where}: “{self.quote}” [Source {self.n}]"

    def to_dict(self) -> dict:
        return {"n": self.n, "kind": self.kind, "url": self.url, "title": self.title,
                "quote": self.quote, "passage": self.passage}

    def citation(self) -> dict:
        """The quote as the one sentence of the answer (citations[] of an ask reply)."""
        return {"sentence": self.quote, "cited": [self.n], "sources": [self.n],
                "status": "quoted", "support": 1.0, "best": self.n, "quote": self.passage}


def closest(question: str, sources: Sequence[Source], meaning: Meaning | None,
            qvec: np.ndarray | None) -> Closest | None:
    """The best passage of the first source that has one, quoted; None without sources."""
    src = next((s for s in sources if s.passages), None)
    if src is None:
        return None
    passage = " ".join(_body(src.passages[0].text, src.title).split())
    return Closest(src.n, src.kind, src.url, src.title,
                   quote(question, passage, src.title, meaning, qvec), passage)


def _body(text: str, title: str) -> str:
    """The passage without the heading lines it opens with (its section's title is no part
    of what it says), each line's spaces squashed."""
    lines = [" ".join(line.split()) for line in text.split("\n") if line.strip()]
    while len(lines) > 1 and fragment_kind(lines[0], [title] if title else []) is not None:
        lines.pop(0)
    return "\n".join(lines)


def quote(question: str, passage: str, title: str, meaning: Meaning | None,
          qvec: np.ndarray | None, max_words: int = QUOTE_WORDS) -> str:
    """`passage`, or the run of its sentences most about `question` within `max_words`."""
    sents = sentences(passage)
    if len(spaced_words(passage)) <= max_words or not sents:
        return passage
    qwords = content_words(question)
    overlap = np.array([len(qwords & content_words(s)) / (len(qwords) or 1) for s in sents])
    score = overlap
    if meaning is not None and qvec is not None:
        sims = meaning.reference(meaning.embed([f"{title}: {s}" if title else s
                                                for s in sents]) @ qvec)
        score = 0.7 * sims + 0.3 * overlap
    best = int(np.argmax(score))
    lo = hi = best  # the window: sentences lo..hi
    size = len(spaced_words(sents[best]))
    while True:  # grow by the better neighbour that still fits, the next one first on ties
        options = [i for i in (hi + 1, lo - 1) if 0 <= i < len(sents)
                   and size + len(spaced_words(sents[i])) <= max_words]
        if not options:
            break
        i = max(options, key=lambda i: (score[i], i))
        size += len(spaced_words(sents[i]))
        lo, hi = min(lo, i), max(hi, i)
    words = spaced_words(" ".join(sents[lo:hi + 1]))
    cut_end = hi < len(sents) - 1 or len(words) > max_words
    text = " ".join(words[:max_words])
    return ("… " if lo > 0 else "") + text + (" …" if cut_end else "")
