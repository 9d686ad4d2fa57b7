"""`rewind models recommend`: which answering model suits this machine, why, and its cost.

The choice: the largest model (by parameters) whose memory fits in
`recommend_memory_share` of the machine's memory and whose first words, for the answer
budget its context gets, would come within `recommend_max_wait_s` (8 s: a person waits
that long for an answer; `rewind models recommend --patience S` asks for another limit);
a model whose licence allows non-commercial use only is listed but not recommended (Rewind
may be used at work). Beside it, the model answers use now, so that a person sees what
the change gains and what it costs (`gains`, `costs`). Memory is
catalog.memory_bytes; speed is what bench/perf/ladder.py measured here (models.json
"measured"), scaled to the threads the host reads prompts with; a model without a
measurement is extrapolated from the offline default's. Every figure is an estimate and
says so. This module must never download or load a model.
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import Settings
from . import catalog, installed
from .specs import LlmSpec, Measured, load_specs

PROMPT_OVERHEAD = 120  # tokens of system prompt, question and chat template (SmolLM2: ~115)
GIB = 1024**3


@dataclass(frozen=True)
class Machine:
    memory_bytes: int
    available_bytes: int | None  # free now (None: the OS does not say)
    cores: int


def _memory() -> tuple[int, int | None]:
    if os.name == "nt":  # GlobalMemoryStatusEx: no sysconf on Windows
        class Status(ctypes.Structure):
            _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong),
                        ("total", ctypes.c_ulonglong), ("avail", ctypes.c_ulonglong),
                        ("_rest", ctypes.c_ulonglong * 5)]

        st = Status()
        st.length = ctypes.sizeof(Status)
        ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(st))  # type: ignore[attr-defined]
        return int(st.total), int(st.avail)
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    available = None
    try:
        with open("/proc/meminfo") as fh:  # Linux; elsewhere the total must do
            for line in fh:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
    except OSError:
        pass
    return total, available


def this_machine() -> Machine:
    total, available = _memory()
    try:
        cores = len(os.sched_getaffinity(0))  # the cores this process may use
    except AttributeError:
        cores = os.cpu_count() or 1
    return Machine(total, available, cores)


@dataclass(frozen=True)
class Estimate:
    """One model on one machine: what it would cost, estimated."""

    spec: LlmSpec
    memory_bytes: int | None
    budget: int  # source tokens an answer gets with its context
    length: int  # answer tokens at most
    first_words_s: float | None
    tokens_per_s: float | None  # writing the answer
    measured: str  # how the speed is known: Measured.how, or "extrapolated" | "unknown"
    fits: bool  # in the memory an answering model may take
    quick_enough: bool  # (or its speed is unknown: memory alone decides)
    installed: bool

    @property
    def speed(self) -> str:
        s = self.first_words_s
        if s is None:
            return "unknown"
        return "fast" if s <= 2 else "moderate" if s <= 8 else "slow" if s <= 20 else "very slow"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.spec.name, **catalog.facts(self.spec),
            "memory_bytes": self.memory_bytes, "answer_token_budget": self.budget,
            "answer_max_tokens": self.length,
            "first_words_s": None if self.first_words_s is None else round(self.first_words_s, 1),
            "tokens_per_s": None if self.tokens_per_s is None else round(self.tokens_per_s, 1),
            "speed": self.speed, "speed_from": self.measured, "fits": self.fits,
            "quick_enough": self.quick_enough, "installed": self.installed,
        }


@dataclass
class Recommendation:
    machine: Machine
    allowed_bytes: int  # memory an answering model may take here
    threads: int  # the host reads prompts with this many
    choice: Estimate
    reason: str
    options: list[Estimate]
    notes: list[str] = field(default_factory=list)
    current: Estimate | None = None  # the model answers use now (None: none installed)
    max_wait_s: float = 0.0  # the wait for first words the choice was made with

    @property
    def gains(self) -> list[str]:
        """What answering with the choice instead of the current model gives, in phrases."""
        c, now = self.choice, self.current
        if now is None:
            return ["answers written by a language model instead of sentences picked from "
                    "your pages"]
        if now.spec.name == c.spec.name:
            return []
        out = []
        if c.spec.parameters_b > now.spec.parameters_b:
            out.append(f"a model with {c.spec.parameters_b / now.spec.parameters_b:.0f}x the "
                       f"parameters of {now.spec.label or now.spec.name} "
                       f"({_params(c.spec.parameters_b)} instead of "
                       f"{_params(now.spec.parameters_b)}); how much better its answers "
                       "are was not measured here")
        if c.budget > now.budget:
            out.append(f"{c.budget:,} tokens of your pages per answer instead of {now.budget:,}")
        if c.length > now.length:
            out.append(f"answers up to {c.length:,} tokens instead of {now.length:,}")
        return out

    @property
    def costs(self) -> list[str]:
        """What the choice costs over the current model, in phrases."""
        c, now = self.choice, self.current
        if now is not None and now.spec.name == c.spec.name:
            return []
        out = []
        if not c.installed and c.spec.file_bytes:
            out.append(f"a {c.spec.file_bytes / 1e9:.2f} GB download")
        was = f" instead of {gib(now.memory_bytes)}" if now is not None else ""
        out.append(f"{gib(c.memory_bytes)} of memory while answering{was}")
        if c.first_words_s is not None:
            was = (f" instead of ~{now.first_words_s:.0f} s"
                   if now is not None and now.first_words_s is not None else "")
            out.append(f"first words after ~{c.first_words_s:.0f} s{was}")
        if c.tokens_per_s is not None and now is not None and now.tokens_per_s \
                and c.tokens_per_s < now.tokens_per_s:
            out.append(f"writing at ~{c.tokens_per_s:.0f} tokens/s instead of "
                       f"~{now.tokens_per_s:.0f}")
        return out

    def to_dict(self) -> dict[str, Any]:
        m = self.machine
        return {
            "machine": {"memory_bytes": m.memory_bytes, "available_bytes": m.available_bytes,
                        "cores": m.cores},
            "allowed_bytes": self.allowed_bytes, "threads": self.threads,
            "choice": self.choice.to_dict(), "reason": self.reason,
            "options": [o.to_dict() for o in self.options], "notes": self.notes,
            "current": self.current.to_dict() if self.current else None,
            "gains": self.gains, "costs": self.costs,
            "max_wait_s": self.max_wait_s,
        }


def _reference(specs: list[LlmSpec]) -> LlmSpec | None:
    """The model measured with the model itself (the offline default), to extrapolate from."""
    real = [s for s in specs if s.measured and s.measured.how == "model"]
    return real[0] if real else None


def _speed(spec: LlmSpec, ref: LlmSpec | None, threads: int, prompt_tokens: int
           ) -> tuple[float | None, float | None, str]:
    """(first words s, answer tokens/s, how it is known), for `threads` threads reading the
    prompt. Reading is compute-bound: it scales with threads and, extrapolated, with
    parameters; writing (one thread) with the bytes of weights read per token."""
    m = spec.measured
    how = m.how if m is not None else "extrapolated"
    if m is None:
        if ref is None or ref.measured is None or not spec.parameters_b or not spec.file_bytes:
            return None, None, "unknown"
        r = ref.measured
        prompt = r.prompt_tokens_per_s * ref.parameters_b / spec.parameters_b
        answer = r.answer_tokens_per_s * (ref.file_bytes or 0) / spec.file_bytes
        m = Measured(prompt, answer, r.threads, 0, "extrapolated")
    prompt_rate = m.prompt_tokens_per_s * threads / m.threads
    return prompt_tokens / prompt_rate, m.answer_tokens_per_s, how


def reading_threads(machine: Machine, settings: Settings) -> int:
    """The threads the host reads a prompt with on `machine` (answers/llm.py)."""
    return max(1, min(machine.cores, settings.llm_batch_threads))


def estimate(spec: LlmSpec, machine: Machine, settings: Settings, ref: LlmSpec | None,
             allowed: int, installed: bool = False) -> Estimate:
    threads = reading_threads(machine, settings)
    budget = settings.answer_budget(spec.n_ctx)
    length = min(settings.answer_length(spec.n_ctx), spec.max_answer_tokens)
    first, rate, how = _speed(spec, ref, threads, budget + PROMPT_OVERHEAD)
    memory = catalog.memory_bytes(spec)
    return Estimate(
        spec=spec, memory_bytes=memory, budget=budget, length=length, first_words_s=first,
        tokens_per_s=rate, measured=how, fits=memory is not None and memory <= allowed,
        quick_enough=first is None or first <= settings.recommend_max_wait_s,
        installed=installed)


def recommend(machine: Machine, settings: Settings, model_dir: Path | None = None,
              specs: list[LlmSpec] | None = None) -> Recommendation:
    """The model to use on `machine`, with every catalog model's estimate beside it and
    the one answers use now (`settings.llm_model`, else the largest installed)."""
    specs = specs if specs is not None else list(load_specs().llm.values())
    ref = _reference(specs)
    allowed = int(machine.memory_bytes * settings.recommend_memory_share)
    threads = reading_threads(machine, settings)
    options = [
        estimate(s, machine, settings, ref, allowed,
                 model_dir is not None and installed.status(s, model_dir).installed)
        for s in specs
    ]
    options.sort(key=lambda e: (e.spec.parameters_b, -(e.memory_bytes or 0)))
    good = [e for e in options if e.fits and e.quick_enough and _commercial(e.spec)]
    share = f"{settings.recommend_memory_share:.0%} of {gib(machine.memory_bytes)}"
    wait = f"{settings.recommend_max_wait_s:g} s"
    if good:
        choice = good[-1]
        reason = (f"the largest model that fits in {gib(allowed)} ({share}) and whose first "
                  f"words would come within {wait} with {threads} thread"
                  f"{'s' if threads > 1 else ''}")
        nxt = next((e for e in options if e.spec.parameters_b > choice.spec.parameters_b), None)
        if nxt is not None:
            reason += f"; the next larger, {nxt.spec.name}, " + (
                f"needs {gib(nxt.memory_bytes)}" if not nxt.fits else
                f"would take about {nxt.first_words_s:.0f} s before its first words"
                if not nxt.quick_enough else "is licensed for non-commercial use only")
    else:  # not even the offline default fits: it is still the least demanding
        choice = min(options, key=lambda e: e.memory_bytes or 0)
        reason = (f"no model fits in {gib(allowed)} ({share}) with first words within {wait}; "
                  "this one needs the least")
    notes = [
        "Every figure is an estimate: memory and speed were measured by bench/perf/ladder.py on "
        "stand-ins of each model's shape (random weights) on a 2-core machine, and scaled "
        "to the threads Rewind reads sources with here (llm_batch_threads). Only the offline "
        "default's answers were tried; the larger models were not run.",
    ]
    if choice.spec.licence and choice.spec.licence.use:
        notes.append(f"{choice.spec.name}'s licence: {choice.spec.licence.name}, "
                     f"{choice.spec.licence.use}.")
    if machine.available_bytes is not None and choice.memory_bytes is not None \
            and choice.memory_bytes > machine.available_bytes:
        notes.append(f"Only {gib(machine.available_bytes)} is free now: close other programs "
                     "before the first question, or it will be slow to load.")
    used = next((e for e in options if e.installed and e.spec.name == settings.llm_model),
                None) or max((e for e in options if e.installed),
                             key=lambda e: e.spec.file_bytes or 0,
                             default=None)  # what `rewind ask` picks: set, else the largest
    if used is not None and not settings.llm_model \
            and (used.spec.file_bytes or 0) > (choice.spec.file_bytes or 0):
        notes.append(f"`rewind ask` uses {used.spec.name} now (the largest installed), which "
                     f"is more than this machine suits; `rewind ask --model "
                     f"{choice.spec.name}` uses the recommended one.")
    elif not choice.installed:
        notes.append("Once pulled, `rewind ask` uses it without any setting (the largest "
                     "installed).")
    return Recommendation(machine, allowed, threads, choice, reason, options, notes, used,
                          settings.recommend_max_wait_s)


def _commercial(spec: LlmSpec) -> bool:
    return spec.licence is None or spec.licence.commercial


def _params(b: float) -> str:
    return f"{b * 1000:.0f}M" if b < 1 else f"{b:.1f}B"


def gib(n: int | None) -> str:
    return "?" if n is None else f"{n / GIB:.1f} GiB"
