"""Citations checked against the sources: every sentence of an answer, matched by meaning
and by words against each passage it could come from; its [Source N] corrected, added, or
the sentence left out.

A small local model cites the wrong source or none, adds details no page has, and writes
things that are not answers at all: a heading, a page title, a question back, a lead-in
("The answer to your question is:"). A sentence is a claim when it has content words and is
none of those; each claim is compared with every passage of every source: cosine of
embeddings, and the share of the words it adds to the question that the passage (and its
page's title) has (restating the question proves nothing). A number no source contains
counts against it. The passage that backs a sentence best is its `quote`: the citation
points at the passage the sentence came from. What is shown is only the supported claims
(and a bare "Yes." or "No." that answers the question).
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
from ..index.derived import languages
from ..models.cosine_scale import calibrated
from ..text import SENTENCE_BREAK, content_words, letter_words, numbers, spaced_words, words
from .packing import Source

# [Source 1], [Sources 1 and 2], [Source 1, Source 3], [1], (Source 2) — but not a bare
# "(1)": "git-config(1)" is a man page, and its words are the sentence's own.
_NUMS = r"(\d{1,3}(?:\s*(?:,|;|&|and)\s*(?:sources?\s*)?\d{1,3})*)"
CITE = re.compile(rf"\[\s*(?:sources?\s*)?{_NUMS}\s*\]|\(\s*sources?\s*{_NUMS}\s*\)",
                  re.IGNORECASE)
_NOT_FOUND = re.compile(
    r"(couldn'?t|could not|can'?t|cannot|unable to) find|not (?:mentioned|found|covered|"
    r"included|present|contained) in|(?:do|does) not (?:contain|mention|say|include)|"
    r"(?:don'?t|do not) (?:know|have)|no information",
    re.IGNORECASE,
)
_LIST_MARKER = re.compile(r"(?m)(?:^|(?<=[:.!?])[ \t]+)[ \t]*(?:\d{1,2}[.)]|[-*•])(?=\s)")
_CODE_FENCE = re.compile(r"```[\w+-]*")
# Boilerplate in front of an answer: dropped, the claim after it kept.
_LEAD_IN = re.compile(
    r"^\s*(?:(?:the\s+)?(?:short\s+)?answer(?:\s+to\s+(?:your|the|this)\s+question)?(?:\s+is)?"
    r"\s*[:,]|(?:according\s+to|based\s+on)\s+(?:the\s+)?(?:provided\s+|given\s+)?"
    r"(?:sources?|pages?|context|text)\s*(?:\[[^\]]*\]\s*)?,|sure[!,.]|certainly[!,.]"
    r"|here\s+(?:is|'s)\s+(?:the|an|my)\s+answer\s*[:.])\s*",
    re.IGNORECASE,
)
_QUESTION_LABEL = re.compile(r"^\s*(?:question|q)\s*\d*\s*[:.]", re.IGNORECASE)
_YES_NO = re.compile(r"^\s*(?:yes|no)\b[\s,.!]*$", re.IGNORECASE)
_END = re.compile(r"[.!?][\"'”’)\]]*$")
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
    if 0 < len(tokens) <= 10 and not _END.search(stripped):
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
    # ok | corrected | added | unsupported | no_claim | repeat, or a fragment never shown:
    # question | lead_in | title | heading
    status: str
    support: float  # the best passage's support
    best: int | None  # its source's number
    quote: str | None = None  # the passage that backs the sentence (as packed)

    def to_dict(self) -> dict:
        return {
            "sentence": self.sentence,
            "cited": self.cited,
            "sources": self.sources,
            "status": self.status,
            "support": round(self.support, 3),
            "best": self.best,
            "quote": self.quote,
        }


SHOWN = ("ok", "corrected", "added")


@dataclass
class Checked:
    answer: str
    checks: list[SentenceCheck]
    supported: bool
    unsupported: list[str]


Embed = Callable[[Sequence[str]], np.ndarray]


def reference_cosine(embed: Embed | None, cosine):
    """Cosines (a float or an array) of `embed`'s model on the reference scale, MiniLM's,
    which the thresholds of the answer were fitted on (models/cosine_scale.py).
    `embed` is an embedder's bound `embed_documents`: its embedder knows its scale."""
    return calibrated(getattr(getattr(embed, "__self__", None), "confidence", None), cosine)


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


def _support_across(numbers: set[str], cos: float | None, passage_text: str,
                    settings: Settings) -> float:
    """How well a passage in another language backs a claim: by meaning alone (the words
    of an English sentence are not a German passage's, whatever it says), on the reference
    scale, held to `citation_across_similarity`; a number the passage lacks still halves it."""
    if cos is None or cos < settings.citation_across_similarity:
        return 0.0
    score = cos
    if any(x not in passage_text for x in numbers):
        score *= 0.5
    return score


def _support(claimed: set[str], numbers: set[str], cos: float | None, passage_words: set[str],
             passage_text: str, settings: Settings) -> float:
    """How well one passage backs a claim (0..1)."""
    overlap = len(claimed & passage_words) / len(claimed)
    w = settings.citation_overlap_weight
    score = overlap if cos is None else (1 - w) * max(0.0, cos) + w * overlap
    strong = cos is not None and cos >= settings.citation_strong_similarity
    if overlap < settings.citation_min_overlap and not strong:
        score = min(score, overlap)  # too many words the passage does not have
    if any(x not in passage_text for x in numbers):  # the commonest made-up detail
        score *= 0.5
    return score


def check_answer(
    text: str,
    sources: Sequence[Source],
    embed: Embed | None,
    settings: Settings,
    question: str = "",
) -> Checked:
    """Match every sentence of `text` against the sources' passages; fix, add or flag its
    citations; leave out what no passage backs and what is no answer sentence.

    Word overlap is judged on what a sentence adds to the question: "The quokkaflux method
    counts marsupials by the moon" shares most words with a page about quokkaflux because
    it repeats the question; only "moon" is a claim, and the page must have it.
    """
    asked = content_words(question)
    parts = split_answer(text)
    by_n = {s.n: s for s in sources}
    titles = [s.title for s in sources if s.title]
    words_of = {s.n: [content_words(f"{s.title} {t}") for t in s.texts] for s in sources}
    vecs = _passage_vectors(sources, embed)
    src_lang = {s.n: language_of(f"{s.title}\n" + "\n".join(s.texts)) for s in sources}
    asked_lang = language_of(question) if question else languages.UNKNOWN
    kinds = [fragment_kind(body, titles) for body, _ in parts]
    claims = [i for i, (body, _c) in enumerate(parts)
              if content_words(body) and kinds[i] is None and not _NOT_FOUND.search(body)]
    claim_vecs: dict[int, np.ndarray] = {}
    if claims and embed is not None and vecs:
        claim_vecs = dict(zip(claims, embed([parts[i][0] for i in claims]), strict=True))

    checks: list[SentenceCheck] = []
    said: set[frozenset[str]] = set()
    for i, (body, cited) in enumerate(parts):
        key = frozenset(content_words(body))
        if key and key in said:  # the same sentence again: say it once
            checks.append(SentenceCheck(body, cited, [], "repeat", 0.0, None))
            continue
        said.add(key)
        if i not in claims:
            checks.append(SentenceCheck(body, cited, [], kinds[i] or "no_claim", 0.0, None))
            continue
        claimed = key - asked or key  # what it adds to the question (all, if nothing)
        details = set(numbers(body))
        vec = claim_vecs.get(i)
        support: dict[int, float] = {}
        quote: dict[int, str] = {}
        lang = language_of(body)
        lang = asked_lang if lang == languages.UNKNOWN else lang
        for n, src in by_n.items():
            cos = (reference_cosine(embed, vecs[n] @ vec) if vec is not None and n in vecs
                   else None)
            if across(lang, src_lang[n]):
                scores = [_support_across(details, None if cos is None else float(cos[j]), t,
                                          settings) for j, t in enumerate(src.texts)]
            else:
                scores = [_support(claimed, details, None if cos is None else float(cos[j]),
                                   words_of[n][j], t, settings)
                          for j, t in enumerate(src.texts)]
            if scores:
                j = int(np.argmax(scores))
                support[n], quote[n] = scores[j], src.texts[j]
        best = max(support, key=lambda n: (support[n], -n)) if support else None
        top = support.get(best, 0.0) if best is not None else 0.0
        valid = [n for n in cited if n in support]
        good = [n for n in valid if support[n] >= settings.citation_support]
        if good:
            status, keep = ("ok" if good == cited else "corrected"), good
        elif best is not None and top >= settings.citation_support and (
                cited or top >= settings.citation_clear):
            status, keep = ("corrected" if cited else "added"), [best]
        else:
            status, keep = "unsupported", []
        checks.append(SentenceCheck(body, cited, keep, status, top, best,
                                    quote.get(keep[0]) if keep else None))

    supported = any(c.status in SHOWN for c in checks)
    shown = [c for c in checks
             if c.status in SHOWN or (c.status == "no_claim" and _YES_NO.match(c.sentence))]
    answer = " ".join(with_citations(c.sentence, c.sources) for c in shown)
    return Checked(answer, checks, supported,
                   [c.sentence for c in checks if c.status == "unsupported"])
