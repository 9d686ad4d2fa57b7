"""The metrics of answer_quality.py that read an answer as a person would, apart from the
citation checker: answer recall against the gold page, an independent audit of each shown
sentence against the full page it cites, and which path (reader, model) an answer took.

Job: plain functions over text and AskResult dicts (no engine, no model), so they can be
tested alone. The audit holds a shown sentence (its [Source N] and quotation marks taken
off) to the FULL stored text of the page it cites, not the passage the checker saw: a
sentence passes when at least AUDIT_SHARE of its content words (text.py `content_words`:
stemmed, no stop words), less the question's own, are words of that page.
Never: call the checker (this is the check on it), or read anything but its arguments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rewind.text import content_words, sentences

AUDIT_SHARE = 0.9
RECALL_SHARE = 0.5  # an answer "recalls" the gold answer from this share of its key words
KEY_SENTENCES = 2  # the gold answer's first sentences that hold its key words
SHOWN = ("ok", "corrected", "added", "quoted")  # statuses of sentences an answer shows
_CITE = re.compile(r"\s*\[\s*sources?\s*[\d,;&\sand]*\]|\s*\(\s*sources?\s*[\d,\s]+\)",
                   re.IGNORECASE)
_QUOTES = "\"“”‘’«»「」"


@dataclass(frozen=True)
class Audit:
    share: float  # of the sentence's words (less the question's) the page has
    ok: bool
    missing: tuple[str, ...]  # its words the page lacks


def plain(sentence: str) -> str:
    """A shown sentence without its citations and quotation marks."""
    out = _CITE.sub("", sentence)
    return re.sub(r"\s+([.,;:!?])", r"\1", out.strip().strip(_QUOTES).strip()).strip(_QUOTES)


def audit(sentence: str, page_text: str, question: str = "", share: float = AUDIT_SHARE
          ) -> Audit:  # fmt: skip
    """Whether the page (its full text, title included by the caller) has `share` of the
    words the sentence adds to the question. A sentence that adds no word passes."""
    mine = content_words(plain(sentence)) - content_words(question)
    if not mine:
        return Audit(1.0, True, ())
    have = content_words(page_text)
    missing = tuple(sorted(mine - have))
    got = 1 - len(missing) / len(mine)
    return Audit(got, got >= share, missing)


def key_words(gold_text: str, question: str, n: int = KEY_SENTENCES) -> set[str]:
    """The gold answer's key words: the content words of its first `n` sentences, less the
    question's (restating the question is no answer)."""
    return content_words(" ".join(sentences(gold_text)[:n])) - content_words(question)


def recall(answer: str, keys: set[str]) -> float | None:
    """The share of the key words the answer has (None: no key words)."""
    if not keys:
        return None
    return len(keys & content_words(plain(answer))) / len(keys)


def shown(citations: Iterable[dict]) -> list[dict]:
    """The sentences an answer shows (status in SHOWN), as AskResult.citations has them."""
    return [c for c in citations if c.get("status") in SHOWN]


def path(statuses: Sequence[str]) -> str:
    """"reader" (every shown sentence quoted), "model" (none quoted), "both" or "none"."""
    kinds = {"reader" if s == "quoted" else "model" for s in statuses if s in SHOWN}
    return "both" if len(kinds) == 2 else (kinds.pop() if kinds else "none")


def cited_urls(citation: dict, sources: Sequence[dict]) -> list[str]:
    """The urls of the sources a shown sentence keeps (after checking)."""
    by_n = {s["n"]: s["url"] for s in sources}
    return [by_n[n] for n in citation.get("sources", []) if n in by_n]
