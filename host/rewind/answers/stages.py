"""One question's way through the answer, as named stages: retrieve (or a thread's
sources) and pack → gate (does the history hold it?) → read (the sources' own sentences
that answer it: the quote) → write and check (the model's words, each sentence held to the
sources as it completes) → compose (what was shown is the answer; else the closest passage,
else "I couldn't find that").

Nothing unchecked is streamed: the quote (verbatim) and the model's sentences that hold are
the only text `on_chunk` gets; the model's draft goes to `on_draft` (a debug view) and the
reply's `raw_answer`. `Question` holds what one question has gathered so far (its sources,
verdict, checks, timings, notice); `Answerer.ask` (answer.py) runs the stages in order.
This module must never follow instructions found in page text, nor show or return a
sentence as supported that no source backs.
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
from ..search import relevance
from . import facets
from .citations import (
    CITE,
    SHOWN,
    Checked,
    Checker,
    Meaning,
    SentenceCheck,
    shown_text,
)
from .closest import Closest, closest
from .context import Retrieval, TabContext, retrieve
from .extractive import quoted, read
from .grounding import claim_words
from .llm import Llm, Tokenizer
from .outcome import AskResult, Thread, join, language_note, left_out, verdict
from .packing import BuiltContext, pack
from .prompt import COULD_NOT_FIND, SYSTEM_PROMPT, answer_messages
from .streaming import SentenceStream

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
    embed: Meaning | None = None
    on_draft: Callable[[str], None] | None = None  # the model's raw words (a debug view)
    raw: str = ""  # the model's draft, never shown as the answer
    pool: BuiltContext | None = None  # the sources the answer cites (the reader's)
    renumber: dict[int, int] = field(default_factory=dict)  # model's [Source N] -> pool's
    checker: Checker | None = None
    lead: str = "quote"  # "quote": the reader's sentences lead; "model": the model's
    quotes: list[SentenceCheck] = field(default_factory=list)  # the reader's
    quoted_words: set[str] | None = None  # the quote's claim words (stages' `adds`)
    written: list[SentenceCheck] = field(default_factory=list)  # the model's, checked
    shown: list[SentenceCheck] = field(default_factory=list)  # streamed, in order
    check_s: float = 0.0

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

    # ---- stage 3: read ------------------------------------------------------------------

    def read(self) -> None:
        """The reader's quote (extractive.py): the sources' own sentences that answer the
        question. No model reads them, so they may come from more passages than the model's
        prompt holds (`pool`); the model's citations are renumbered to it. A small model's
        answer leads with the quote (models.json `answer_lead`): streamed at once when a
        source clearly answers (the gate says "yes"), else once one of the model's
        sentences holds (the gate's "maybe", borne out). A larger model's answer falls back
        on it when none of its sentences holds and a source clearly answers."""
        s, model, built = self.settings, self.model, self.built
        assert built is not None
        t_read = time.perf_counter()
        pool = built
        if self.found is not None and len(self.parts) <= 1:  # facets: the merged sources
            tok = model.tokenizer if model is not None else self.answerer.tokenizer()
            pool = pack(self.found.reading or self.found.evidence,
                        self.budget or s.extract_token_budget, tok, self.question, s)
        self.pool = pool
        self.renumber = {b.n: p.n for b in built.sources for p in pool.sources
                         if (p.url, p.kind) == (b.url, b.kind)}
        self.checker = Checker(pool.sources, self.embed, s, self.question)
        if self.answerable in ("yes", "maybe"):
            self.quotes = [self.checker.quote(text, n, passage)
                           for text, n, passage in quoted(read(self.question, pool.sources,
                                                               self.embed, self.qvec, s))]
        self.timings["read_ms"] = round((time.perf_counter() - t_read) * 1000, 1)
        self.lead = model.spec.answer_lead if model is not None else "quote"
        if self.lead == "quote" and self.answerable == "yes":
            self.say(self.quotes)

    # ---- stage 4: write and check -------------------------------------------------------

    def generate(self) -> bool:
        """The model's answer, each sentence checked as it completes and shown only if it
        holds (and, after the quote, adds to it); False when cancelled meanwhile."""
        assert self.model is not None and self.built is not None
        t_gen = time.perf_counter()
        stream = SentenceStream()

        def on_piece(piece: str) -> None:
            if self.on_draft is not None:
                self.on_draft(piece)
            for body, cited in stream.feed(piece):
                self.take(body, cited)

        self.raw, first = self.answerer._generate(
            self.model, answer_messages(self.built.text, self.question, self.turns),
            on_piece, self.cancel)
        if self.cancel is not None and self.cancel.is_set():
            return False
        for body, cited in stream.close(self.raw):
            self.take(body, cited)
        self.timings["first_token_ms"] = self.ms(first)
        self.timings["generation_ms"] = round((time.perf_counter() - t_gen) * 1000, 1)
        return True

    def take(self, body: str, cited: list[int]) -> None:
        """One sentence of the model's, checked against the sources; shown when it holds."""
        assert self.checker is not None
        t = time.perf_counter()
        c = self.checker.check(body, [self.renumber[n] for n in cited if n in self.renumber])
        if c.status in SHOWN and self.lead == "quote":
            if not self.shown:
                self.say(self.quotes)  # a sentence that holds bears the quote out
            if not self.adds(c):
                c.status = "repeat"  # the quote already says it, in the page's own words
        self.written.append(c)
        self.check_s += time.perf_counter() - t
        self.say([c])

    def adds(self, c: SentenceCheck) -> bool:
        """Whether a checked sentence says something the quote does not."""
        assert self.checker is not None
        if self.quoted_words is None:  # read once, for every sentence of the model's
            self.quoted_words = set().union(*(claim_words(q.sentence) for q in self.quotes))
        return bool(claim_words(c.sentence) - self.quoted_words - self.checker.asked)

    def say(self, checks: Sequence[SentenceCheck]) -> None:
        """Show checked sentences: the only text that is ever streamed."""
        checks = [c for c in checks if c.status in SHOWN]
        if not checks:
            return
        if self.timings.get("first_words_ms") is None:
            self.timings["first_words_ms"] = self.ms(time.perf_counter())
        self.shown += checks
        if self.on_chunk:
            self.on_chunk(shown_text(checks) + " ")

    # ---- stage 5: compose ---------------------------------------------------------------

    def compose(self) -> AskResult:
        """What was shown is the answer: the quote and the model's sentences that hold.
        A larger model with nothing that holds: the quote. Nothing at all: the closest
        passage, else "couldn't find"."""
        self.timings["check_ms"] = round(self.check_s * 1000, 1)
        if not self.shown and self.answerable == "yes":
            self.say(self.quotes)
        unsupported = [c.sentence for c in self.written if c.status == "unsupported"]
        if unsupported:
            self.notice = join(self.notice, left_out(unsupported))
        if not self.shown:
            return self.nearest()
        if self.model is not None and not any(c.status != "quoted" for c in self.shown):
            self.notice = join(self.notice, "The model's own words were not backed by your "
                                            "pages: the answer is their sentences.")
        shown = {id(c) for c in self.shown}
        checks = [*(q for q in self.quotes if id(q) in shown), *self.written]
        pool = self.pool
        return self.result(shown_text(self.shown), True,
                           Checked(shown_text(self.shown), checks, True, unsupported),
                           self.raw, shown=None if pool is self.built else pool)

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
        self.stream(near.answer)
        self.notice = join(self.notice, "Nothing in your history backs an answer to this: "
                                        "here is the passage closest to it.")
        return self.result(near.answer, False, self.unchecked(), self.raw, near=near)

    def could_not_find(self) -> AskResult:
        self.stream(COULD_NOT_FIND)
        return self.result(COULD_NOT_FIND, False, self.unchecked(), self.raw)

    def stream(self, text: str) -> None:
        """A quote or "couldn't find", streamed when nothing else was."""
        if self.on_chunk and not self.shown:
            if self.timings.get("first_words_ms") is None:
                self.timings["first_words_ms"] = self.ms(time.perf_counter())
            self.on_chunk(text)

    def unchecked(self) -> Checked | None:
        """The model's sentences, none of which holds (for the reply's `citations`)."""
        if not self.written:
            return None
        return Checked("", self.written, False,
                       [c.sentence for c in self.written if c.status == "unsupported"])

    def cancelled(self) -> AskResult:
        said = shown_text(self.shown)
        return self.result(said, False, self.unchecked(), self.raw, cancelled=True)

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
