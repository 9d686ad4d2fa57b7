"""Answers from the history: retrieve, pack, prompt, stream, then check every citation.

The model is told to answer only from the numbered sources and to cite `[Source N]` after
each claim; a small local model often does neither, so citations.py checks every sentence
against the passages and the answer keeps only what they back. When the model's answer has
no supported sentence but a source clearly answers (the relevance gate says so), the answer
is made of the sources' own sentences (extractive.py), checked the same way; without a
language model that is the answer too. Otherwise, when search found a page near the
question, its best passage itself, quoted and cited (closest.py: `outcome` "closest", not
`supported`); when nothing is near (the gate says "no"): "I couldn't find that in your
history.", with the closest pages as the sources. Streamed text is the model's own words
as they come; the final answer is the checked text, which replaces it. A follow-up
(`thread_id`) is asked over the same sources, with the thread's earlier turns, so llama.cpp
reuses its prompt.
With `answer_facets` on and a model loaded, the question is first split into facets,
retrieved and packed by facets.py (off: unchanged).
This module must never follow instructions found in page text (it is fenced as data by
prompt.py), and never return a sentence as supported that no source backs.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .. import config
from ..config import Settings
from ..errors import Code, RewindError
from ..search import relevance
from ..text import SENTENCE_BREAK, content_words
from . import facets, llm
from .citations import CITE, Checked, Embed, check_answer
from .closest import Closest, closest
from .context import TabContext, build_context, retrieve
from .extractive import compose
from .llm import Llm
from .packing import BuiltContext, pack
from .prompt import COULD_NOT_FIND, SYSTEM_PROMPT, answer_messages

if TYPE_CHECKING:
    from ..engine import Rewind

MAX_THREADS = 8  # follow-up threads kept per connection (the oldest is forgotten)


class RepeatGuard:
    """Tells when a streamed answer starts saying a sentence again (small models loop)."""

    def __init__(self) -> None:
        self._seen: set[frozenset[str]] = set()
        self._done = 0

    def __call__(self, text: str) -> bool:
        complete = SENTENCE_BREAK.split(text)[:-1]
        for piece in complete[self._done :]:
            key = frozenset(content_words(CITE.sub("", piece)))
            if len(key) >= 2 and key in self._seen:
                return True
            self._seen.add(key)
        self._done = len(complete)
        return False


def drop_fragment(text: str) -> str:
    """The text without a last sentence cut off in the middle (the model ran out of tokens)."""
    stripped = text.rstrip()
    if re.search(r"[.!?][\"'”’)\]]*$", stripped) or CITE.search(stripped[-16:]):
        return stripped
    cut = max(
        stripped.rfind(". "),
        stripped.rfind("! "),
        stripped.rfind("? "),
        stripped.rfind(".\n"),
        stripped.rfind("\n"),
    )
    return stripped[: cut + 1] if cut > 0 else stripped


# ---- asking -------------------------------------------------------------------------------


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


class Answerer:
    """Answers over one engine. Loads the language model on first use and keeps it.

    `model`: "auto" loads the installed model on the first question; an `Llm` answers
    with that one (tests: llm.ScriptedLlm); None answers with extracts only.
    """

    def __init__(self, engine: Rewind, model_dir: Path | None = None,
                 model: Llm | None | Literal["auto"] = "auto") -> None:
        self.engine = engine
        self.model_dir = model_dir or config.model_dir()
        self.model = model
        self._llm: Llm | None = None
        self._llm_tried = False
        self._chosen = ""  # _choice() when the model was loaded
        self._tokenizer: llm.Tokenizer | None = None
        self.llm_problem: RewindError | None = None
        self._lock = threading.Lock()
        self._threads: OrderedDict[str, Thread] = OrderedDict()

    @property
    def settings(self) -> Settings:
        return self.engine.settings  # set_settings may replace it between requests

    def llm(self) -> Llm | None:
        """The answering model, loaded on first use. With "auto", a change of the model a
        question would be answered with (a setting, a model pulled meanwhile) is noticed
        here, before the question: the old one is closed by the thread that used it."""
        with self._lock:
            if self.model == "auto" and self._llm_tried and self._choice() != self._chosen:
                if self._llm is not None:
                    self._llm.close()
                self._llm, self._llm_tried, self._tokenizer = None, False, None
                self.llm_problem = None
            if not self._llm_tried:
                self._llm_tried = True
                if self.model != "auto":
                    self._llm = self.model
                else:
                    self._chosen = self._choice()
                    try:
                        spec = llm.choose_spec(self.settings, self.model_dir)
                        if spec is None:
                            raise RewindError(
                                Code.MODEL_MISSING,
                                "No language model is installed.",
                                llm.INSTALL_HINT,
                            )
                        self._llm = llm.GgufLlm(spec, self.model_dir, self.settings)
                    except RewindError as exc:
                        self.llm_problem = exc
            return self._llm

    def _choice(self) -> str:
        """Which model a question would be answered with now (or why none), as a key."""
        try:
            spec = llm.choose_spec(self.settings, self.model_dir)
        except RewindError as exc:
            return f"! {exc.message}"
        return spec.name if spec is not None else ""

    def tokenizer(self) -> llm.Tokenizer:
        """The answering model's tokenizer, without loading its weights if not loaded yet."""
        if self._llm is not None:
            return self._llm.tokenizer
        if self._tokenizer is None:
            try:
                spec = llm.choose_spec(self.settings, self.model_dir)
                if spec is not None:
                    self._tokenizer = llm.tokenizer(spec, self.model_dir)
            except RewindError:
                pass
            if self._tokenizer is None:
                emb = self.engine.embedder()
                self._tokenizer = llm.EmbedderTokenizer(emb) if emb else llm.WordTokenizer()
        return self._tokenizer

    def close(self) -> None:
        if self._llm is not None and self.model == "auto":
            self._llm.close()
        self._llm, self._llm_tried = None, False

    def _embed(self) -> Embed | None:
        emb = self.engine.embedder()
        return emb.embed_documents if emb is not None else None

    def build_context(
        self, query: str, raw_context: str | None, budget: int, provided: TabContext | None = None
    ) -> BuiltContext:
        return build_context(
            self.engine,
            query,
            raw_context,
            budget,
            self.tokenizer(),
            self.settings,
            provided=provided,
        )

    def ask(
        self,
        question: str,
        *,
        provided: TabContext | None = None,
        budget: int | None = None,
        on_chunk: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        extractive: bool = False,
        thread_id: str | None = None,
    ) -> AskResult:
        t0 = time.perf_counter()
        s = self.settings

        def ms(t: float | None) -> float | None:
            return None if t is None else round((t - t0) * 1000, 1)

        model = None if extractive else self.llm()  # loads it on the first question
        t_loaded = time.perf_counter()
        notice = None
        if model is None and not extractive and self.llm_problem is not None:
            notice = (f"{self.llm_problem.message} This answer is made of sentences from "
                      f"your pages. {self.llm_problem.hint}").strip()
        thread = self._threads.get(thread_id) if thread_id else None
        if thread_id and thread is None:
            notice = _join(notice, "That conversation is no longer kept: this question was "
                                   "asked afresh.")
        parts: list[facets.Facet] = []
        found = None  # a follow-up is asked over its thread's sources, not retrieved afresh
        if thread is not None:  # a follow-up: the thread's sources, its earlier turns
            built, turns = thread.built, thread.turns
            emb = self.engine.embedder()
            qvec = emb.embed_query(question) if emb is not None else None
            answerable = "yes"  # the person chose to ask over these sources
            t_retrieved = t_split = time.perf_counter()
        else:
            turns = []
            found = retrieve(self.engine, question, s, k=s.answer_top_k, provided=provided)
            t_retrieved = time.perf_counter()
            notice = _join(found.notice, notice)
            qvec = found.query_vector
            room = budget or (s.answer_budget(model.n_ctx) if model is not None
                              else s.extract_token_budget)
            if model is not None:
                max_new = self._max_new(model)
                fixed = model.tokenizer.count(SYSTEM_PROMPT) + model.tokenizer.count(
                    question) + 64  # the template and labels
                room = min(room, model.n_ctx - max_new - fixed)
            tok = model.tokenizer if model is not None else self.tokenizer()
            t_split = t_retrieved
            if s.answer_facets and model is not None:
                parts = facets.decompose(question, model, s, cancel)
                t_split = time.perf_counter()
                found_parts = facets.retrieve_facets(
                    self.engine, parts, s, provided=provided, first=found)
                built = facets.pack_facets(parts, found_parts, max(0, room), tok, question, s)
            else:
                built = pack(found.evidence, max(0, room), tok, question, s)
            answerable = verdict(found.answerable)
        t_packed = time.perf_counter()
        timings: dict[str, float | None] = {
            "load_ms": round((t_loaded - t0) * 1000, 1),  # the model, on the first question
            "retrieval_ms": round((t_retrieved - t_loaded) * 1000, 1),
            "facets_ms": round((t_split - t_retrieved) * 1000, 1) if parts else None,
            "context_ms": round((t_packed - t_split) * 1000, 1),  # facets: retrieval + packing
            "first_token_ms": None, "generation_ms": None, "check_ms": None, "total_ms": None,
        }

        def result(answer: str, supported: bool, checked: Checked | None, raw: str,
                   cancelled: bool = False, shown: BuiltContext | None = None,
                   near: Closest | None = None) -> AskResult:
            """`shown`: the sources the answer cites, when not those the model read (the
            thread keeps those: a follow-up is prompted with them)."""
            timings["total_ms"] = ms(time.perf_counter())
            tid = None
            if built.sources and not cancelled:
                said = answer if supported else ""
                if shown is not None:  # its [Source N] are not the thread's numbering
                    said = CITE.sub("", said)
                tid = self._keep_thread(thread_id if thread else None, built,
                                        [*turns, (question, said)])
            return AskResult(
                answer=answer, supported=supported,
                sources=[src.to_dict() for src in (shown or built).sources],
                citations=[near.citation()] if near else
                [c.to_dict() for c in checked.checks] if checked else [],
                unsupported=checked.unsupported if checked else [],
                timings=timings, model=model.name if model is not None else None,
                raw_answer=raw, notice=notice, cancelled=cancelled,
                context_tokens=built.total_tokens, facets=[f.to_dict() for f in parts],
                thread_id=tid, closest=near.to_dict() if near else None)

        def could_not_find(checked: Checked | None = None, raw: str = "") -> AskResult:
            if on_chunk and not raw:  # nothing streamed yet: say it now
                on_chunk(COULD_NOT_FIND)
            return result(COULD_NOT_FIND, False, checked, raw)

        def nearest(checked: Checked | None, raw: str) -> AskResult:
            """Search found a page near the question, but no answer is backed: its best
            passage, quoted (closest.py), rather than a bare refusal."""
            nonlocal notice
            p = found.answerable if found is not None else None  # a follow-up: its sources
            if p is not None and p < relevance.gauge().closest:
                return could_not_find(checked, raw)  # near the topic, not the question
            near = closest(question, built.sources, embed, qvec)
            if near is None:
                return could_not_find(checked, raw)
            if on_chunk and not raw:
                on_chunk(near.answer)
            notice = _join(notice, "Nothing in your history backs an answer to this: here is "
                                   "the passage closest to it.")
            return result(near.answer, False, checked, raw, near=near)

        if not built.sources or answerable == "no":  # the history does not hold it: no
            return could_not_find()  # model time spent (its closest pages are the sources)
        embed = self._embed()
        raw = ""
        checked: Checked | None = None
        if model is not None:
            t_gen = time.perf_counter()
            raw, first = self._generate(model, answer_messages(built.text, question, turns),
                                        on_chunk, cancel)
            timings["first_token_ms"] = ms(first)
            timings["generation_ms"] = round((time.perf_counter() - t_gen) * 1000, 1)
            if cancel is not None and cancel.is_set():
                return result(raw, False, None, raw, cancelled=True)
            t_check = time.perf_counter()
            checked = check_answer(raw, built.sources, embed, s, question)
            timings["check_ms"] = round((time.perf_counter() - t_check) * 1000, 1)
            if checked.supported:
                if checked.unsupported:
                    notice = _join(notice, _left_out(checked.unsupported))
                return result(checked.answer, True, checked, raw)
        if answerable != "yes":  # near the topic only: an extract would not answer
            return nearest(checked, raw)
        # The model wrote nothing a source backs (or there is none), but a source is close
        # to the question: answer with its own sentences, checked like any answer. No model
        # reads them, so they may come from more passages than the model's prompt held.
        t_extract = time.perf_counter()
        pool = built
        if found is not None and model is not None and not parts:
            pool = pack(found.evidence, budget or s.extract_token_budget, model.tokenizer,
                        question, s)
        extract = compose(question, pool.sources, embed, qvec, s)
        extracted = check_answer(extract, pool.sources, embed, s, question) if extract else None
        if timings["first_token_ms"] is None:
            timings["first_token_ms"] = ms(time.perf_counter())
        timings["check_ms"] = round((time.perf_counter() - t_extract) * 1000, 1)
        if extracted is None or not extracted.supported:
            return nearest(checked, raw)
        if on_chunk and model is None:
            on_chunk(extracted.answer)
        if model is not None:
            notice = _join(notice, "The model's own answer was not backed by your pages: "
                                   "this answer is made of their sentences.")
        return result(extracted.answer, True, extracted, raw or extract,
                      shown=None if pool is built else pool)

    # ---- helpers ------------------------------------------------------------------------

    def _max_new(self, model: Llm) -> int:
        length = self.settings.answer_length(model.n_ctx)  # longer with a larger context
        return max(16, min(length, model.spec.max_answer_tokens))

    def _generate(self, model: Llm, messages: list[dict[str, str]],
                  on_chunk: Callable[[str], None] | None, cancel: threading.Event | None
                  ) -> tuple[str, float | None]:
        """The model's answer as it streams (sent on as it comes), and when its first
        word came; stops early when it only says again what it said."""
        first: float | None = None
        pieces: list[str] = []
        repeating = RepeatGuard()
        stopped = False
        for piece in model.stream(messages, max_tokens=self._max_new(model), cancel=cancel):
            if first is None and piece.strip():
                first = time.perf_counter()
            pieces.append(piece)
            if on_chunk:
                on_chunk(piece)
            if piece.strip() and repeating("".join(pieces)):
                stopped = True  # it only says it again from here on: stop paying for it
                break
        raw = "".join(pieces)
        if stopped or model.finish_reason == "length":
            raw = drop_fragment(raw)
        return raw, first

    def _keep_thread(self, thread_id: str | None, built: BuiltContext,
                     turns: list[tuple[str, str]]) -> str:
        with self._lock:
            tid = thread_id or secrets.token_hex(6)
            self._threads[tid] = Thread(built, turns)
            self._threads.move_to_end(tid)
            while len(self._threads) > MAX_THREADS:
                self._threads.popitem(last=False)
            return tid


@dataclass
class Thread:
    """A conversation's sources and its turns so far (question, checked answer)."""

    built: BuiltContext
    turns: list[tuple[str, str]]


def verdict(p: float | None) -> Literal["no", "maybe", "yes"]:
    """The relevance gate on a question (search/relevance.py): "no", the history does not
    hold it (couldn't find, no model run); "yes", a source clearly answers (its own
    sentences may stand in for a model answer no source backs); "maybe", the model and
    the citation checker decide. Without an embedder (p None) the words decide: "yes"."""
    if p is None:
        return "yes"
    g = relevance.gauge()
    return "no" if p < g.refuse else "yes" if p >= g.extract else "maybe"


def _join(*notes: str | None) -> str | None:
    return " ".join(n for n in notes if n) or None


def _left_out(unsupported: list[str]) -> str:
    n = len(unsupported)
    return (f"{n} sentence{'s were' if n > 1 else ' was'} left out of the answer: nothing "
            f"in your history supports {'them' if n > 1 else 'it'}.")
