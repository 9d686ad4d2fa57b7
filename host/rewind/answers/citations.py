"""Citations checked against the sources: every sentence of an answer, matched by meaning
and by words, its [Source N] corrected, added or the sentence flagged as unsupported.

A small local model cites the wrong source or none, and adds details no page has. Each
sentence is compared with every source: cosine of embeddings, and the share of the words
it adds to the question that the source has (restating the question proves nothing).
A number no source contains counts against it. A wrong citation is corrected, a missing
one added when the support is clear, an unsupported sentence left out.
This module must never call a sentence supported that no source backs, and never change
the words of a sentence it keeps (only its citations).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..config import Settings
from ..text import SENTENCE_BREAK, content_words, words
from .packing import Source

# [Source 1], [Sources 1 and 2], [Source 1, Source 3], [1], (Source 2)
CITE = re.compile(
    r"[\[(]\s*(?:sources?\s*)?(\d{1,3}(?:\s*(?:,|;|&|and)\s*(?:sources?\s*)?\d{1,3})*)\s*[\])]",
    re.IGNORECASE,
)
_NOT_FOUND = re.compile(
    r"(couldn'?t|could not|can'?t|cannot|unable to) find|not (?:mentioned|found|covered|"
    r"included|present|contained) in|(?:do|does) not (?:contain|mention|say|include)|"
    r"(?:don'?t|do not) (?:know|have)|no information",
    re.IGNORECASE,
)
_LIST_MARKER = re.compile(r"(?m)(?:^|(?<=[:.!?])[ \t]+)[ \t]*(?:\d{1,2}[.)]|[-*•])(?=\s)")
_CODE_FENCE = re.compile(r"```[\w+-]*")
_LEAD_IN = re.compile(r"^\s*(?:the\s+)?(?:short\s+)?answer(?:\s+is)?\s*:\s*", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
def cited_numbers(text: str) -> list[int]:
    out: list[int] = []
    for m in CITE.finditer(text):
        out += [int(n) for n in re.findall(r"\d+", m.group(1))]
    return out


def split_answer(text: str) -> list[tuple[str, list[int]]]:
    """(sentence without its citations, numbers it cites), in order.

    A citation placed after the full stop ("It does. [Source 2]") belongs to the
    sentence before it.
    """
    text = _LIST_MARKER.sub("\n", _CODE_FENCE.sub("\n", text))  # "1." is no sentence
    text = _LEAD_IN.sub("", text, count=1)  # "The answer is: It does." -> "It does."
    out: list[list[Any]] = []
    for piece in SENTENCE_BREAK.split(text):
        if not piece.strip():
            continue
        cites = cited_numbers(piece)
        body = CITE.sub("", piece)
        body = re.sub(r"\s+([.,;:!?])", r"\1", body)
        body = re.sub(r"\s{2,}", " ", body).strip()
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


# ---- the citation checker -----------------------------------------------------------------


@dataclass
class SentenceCheck:
    sentence: str
    cited: list[int]  # as the model wrote them
    sources: list[int]  # after checking
    status: str  # ok | corrected | added | unsupported | no_claim | repeat
    support: float  # the best source's support
    best: int | None  # the best source's number

    def to_dict(self) -> dict:
        return {
            "sentence": self.sentence,
            "cited": self.cited,
            "sources": self.sources,
            "status": self.status,
            "support": round(self.support, 3),
            "best": self.best,
        }


@dataclass
class Checked:
    answer: str
    checks: list[SentenceCheck]
    supported: bool
    unsupported: list[str]


Embed = Callable[[Sequence[str]], np.ndarray]


def _source_vectors(sources: Sequence[Source], embed: Embed | None) -> dict[int, np.ndarray]:
    """One matrix of unit vectors per source: its passages' stored vectors, else embedded."""
    out: dict[int, np.ndarray] = {}
    todo: list[tuple[int, str]] = []
    for src in sources:
        vecs = [p.vector for p in src.passages if p.vector is not None]
        if len(vecs) == len(src.passages) and vecs:
            out[src.n] = np.vstack(vecs)
        else:
            todo += [(src.n, t) for t in src.texts]
    if todo and embed is not None:
        mat = embed([t for _, t in todo])
        for n in {n for n, _ in todo}:
            out[n] = mat[[i for i, (m, _) in enumerate(todo) if m == n]]
    return out


def check_answer(
    text: str,
    sources: Sequence[Source],
    embed: Embed | None,
    settings: Settings,
    question: str = "",
) -> Checked:
    """Match every sentence of `text` against `sources`; fix, add or flag its citations.

    Word overlap is judged on what a sentence adds to the question: "The quokkaflux method
    counts marsupials by the moon" shares most words with a page about quokkaflux because
    it repeats the question; only "moon" is a claim, and the page must have it.
    """
    asked = content_words(question)
    parts = split_answer(text)
    by_n = {s.n: s for s in sources}
    src_words = {s.n: content_words(" ".join([s.title, *s.texts])) for s in sources}
    src_text = {s.n: " ".join(s.texts) for s in sources}
    src_vecs = _source_vectors(sources, embed)
    claims = [
        i
        for i, (body, _c) in enumerate(parts)
        if content_words(body)  # any content word makes a claim: short ones can be false too
        and not _NOT_FOUND.search(body)
        and not body.endswith(("?", ":"))  # a question back, or a lead-in ("Do this:")
    ]
    claim_vecs: dict[int, np.ndarray] = {}
    if claims and embed is not None and src_vecs:
        mat = embed([parts[i][0] for i in claims])
        claim_vecs = dict(zip(claims, mat, strict=True))

    w = settings.citation_overlap_weight
    checks: list[SentenceCheck] = []
    said: set[frozenset[str]] = set()
    for i, (body, cited) in enumerate(parts):
        key = frozenset(content_words(body))
        if key and key in said:  # the same sentence again: say it once
            checks.append(SentenceCheck(body, cited, [], "repeat", 0.0, None))
            continue
        said.add(key)
        if i not in claims:
            checks.append(SentenceCheck(body, cited, [], "no_claim", 0.0, None))
            continue
        claimed = key - asked or key  # what it adds to the question (all, if nothing)
        numbers = set(_NUMBER.findall(body))
        support: dict[int, float] = {}
        for n in by_n:
            overlap = len(claimed & src_words[n]) / len(claimed)
            vec = claim_vecs.get(i)
            cos = float(np.max(src_vecs[n] @ vec)) if vec is not None and n in src_vecs else None
            score = overlap if cos is None else (1 - w) * max(0.0, cos) + w * overlap
            strong = cos is not None and cos >= settings.citation_strong_similarity
            if overlap < settings.citation_min_overlap and not strong:
                score = min(score, overlap)  # too many words the source does not have
            missing = [x for x in numbers if x not in src_text[n]]
            if missing:  # a number no source has is the commonest made-up detail
                score *= 0.5
            support[n] = score
        best = max(support, key=lambda n: (support[n], -n)) if support else None
        top = support.get(best, 0.0) if best is not None else 0.0
        valid = [n for n in cited if n in by_n]
        good = [n for n in valid if support[n] >= settings.citation_support]
        if good:
            status = "ok" if good == cited else "corrected"
            keep = good
        elif (
            best is not None
            and top >= settings.citation_support
            and (cited or top >= settings.citation_clear)
        ):
            status, keep = ("corrected" if cited else "added"), [best]
        else:
            status, keep = "unsupported", []
        checks.append(SentenceCheck(body, cited, keep, status, top, best))

    kept = [c for c in checks if c.status not in ("unsupported", "repeat")]
    while kept and kept[-1].status == "no_claim" and kept[-1].sentence.endswith(":"):
        kept.pop()  # "The answer is:" with nothing after it
    supported = any(c.status in ("ok", "corrected", "added") for c in checks)
    answer = " ".join(with_citations(c.sentence, c.sources) for c in kept)
    return Checked(
        answer, checks, supported, [c.sentence for c in checks if c.status == "unsupported"]
    )
