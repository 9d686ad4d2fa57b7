"""What one question comes to: the reply (`AskResult`), a conversation kept for follow-ups
(`Thread`, kept in `Threads`), the gate's verdict in words, and the notes that say what
was unusual.

This module must never decide what is shown: stages.py does; it only says it.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..index.derived import languages
from ..search import relevance
from .citations import across, language_of
from .packing import BuiltContext, Source


@dataclass
class AskResult:
    answer: str
    supported: bool
    sources: list[dict]
    citations: list[dict]
    unsupported: list[str]
    timings: dict[str, float | None]
    model: str | None  # the LLM that answered; None: extracted without one
    raw_answer: str  # what the model wrote, before checking
    notice: str | None = None
    cancelled: bool = False
    context_tokens: int = 0
    facets: list[dict] = field(default_factory=list)  # settings.answer_facets; empty when off
    thread_id: str | None = None  # ask a follow-up over the same sources with it
    closest: dict | None = None  # outcome "closest": the passage quoted (closest.py)

    @property
    def outcome(self) -> str:
        """"answer" (supported), "closest" (the nearest passage, quoted: not an answer),
        "not_found" or "cancelled"."""
        if self.supported:
            return "answer"
        if self.cancelled:
            return "cancelled"
        return "closest" if self.closest is not None else "not_found"

    def to_dict(self) -> dict:
        return {
            "answer": self.answer,
            "supported": self.supported,
            "outcome": self.outcome,
            "closest": self.closest,
            "sources": self.sources,
            "citations": self.citations,
            "unsupported": self.unsupported,
            "timings": self.timings,
            "model": self.model,
            "notice": self.notice,
            "context_tokens": self.context_tokens,
            "raw_answer": self.raw_answer,
            "facets": self.facets,
            "thread_id": self.thread_id,
        }


@dataclass
class Thread:
    """A conversation's sources and its turns so far (question, checked answer)."""

    built: BuiltContext
    turns: list[tuple[str, str]]


class Threads:
    """The conversations kept for follow-ups, by id, the one asked last at the end; the
    oldest are forgotten beyond the number kept (`answer_threads_kept`, given each time:
    set_settings may change it between questions)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, Thread] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, thread_id: str) -> Thread | None:
        with self._lock:
            return self._kept.get(thread_id)

    def ids(self) -> list[str]:
        """The ids kept, the oldest first."""
        with self._lock:
            return list(self._kept)

    def keep(self, thread_id: str | None, thread: Thread, most: int) -> str:
        """Keep `thread` under `thread_id` (None: a new id), moved to the end; its id."""
        with self._lock:
            tid = thread_id or secrets.token_hex(6)
            self._kept[tid] = thread
            self._kept.move_to_end(tid)
            while len(self._kept) > most:
                self._kept.popitem(last=False)
            return tid


def verdict(p: float | None) -> Literal["no", "maybe", "yes"]:
    """The relevance gate on a question (search/relevance.py): "no", the history does not
    hold it (couldn't find, no model run); "yes", a source clearly answers (its own
    sentences may stand in for a model answer no source backs); "maybe", the model and
    the citation checker decide. Without an embedder (p None) the words decide: "yes"."""
    if p is None:
        return "yes"
    g = relevance.gauge()
    return "no" if p < g.refuse else "yes" if p >= g.extract else "maybe"


def language_note(question: str, sources: Sequence[Source], cited: Sequence[int]
                  ) -> str | None:
    """"Quoted from a German page." when an answer cites a page in another language than
    the question's (the multilingual model finds them): its quotes are in that language,
    and a sentence in the question's language was backed by meaning alone."""
    if not cited:
        return None
    asked = language_of(question)
    names = []
    for src in sources:
        if src.n in cited:
            lang = language_of(f"{src.title}\n" + "\n".join(src.texts))
            if across(asked, lang) and languages.name(lang) not in names:
                names.append(languages.name(lang))
    if not names:
        return None
    pages = " and ".join(f"a {n} page" for n in names)
    return f"Cited from {pages} (your question was in {languages.name(asked)})."


def join(*notes: str | None) -> str | None:
    return " ".join(n for n in notes if n) or None


def left_out(unsupported: list[str]) -> str:
    n = len(unsupported)
    return (f"{n} sentence{'s were' if n > 1 else ' was'} left out of the answer: nothing "
            f"in your history supports {'them' if n > 1 else 'it'}.")
