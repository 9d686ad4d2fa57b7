"""Answers from the history: retrieve, pack, read, prompt, then check every sentence.

The model is told to answer only from the numbered sources and to cite `[Source N]` after
each claim; a small local model often does neither, so citations.py holds every sentence
to the passages' words as it completes, and only what they back is shown. When a source
clearly answers (the relevance gate says so), its own sentences that answer are quoted
(extractive.py, the reader): they lead a small model's answer, are the answer without a
language model, and stand in for a larger model's answer when none of its sentences holds.
Otherwise, when search found a page near the question, its best passage itself, quoted and
cited (closest.py: `outcome` "closest", not `supported`); when nothing is near (the gate
says "no"): "I couldn't find that in your history.", with the closest pages as the
sources. Nothing unchecked is streamed: the model's draft is only in `raw_answer` and the
`on_draft` debug view. A follow-up (`thread_id`) is asked over the same sources, with the
thread's earlier turns, so llama.cpp reuses its prompt.
With `answer_facets` on and a model loaded, the question is first split into facets,
retrieved and packed by facets.py (off: unchanged).
`Answerer.ask` runs the stages of stages.py in order, each handed what it needs and handing
on a record; the `Answerer` keeps what lasts between questions: the model (loaded on the
first question, let go at rest) and the conversations kept for follow-ups (`Threads`).
This module must never follow instructions found in page text (it is fenced as data by
prompt.py), and never return a sentence as supported that no source backs.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .. import config
from ..config import Settings
from ..errors import Code, RewindError
from . import llm
from .citations import Meaning
from .compose import Composed, Composer
from .context import TabContext, build_context
from .llm import Llm
from .outcome import AskResult, Threads, join
from .packing import BuiltContext
from .stages import Asked, Display, Writer, follow_up, gate, gather, lead_of, read
from .timings import Timings

if TYPE_CHECKING:
    from ..profile.engine import Rewind

THREAD_GONE = "That conversation is no longer kept: this question was asked afresh."


# ---- asking -------------------------------------------------------------------------------


class Answerer:
    """Answers over one engine. Loads the language model on first use and keeps it until
    `let_go` (the host's resting: unused for a while) closes it; the next question loads it
    again.

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
        self.threads = Threads()  # the conversations a follow-up may be asked in
        # Resting (native/resting.py): the questions and contexts under way, and when the
        # last one ended; the model is let go only with none under way.
        self.clock: Callable[[], float] = time.monotonic
        self._users = 0
        self._last_used = self.clock()

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

    # ---- resting ------------------------------------------------------------------------

    @contextmanager
    def in_use(self) -> Iterator[None]:
        """A question or a context under way: the model is not let go meanwhile."""
        with self._lock:
            self._users += 1
        try:
            yield
        finally:
            with self._lock:
                self._users -= 1
                self._last_used = self.clock()

    def idle_since(self) -> float | None:
        """When the loaded model was last used (`clock`); None when nothing is loaded that
        `let_go` would let go, inf while a question is under way."""
        with self._lock:
            if self.model != "auto" or (self._llm is None and self._tokenizer is None):
                return None
            return math.inf if self._users else self._last_used

    def let_go(self, idle_s: float) -> bool:
        """Close the model (and its vocabulary) if unused for `idle_s` seconds; the next
        question loads it again. A model given to the constructor is never let go."""
        with self._lock:
            since = self._last_used
            if self.model != "auto" or self._users or self.clock() - since < idle_s:
                return False
            if self._llm is None and self._tokenizer is None:
                return False
            if self._llm is not None:
                self._llm.close()
            self._llm, self._llm_tried, self._tokenizer = None, False, None
            self.llm_problem = None
            return True

    def build_context(
        self, query: str, raw_context: str | None, budget: int, provided: TabContext | None = None
    ) -> BuiltContext:
        with self.in_use():
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
        on_draft: Callable[[str], None] | None = None,
    ) -> AskResult:
        """Answer `question` from the history, in stages (stages.py): retrieve and pack →
        gate → read → write and check → compose. `on_chunk` gets checked text only, as it
        is checked; `on_draft`, the model's own words as they come (a debug view)."""
        timings = Timings()
        asked = Asked(question, provided, budget)
        with self.in_use():
            model, notice = self._model_for(extractive)  # loaded on the first question
            timings.lap("load_ms")
            thread = self.threads.get(thread_id) if thread_id else None
            if thread_id and thread is None:
                notice = join(notice, THREAD_GONE)
            s, embedder = self.settings, self.engine.embedder()
            sources = (follow_up(thread, question, embedder, timings) if thread is not None
                       else gather(self.engine, asked, model, self.tokenizer, s, cancel,
                                   timings))
            display = Display(on_chunk, timings)
            composer = Composer(asked, sources, display, timings,
                                model.name if model is not None else None,
                                join(sources.notice, notice))
            asked_in = thread_id if thread is not None else None
            if not gate(sources):
                # the history does not hold it: no model time spent, the closest pages
                # are the sources
                return self._keep(composer.could_not_find(), asked_in)
            meaning = Meaning.of(embedder)
            reading = read(asked, sources, meaning, s, timings)
            lead = lead_of(model)
            if lead == "quote" and sources.answerable == "yes":
                display.say(reading.quotes)  # a source clearly answers: its words first
            written = None
            if model is not None:
                written = Writer(reading, display, lead, timings, on_draft).write(
                    model, asked, sources, s, cancel)
                if written.cancelled:
                    return self._keep(composer.cancelled(written), asked_in)
            return self._keep(composer.answer(reading, written, meaning), asked_in)

    # ---- helpers ------------------------------------------------------------------------

    def _model_for(self, extractive: bool) -> tuple[Llm | None, str | None]:
        """The model a question is answered with (None: extracts only), and the notice
        when one was wanted but none could be loaded."""
        model = None if extractive else self.llm()
        if model is None and not extractive and self.llm_problem is not None:
            return None, (f"{self.llm_problem.message} This answer is made of sentences "
                          f"from your pages. {self.llm_problem.hint}").strip()
        return model, None

    def _keep(self, composed: Composed, thread_id: str | None) -> AskResult:
        """The reply, its conversation kept for a follow-up (under `thread_id`, the one it
        was asked in, else a new one) with its id."""
        if composed.thread is not None:
            composed.result.thread_id = self.threads.keep(
                thread_id, composed.thread, self.settings.answer_threads_kept)
        return composed.result
