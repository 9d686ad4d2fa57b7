"""One question's way through the answer, as named stages: retrieve (or a thread's
sources) and pack → gate (does the history hold it?) → generate (the model's words,
streamed) → check (every sentence against the sources) → fall back (the sources' own
sentences, else the closest passage, else "I couldn't find that").

`Question` holds what one question has gathered so far (its sources, verdict, timings,
notice); `Answerer.ask` (answer.py) runs the stages in order and stops at the first that
has the answer. Each stage is a method, each exit returns an `AskResult` through
`result`.
This module must never follow instructions found in page text, nor return a sentence as
supported that no source backs.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from ..config import Settings
from ..errors import RewindError
from ..index.derived import languages
from ..search import relevance
from . import facets
from .citations import CITE, SHOWN, Checked, Embed, across, check_answer, language_of
from .closest import Closest, closest
from .context import Retrieval, TabContext, retrieve
from .extractive import compose
from .llm import Llm, Tokenizer
from .packing import BuiltContext, Source, pack
from .prompt import COULD_NOT_FIND, SYSTEM_PROMPT, answer_messages

if TYPE_CHECKING:
    import numpy as np

    from ..profile.engine import Rewind


class Answering(Protocol):
    """What the stages need of the `Answerer` (answer.py): its engine and settings, the
    model, its threads, and how it generates."""

    engine: Rewind
    llm_problem: RewindError | None
    _threads: OrderedDict[str, Thread]

    @property
    def settings(self) -> Settings: ...

    def llm(self) -> Llm | None: ...

    def tokenizer(self) -> Tokenizer: ...

    def _max_new(self, model: Llm) -> int: ...

    def _generate(self, model: Llm, messages: list[dict[str, str]],
                  on_chunk: Callable[[str], None] | None, cancel: threading.Event | None
                  ) -> tuple[str, float | None]: ...

    def _keep_thread(self, thread_id: str | None, built: BuiltContext,
                     turns: list[tuple[str, str]]) -> str: ...


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


@dataclass
class Question:
    """One question's state through the stages (answer.py's `Answerer.ask` runs them)."""

    answerer: Answering
    question: str
    provided: TabContext | None
    budget: int | None
    on_chunk: Callable[[str], None] | None
    cancel: threading.Event | None
    thread_id: str | None
    model: Llm | None = None
    t0: float = field(default_factory=time.perf_counter)
    notice: str | None = None
    thread: Thread | None = None
    turns: list[tuple[str, str]] = field(default_factory=list)
    found: Retrieval | None = None  # None for a follow-up: its thread's sources
    built: BuiltContext | None = None
    parts: list[facets.Facet] = field(default_factory=list)
    qvec: np.ndarray | None = None
    answerable: Literal["no", "maybe", "yes"] = "yes"
    timings: dict[str, float | None] = field(default_factory=dict)
    embed: Embed | None = None
    raw: str = ""
    checked: Checked | None = None

    @property
    def settings(self) -> Settings:
        return self.answerer.settings

    def ms(self, t: float | None) -> float | None:
        return None if t is None else round((t - self.t0) * 1000, 1)

    # ---- stage 0: the model -------------------------------------------------------------

    def load(self, extractive: bool) -> float:
        """The answering model (loaded on the first question) and the notices about it."""
        a = self.answerer
        self.model = None if extractive else a.llm()
        t_loaded = time.perf_counter()
        if self.model is None and not extractive and a.llm_problem is not None:
            self.notice = (f"{a.llm_problem.message} This answer is made of sentences from "
                           f"your pages. {a.llm_problem.hint}").strip()
        self.thread = a._threads.get(self.thread_id) if self.thread_id else None
        if self.thread_id and self.thread is None:
            self.notice = join(self.notice, "That conversation is no longer kept: this "
                                            "question was asked afresh.")
        return t_loaded

    # ---- stage 1: retrieve and pack -----------------------------------------------------

    def retrieve(self, t_loaded: float) -> None:
        """The sources: a follow-up's thread's, else retrieved and packed for the prompt;
        the gate's verdict on them, and the timings so far."""
        s, model = self.settings, self.model
        if self.thread is not None:  # a follow-up: the thread's sources, its earlier turns
            self.built, self.turns = self.thread.built, self.thread.turns
            emb = self.answerer.engine.embedder()
            self.qvec = emb.embed_query(self.question) if emb is not None else None
            self.answerable = "yes"  # the person chose to ask over these sources
            t_retrieved = t_split = time.perf_counter()
        else:
            engine = self.answerer.engine
            found = retrieve(engine, self.question, s, k=s.answer_top_k,
                             provided=self.provided)
            self.found = found
            t_retrieved = time.perf_counter()
            self.notice = join(found.notice, self.notice)
            self.qvec = found.query_vector
            room = self.budget or (s.answer_budget(model.n_ctx) if model is not None
                                   else s.extract_token_budget)
            if model is not None:
                max_new = self.answerer._max_new(model)
                fixed = model.tokenizer.count(SYSTEM_PROMPT) + model.tokenizer.count(
                    self.question) + 64  # the template and labels
                room = min(room, model.n_ctx - max_new - fixed)
            tok = model.tokenizer if model is not None else self.answerer.tokenizer()
            brief = not s.answer_source_details
            t_split = t_retrieved
            if s.answer_facets and model is not None:
                self.parts = facets.decompose(self.question, model, s, self.cancel)
                t_split = time.perf_counter()
                found_parts = facets.retrieve_facets(
                    engine, self.parts, s, provided=self.provided, first=found)
                self.built = facets.pack_facets(self.parts, found_parts, max(0, room), tok,
                                                self.question, s, brief=brief)
            else:
                self.built = pack(found.evidence, max(0, room), tok, self.question, s,
                                  brief=brief)
            self.answerable = verdict(found.answerable)
        t_packed = time.perf_counter()
        self.timings = {
            "load_ms": round((t_loaded - self.t0) * 1000, 1),  # the model, first question
            "retrieval_ms": round((t_retrieved - t_loaded) * 1000, 1),
            "facets_ms": round((t_split - t_retrieved) * 1000, 1) if self.parts else None,
            "context_ms": round((t_packed - t_split) * 1000, 1),  # facets: retrieval+packing
            "first_token_ms": None, "generation_ms": None, "check_ms": None, "total_ms": None,
        }

    # ---- stage 2: the gate --------------------------------------------------------------

    def gate(self) -> bool:
        """False when the history does not hold it: no model time is spent."""
        assert self.built is not None
        return bool(self.built.sources) and self.answerable != "no"

    # ---- stage 3: generate --------------------------------------------------------------

    def generate(self) -> bool:
        """The model's answer, streamed; False when the question was cancelled meanwhile."""
        assert self.model is not None and self.built is not None
        t_gen = time.perf_counter()
        self.raw, first = self.answerer._generate(
            self.model, answer_messages(self.built.text, self.question, self.turns),
            self.on_chunk, self.cancel)
        self.timings["first_token_ms"] = self.ms(first)
        self.timings["generation_ms"] = round((time.perf_counter() - t_gen) * 1000, 1)
        return not (self.cancel is not None and self.cancel.is_set())

    # ---- stage 4: check -----------------------------------------------------------------

    def check(self) -> bool:
        """Every sentence of the model's answer against the sources; True when some hold."""
        assert self.built is not None
        t_check = time.perf_counter()
        self.checked = check_answer(self.raw, self.built.sources, self.embed, self.settings,
                                    self.question)
        self.timings["check_ms"] = round((time.perf_counter() - t_check) * 1000, 1)
        if self.checked.supported and self.checked.unsupported:
            self.notice = join(self.notice, left_out(self.checked.unsupported))
        return self.checked.supported

    # ---- stage 5: fall back -------------------------------------------------------------

    def fall_back(self) -> AskResult:
        """No supported answer from the model (or no model): the sources' own sentences
        when a source clearly answers, else the closest passage, else "couldn't find"."""
        if self.answerable != "yes":  # near the topic only: an extract would not answer
            return self.nearest()
        # The model wrote nothing a source backs (or there is none), but a source is close
        # to the question: answer with its own sentences, checked like any answer. No model
        # reads them, so they may come from more passages than the model's prompt held.
        s, model, built = self.settings, self.model, self.built
        assert built is not None
        t_extract = time.perf_counter()
        pool = built
        if self.found is not None and model is not None and not self.parts:
            pool = pack(self.found.evidence, self.budget or s.extract_token_budget,
                        model.tokenizer, self.question, s)
        extract = compose(self.question, pool.sources, self.embed, self.qvec, s)
        extracted = (check_answer(extract, pool.sources, self.embed, s, self.question)
                     if extract else None)
        if self.timings["first_token_ms"] is None:
            self.timings["first_token_ms"] = self.ms(time.perf_counter())
        self.timings["check_ms"] = round((time.perf_counter() - t_extract) * 1000, 1)
        if extracted is None or not extracted.supported:
            return self.nearest()
        if self.on_chunk and model is None:
            self.on_chunk(extracted.answer)
        if model is not None:
            self.notice = join(self.notice, "The model's own answer was not backed by your "
                                            "pages: this answer is made of their sentences.")
        return self.result(extracted.answer, True, extracted, self.raw or extract,
                           shown=None if pool is built else pool)

    def nearest(self) -> AskResult:
        """Search found a page near the question, but no answer is backed: its best
        passage, quoted (closest.py), rather than a bare refusal."""
        assert self.built is not None
        p = self.found.answerable if self.found is not None else None  # follow-up: None
        if p is not None and p < relevance.gauge().closest:
            return self.could_not_find()  # near the topic, not the question
        near = closest(self.question, self.built.sources, self.embed, self.qvec)
        if near is None:
            return self.could_not_find()
        if self.on_chunk and not self.raw:
            self.on_chunk(near.answer)
        self.notice = join(self.notice, "Nothing in your history backs an answer to this: "
                                        "here is the passage closest to it.")
        return self.result(near.answer, False, self.checked, self.raw, near=near)

    def could_not_find(self) -> AskResult:
        if self.on_chunk and not self.raw:  # nothing streamed yet: say it now
            self.on_chunk(COULD_NOT_FIND)
        return self.result(COULD_NOT_FIND, False, self.checked, self.raw)

    # ---- the answer ---------------------------------------------------------------------

    def result(self, answer: str, supported: bool, checked: Checked | None, raw: str,
               cancelled: bool = False, shown: BuiltContext | None = None,
               near: Closest | None = None) -> AskResult:
        """`shown`: the sources the answer cites, when not those the model read (the
        thread keeps those: a follow-up is prompted with them)."""
        built = self.built
        assert built is not None
        self.timings["total_ms"] = self.ms(time.perf_counter())
        cited = ([near.n] if near else sorted({n for c in checked.checks if c.status in SHOWN
                                               for n in c.sources}) if checked and supported
                 else [])
        self.notice = join(self.notice, language_note(self.question, (shown or built).sources,
                                                      cited))
        tid = None
        if built.sources and not cancelled:
            said = answer if supported else ""
            if shown is not None:  # its [Source N] are not the thread's numbering
                said = CITE.sub("", said)
            tid = self.answerer._keep_thread(self.thread_id if self.thread else None, built,
                                             [*self.turns, (self.question, said)])
        return AskResult(
            answer=answer, supported=supported,
            sources=[src.to_dict() for src in (shown or built).sources],
            citations=[near.citation()] if near else
            [c.to_dict() for c in checked.checks] if checked else [],
            unsupported=checked.unsupported if checked else [],
            timings=self.timings, model=self.model.name if self.model is not None else None,
            raw_answer=raw, notice=self.notice, cancelled=cancelled,
            context_tokens=built.total_tokens, facets=[f.to_dict() for f in self.parts],
            thread_id=tid, closest=near.to_dict() if near else None)


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
