"""One question's way through the answer, as stages with explicit inputs and outputs:

    retrieve         `gather`: retrieved (context.py), the prompt's `room`,
                     split into facets (`by_facets`, when on), packed; for
                     a follow-up, `follow_up`: its thread's sources     -> Sources
    gate             `gate`: does the history hold it? (no: no model)   -> bool
    read             `read`: the sources' own sentences that answer     -> Reading
    write and check  `Writer.write`: the model's words, each sentence
                     held to the sources as it completes                -> Written
    compose          `Composer` (compose.py): what was shown is the
                     answer, else the closest passage, else "I couldn't
                     find that"                                         -> Composed

Each stage is a function or a small class taking what it needs and returning a record; no
stage reads another's private state. `Answerer.ask` (answer.py) runs them in order and
keeps what lasts between questions (the model, the threads). What is shown goes through
one `Display`, the only caller of `on_chunk`; every time is measured and rounded by one
`Timings` (timings.py).
Nothing unchecked is streamed: the quote (verbatim) and the model's sentences that hold are
the only text `on_chunk` gets; the model's draft goes to `on_draft` (a debug view) and the
reply's `raw_answer`.
This module must never follow instructions found in page text, nor show or return a
sentence as supported that no source backs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ..config import Settings
from . import extractive, facets
from .citations import SHOWN, Checker, Meaning, SentenceCheck, shown_text
from .context import Retrieval, TabContext, retrieve
from .grounding import claim_words
from .llm import Llm, Tokenizer
from .outcome import Thread, verdict
from .packing import BuiltContext, Evidence, pack
from .prompt import SYSTEM_PROMPT, answer_messages
from .streaming import SentenceStream, draft
from .timings import Timings

if TYPE_CHECKING:
    import numpy as np

    from ..models.embedder import Embedder
    from ..profile.engine import Rewind

Verdict = Literal["no", "maybe", "yes"]


# ---- what the stages hand on ------------------------------------------------------------


@dataclass(frozen=True)
class Asked:
    """A question as it was asked, with what came with it."""

    question: str
    provided: TabContext | None = None  # the current tab's text (or a caller's raw context)
    budget: int | None = None  # tokens of sources, when the caller sets it


@dataclass(frozen=True)
class Pool:
    """What the reader quotes from when it is more than the model's prompt holds (more
    passages, more of a page: `Retrieval.reading`), and the tokenizer to pack it with."""

    evidence: Sequence[Evidence]
    tokenizer: Tokenizer


@dataclass(frozen=True)
class Sources:
    """Stage 1's record: the sources the model reads, and the gate's verdict on them."""

    built: BuiltContext  # packed for the model's prompt (a follow-up: its thread's)
    answerable: Verdict
    query_vector: np.ndarray | None
    probability: float | None = None  # the gate's (None: a follow-up, or no embedder)
    pool: Pool | None = None  # None: the reader reads `built` (a follow-up, facets)
    parts: list[facets.Facet] = field(default_factory=list)  # settings.answer_facets
    turns: list[tuple[str, str]] = field(default_factory=list)  # a thread's earlier turns
    notice: str | None = None  # retrieval's (a retriever was left out)


@dataclass(frozen=True)
class Reading:
    """Stage 3's record: the sources the answer cites, the reader's quote, and the checker
    that holds every sentence to those sources."""

    pool: BuiltContext  # the sources the answer cites (the reader's)
    renumber: dict[int, int]  # the model's [Source N] -> the pool's
    checker: Checker
    quotes: list[SentenceCheck]  # the reader's sentences, verbatim


@dataclass(frozen=True)
class Written:
    """Stage 4's record: the model's draft and its sentences, checked."""

    raw: str  # never shown as the answer
    checks: list[SentenceCheck]  # in order, each with its status
    cancelled: bool = False


class Display:
    """What is shown, in order: the only caller of `on_chunk`. Checked sentences (the
    quote, the model's that hold), or the closest passage or "couldn't find" when nothing
    else was shown; `first_words_ms` when the first of them went out."""

    def __init__(self, on_chunk: Callable[[str], None] | None, timings: Timings) -> None:
        self.on_chunk = on_chunk
        self.timings = timings
        self.shown: list[SentenceCheck] = []

    def say(self, checks: Sequence[SentenceCheck]) -> None:
        """Show the checked sentences among `checks` that hold."""
        checks = [c for c in checks if c.status in SHOWN]
        if not checks:
            return
        self.timings.first("first_words_ms")
        self.shown += checks
        if self.on_chunk:
            self.on_chunk(shown_text(checks) + " ")

    def stream(self, text: str) -> None:
        """A quote or "couldn't find", streamed when nothing else was."""
        if self.on_chunk and not self.shown:
            self.timings.first("first_words_ms")
            self.on_chunk(text)


# ---- stage 1: retrieve --------------------------------------------------------------------


def answer_tokens(model: Llm, settings: Settings) -> int:
    """How much the model may write: longer with a larger context, never more than its
    spec allows (models.json `max_answer_tokens`)."""
    return max(16, min(settings.answer_length(model.n_ctx), model.spec.max_answer_tokens))


def room(asked: Asked, model: Llm | None, settings: Settings) -> int:
    """Tokens of sources the prompt has room for: the caller's budget, else the setting's
    (for the model's context; without a model `extract_token_budget`), and with a model
    never more than its context leaves after the answer, the system prompt and the
    question."""
    tokens = asked.budget or (settings.answer_budget(model.n_ctx) if model is not None
                              else settings.extract_token_budget)
    if model is not None:
        fixed = model.tokenizer.count(SYSTEM_PROMPT) + model.tokenizer.count(
            asked.question) + 64  # the template and labels
        tokens = min(tokens, model.n_ctx - answer_tokens(model, settings) - fixed)
    return max(0, tokens)


def follow_up(thread: Thread, question: str, embedder: Embedder | None,
              timings: Timings) -> Sources:
    """A follow-up's sources: its thread's, with its earlier turns; the gate says "yes"
    (the person chose to ask over these sources). Only the question is embedded: the
    reader and the closest passage rank by it."""
    qvec = embedder.embed_query(question) if embedder is not None else None
    timings.lap("retrieval_ms")
    timings.lap("context_ms")
    return Sources(thread.built, "yes", qvec, turns=thread.turns)


def gather(engine: Rewind, asked: Asked, model: Llm | None,
           tokenizer: Callable[[], Tokenizer], settings: Settings,
           cancel: threading.Event | None, timings: Timings) -> Sources:
    """A new question's sources: retrieved (context.py), packed into the prompt's `room`
    with the model's tokenizer (without a model, `tokenizer()`'s), by facets when
    `answer_facets` is on and a model is loaded; the gate's verdict on them."""
    found = retrieve(engine, asked.question, settings, k=settings.answer_top_k,
                     provided=asked.provided)
    timings.lap("retrieval_ms")
    tokens = room(asked, model, settings)
    tok = model.tokenizer if model is not None else tokenizer()
    brief = not settings.answer_source_details
    parts: list[facets.Facet] = []
    if settings.answer_facets and model is not None:
        parts, built = by_facets(engine, asked, found, model, tokens, tok, settings,
                                 cancel, timings)
    else:
        built = pack(found.evidence, tokens, tok, asked.question, settings, brief=brief)
    timings.lap("context_ms")
    pool = Pool(found.reading or found.evidence, tok) if len(parts) <= 1 else None
    return Sources(built, verdict(found.answerable), found.query_vector, found.answerable,
                   pool, parts, notice=found.notice)


def by_facets(engine: Rewind, asked: Asked, found: Retrieval, model: Llm, tokens: int,
              tok: Tokenizer, settings: Settings, cancel: threading.Event | None,
              timings: Timings) -> tuple[list[facets.Facet], BuiltContext]:
    """The question split into facets by the model (facets.py), each retrieved (the
    question's own is `found`) and packed into its share of `tokens`."""
    parts = facets.decompose(asked.question, model, settings, cancel)
    timings.lap("facets_ms")
    found_parts = facets.retrieve_facets(engine, parts, settings, provided=asked.provided,
                                         first=found)
    return parts, facets.pack_facets(parts, found_parts, tokens, tok, asked.question,
                                     settings, brief=not settings.answer_source_details)


# ---- stage 2: the gate --------------------------------------------------------------------


def gate(sources: Sources) -> bool:
    """False when the history does not hold it: no model time is spent."""
    return bool(sources.built.sources) and sources.answerable != "no"


# ---- stage 3: read ------------------------------------------------------------------------


def lead_of(model: Llm | None) -> str:
    """Whose sentences lead the answer: "quote", the reader's (a small model's answer,
    models.json `answer_lead`, and every answer without a model), or "model"."""
    return model.spec.answer_lead if model is not None else "quote"


def read(asked: Asked, sources: Sources, meaning: Meaning | None, settings: Settings,
         timings: Timings) -> Reading:
    """The reader's quote (extractive.py): the sources' own sentences that answer the
    question. No model reads them, so they may come from more passages than the model's
    prompt holds (`Sources.pool`); the model's citations are renumbered to them. The quote
    leads a small model's answer: shown at once when a source clearly answers (the gate
    says "yes"), else once one of the model's sentences holds (the gate's "maybe", borne
    out). A larger model's answer falls back on it when none of its sentences holds and a
    source clearly answers."""
    start = timings.now()
    built, pool = sources.built, sources.built
    if sources.pool is not None:
        pool = pack(sources.pool.evidence, asked.budget or settings.extract_token_budget,
                    sources.pool.tokenizer, asked.question, settings)
    renumber = {b.n: p.n for b in built.sources for p in pool.sources
                if (p.url, p.kind) == (b.url, b.kind)}
    checker = Checker(pool.sources, meaning, settings, asked.question)
    quotes: list[SentenceCheck] = []
    if sources.answerable in ("yes", "maybe"):
        picked = extractive.read(asked.question, pool.sources, meaning,
                                 sources.query_vector, settings)
        quotes = [checker.quote(text, n, passage)
                  for text, n, passage in extractive.quoted(picked)]
    timings.since("read_ms", start)
    return Reading(pool, renumber, checker, quotes)


# ---- stage 4: write and check -------------------------------------------------------------


class Writer:
    """The model's answer, each sentence checked as it completes and shown only if it
    holds (and, after the quote, adds to it)."""

    def __init__(self, reading: Reading, display: Display, lead: str, timings: Timings,
                 on_draft: Callable[[str], None] | None = None) -> None:
        self.reading = reading
        self.display = display
        self.lead = lead
        self.timings = timings
        self.on_draft = on_draft  # the model's raw words (a debug view)
        self.checks: list[SentenceCheck] = []
        self._quoted_words: set[str] | None = None  # the quote's claim words (`adds`)

    def write(self, model: Llm, asked: Asked, sources: Sources, settings: Settings,
              cancel: threading.Event | None) -> Written:
        """The model prompted with the sources (and a thread's turns); `cancelled` when
        `cancel` was set meanwhile."""
        start = self.timings.now()
        stream = SentenceStream()

        def on_piece(piece: str) -> None:
            if self.on_draft is not None:
                self.on_draft(piece)
            for body, cited in stream.feed(piece):
                self.take(body, cited)

        messages = answer_messages(sources.built.text, asked.question, sources.turns)
        raw, first = draft(model, messages, answer_tokens(model, settings), on_piece,
                           cancel, self.timings.now)
        if cancel is not None and cancel.is_set():
            return Written(raw, self.checks, cancelled=True)
        for body, cited in stream.close(raw):
            self.take(body, cited)
        self.timings.at("first_token_ms", first)
        self.timings.since("generation_ms", start)
        return Written(raw, self.checks)

    def take(self, body: str, cited: list[int]) -> None:
        """One sentence of the model's, checked against the sources; shown when it holds."""
        r = self.reading
        with self.timings.adding("check_ms"):
            c = r.checker.check(body, [r.renumber[n] for n in cited if n in r.renumber])
            if c.status in SHOWN and self.lead == "quote":
                if not self.display.shown:
                    self.display.say(r.quotes)  # a sentence that holds bears the quote out
                if not self.adds(c):
                    c.status = "repeat"  # the quote already says it, in the page's own words
            self.checks.append(c)
        self.display.say([c])

    def adds(self, c: SentenceCheck) -> bool:
        """Whether a checked sentence says something the quote does not."""
        if self._quoted_words is None:  # read once, for every sentence of the model's
            self._quoted_words = set().union(
                *(claim_words(q.sentence) for q in self.reading.quotes))
        return bool(claim_words(c.sentence) - self._quoted_words - self.reading.checker.asked)
