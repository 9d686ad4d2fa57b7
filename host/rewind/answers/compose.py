"""Stage 5 of an answer (stages.py): the reply. What was shown is the answer: the quote and
the model's sentences that hold. A larger model with nothing that holds: the quote. Nothing
at all: the closest passage (closest.py), when search found a page near the question, else
"I couldn't find that". The reply says which (`AskResult.outcome`), what was unusual
(`notice`), and the conversation a follow-up is asked in (`Composed.thread`; the answerer
keeps it).
This module must never show a sentence no source backs (it shows only through `Display`,
which shows only checked sentences), nor call supported an answer that shows none.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..search import relevance
from .citations import CITE, SHOWN, Checked, Meaning, shown_text
from .closest import Closest, closest
from .outcome import AskResult, Thread, join, language_note, left_out
from .packing import BuiltContext
from .prompt import COULD_NOT_FIND
from .stages import Asked, Display, Reading, Sources, Written
from .timings import Timings


@dataclass(frozen=True)
class Composed:
    """Stage 5's record: the reply, and the conversation a follow-up is asked in (None:
    nothing to keep, no sources or cancelled); the answerer keeps it and says its id."""

    result: AskResult
    thread: Thread | None



def unchecked(written: Written | None) -> Checked | None:
    """The model's sentences, none of which holds (for the reply's `citations`)."""
    if written is None or not written.checks:
        return None
    return Checked("", written.checks, False,
                   [c.sentence for c in written.checks if c.status == "unsupported"])


@dataclass
class Composer:
    """The reply. What was shown is the answer: the quote and the model's sentences that
    hold. A larger model with nothing that holds: the quote. Nothing at all: the closest
    passage, else "couldn't find"."""

    asked: Asked
    sources: Sources
    display: Display
    timings: Timings
    model: str | None  # the name of the model that wrote (None: extracts only)
    notice: str | None  # what was unusual, gathered in the order it happened

    def answer(self, reading: Reading, written: Written | None,
               meaning: Meaning | None) -> Composed:
        """After the reader (and the model): what was shown, else the nearest passage."""
        self.timings.settle("check_ms")
        if not self.display.shown and self.sources.answerable == "yes":
            self.display.say(reading.quotes)
        checks = written.checks if written is not None else []
        unsupported = [c.sentence for c in checks if c.status == "unsupported"]
        if unsupported:
            self.notice = join(self.notice, left_out(unsupported))
        if not self.display.shown:
            return self.nearest(written, meaning)
        if self.model is not None and not any(c.status != "quoted"
                                              for c in self.display.shown):
            self.notice = join(self.notice, "The model's own words were not backed by your "
                                            "pages: the answer is their sentences.")
        shown = {id(c) for c in self.display.shown}
        said = shown_text(self.display.shown)
        kept = [*(q for q in reading.quotes if id(q) in shown), *checks]
        return self.result(said, True, Checked(said, kept, True, unsupported),
                           written.raw if written is not None else "",
                           shown=None if reading.pool is self.sources.built else reading.pool)

    def nearest(self, written: Written | None, meaning: Meaning | None) -> Composed:
        """Search found a page near the question, but no answer is backed: its best
        passage, quoted (closest.py), rather than a bare refusal."""
        p = self.sources.probability
        if p is not None and p < relevance.gauge().closest:
            return self.could_not_find(written)  # near the topic, not the question
        near = closest(self.asked.question, self.sources.built.sources, meaning,
                       self.sources.query_vector)
        if near is None:
            return self.could_not_find(written)
        self.display.stream(near.answer)
        self.notice = join(self.notice, "Nothing in your history backs an answer to this: "
                                        "here is the passage closest to it.")
        return self.result(near.answer, False, unchecked(written),
                           written.raw if written is not None else "", near=near)

    def could_not_find(self, written: Written | None = None) -> Composed:
        self.display.stream(COULD_NOT_FIND)
        return self.result(COULD_NOT_FIND, False, unchecked(written),
                           written.raw if written is not None else "")

    def cancelled(self, written: Written) -> Composed:
        return self.result(shown_text(self.display.shown), False, unchecked(written),
                           written.raw, cancelled=True)

    def result(self, answer: str, supported: bool, checked: Checked | None, raw: str,
               cancelled: bool = False, shown: BuiltContext | None = None,
               near: Closest | None = None) -> Composed:
        """`shown`: the sources the answer cites, when not those the model read (the
        thread keeps those: a follow-up is prompted with them)."""
        built, question = self.sources.built, self.asked.question
        self.timings.elapsed("total_ms")
        cited = ([near.n] if near else sorted({n for c in checked.checks if c.status in SHOWN
                                               for n in c.sources}) if checked and supported
                 else [])
        self.notice = join(self.notice, language_note(question, (shown or built).sources,
                                                      cited))
        thread = None
        if built.sources and not cancelled:
            said = answer if supported else ""
            if shown is not None:  # its [Source N] are not the thread's numbering
                said = CITE.sub("", said)
            thread = Thread(built, [*self.sources.turns, (question, said)])
        return Composed(AskResult(
            answer=answer, supported=supported,
            sources=[src.to_dict() for src in (shown or built).sources],
            citations=[near.citation()] if near else
            [c.to_dict() for c in checked.checks] if checked else [],
            unsupported=checked.unsupported if checked else [],
            timings=self.timings.ms, model=self.model, raw_answer=raw, notice=self.notice,
            cancelled=cancelled, context_tokens=built.total_tokens,
            facets=[f.to_dict() for f in self.sources.parts],
            closest=near.to_dict() if near else None), thread)
