"""Answers from the history: retrieve, pack, prompt, stream, then check every citation.

The model is told to answer only from the numbered sources and to cite `[Source N]`
after each claim; a small local model often does neither, so citations.py checks every
sentence against the sources and the answer keeps only what they back. An answer with no
supported sentence becomes "I couldn't find that in your history." with the closest
pages. Without a language model the answer is extracted: the best sentences of the best
passages, cited and checked the same way, given only when some passage is close enough.
Streamed text is the model's own words as they come; the final answer is the checked
text, which replaces it. With `answer_facets` on and a model loaded, the question is
first split into facets, retrieved and packed by facets.py (off: unchanged).
This module must never follow instructions found in page text (it is fenced as data by
context.py), and never return a sentence as supported that no source backs.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from .. import config
from ..config import Settings
from ..errors import Code, RewindError
from ..text import SENTENCE_BREAK, content_words, sentences
from . import facets, llm
from .citations import CITE, Checked, Embed, check_answer, with_citations
from .context import TabContext, build_context, retrieve
from .llm import Llm
from .packing import BuiltContext, Source, pack
from .prompt import COULD_NOT_FIND, SYSTEM_PROMPT, answer_messages

if TYPE_CHECKING:
    from ..engine import Rewind


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


def could_not_find(sources: Sequence[Source], max_pages: int = 3) -> str:
    pages = [s for s in sources if s.kind == "history"][:max_pages] or list(sources[:max_pages])
    if not pages:
        return COULD_NOT_FIND
    listed = ", ".join(f"“{(s.title or s.url).strip()}” [Source {s.n}]" for s in pages)
    return f"{COULD_NOT_FIND} The closest pages: {listed}."


# ---- extractive answers (no language model) ------------------------------------------------


def extract_answer(
    question: str,
    sources: Sequence[Source],
    embed: Embed | None,
    qvec: np.ndarray | None,
    settings: Settings,
    max_sentences: int = 3,
    max_candidates: int = 40,
    per_source_max: int = 2,
    keep_share: float = 0.75,
) -> str:
    """The best sentences of the best sources, cited: an answer without a model."""
    qwords = content_words(question)
    cands: list[tuple[int, str]] = []
    for src in sources:
        for t in src.texts:
            for sent in sentences(t):
                n_words = len(sent.split())
                if (
                    len(content_words(sent)) >= settings.citation_min_words
                    and n_words <= 80
                    and not sent.rstrip(" …").endswith("?")
                ):  # a heading, not an answer
                    cands.append((src.n, sent.strip(" …")))
    cands = cands[:max_candidates]
    if not cands:
        return ""
    # Scored in its page's context: "Feed it once a day." says what "it" is only with
    # the title ("How to keep a sourdough starter alive") in front of it.
    title = {src.n: (src.title or "").strip() for src in sources}
    in_context = [f"{title[n]}: {s}" if title[n] else s for n, s in cands]
    overlap = np.array([len(qwords & content_words(s)) / (len(qwords) or 1) for s in in_context])
    if embed is not None and qvec is not None:
        sims = embed(in_context) @ qvec
        score = 0.7 * sims + 0.3 * overlap
    else:
        sims = None
        score = overlap
    picked: list[int] = []
    per_source: dict[int, int] = {}
    top = float(score.max())
    for i in np.argsort(-score, kind="stable"):
        n = cands[i][0]
        if per_source.get(n, 0) >= per_source_max:
            continue
        if sims is not None and sims[i] < settings.answer_min_similarity:
            break
        if sims is None and overlap[i] == 0:
            break
        if score[i] < keep_share * top:  # far below the best sentence: not the answer
            break
        picked.append(int(i))
        per_source[n] = per_source.get(n, 0) + 1
        if len(picked) >= max_sentences:
            break
    return " ".join(with_citations(cands[i][1], [cands[i][0]]) for i in picked)


def _confident(sources: Sequence[Source], threshold: float | None) -> bool:
    """Whether some packed passage is as close to the question as the embedding model's
    high-confidence cosine (always, when cosines are unknown: keyword-only evidence)."""
    if threshold is None:
        return True
    sims = [p.similarity for s in sources for p in s.passages if p.similarity is not None]
    return not sims or max(sims) >= threshold


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

    def to_dict(self) -> dict:
        return {
            "answer": self.answer,
            "supported": self.supported,
            "sources": self.sources,
            "citations": self.citations,
            "unsupported": self.unsupported,
            "timings": self.timings,
            "model": self.model,
            "notice": self.notice,
            "context_tokens": self.context_tokens,
            "raw_answer": self.raw_answer,
            "facets": self.facets,
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
        self._tokenizer: llm.Tokenizer | None = None
        self.llm_problem: RewindError | None = None
        self._lock = threading.Lock()

    @property
    def settings(self) -> Settings:
        return self.engine.settings  # set_settings may replace it between requests

    def llm(self) -> Llm | None:
        with self._lock:
            if not self._llm_tried:
                self._llm_tried = True
                if self.model != "auto":
                    self._llm = self.model
                else:
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
    ) -> AskResult:
        t0 = time.perf_counter()
        s = self.settings

        def ms(t: float | None) -> float | None:
            return None if t is None else round((t - t0) * 1000, 1)

        model = None if extractive else self.llm()  # loads it on the first question
        t_loaded = time.perf_counter()
        found = retrieve(self.engine, question, s, k=s.answer_top_k, provided=provided)
        t_retrieved = time.perf_counter()
        notice = found.notice
        if model is not None:
            tok: llm.Tokenizer = model.tokenizer
            max_new = max(16, min(s.answer_max_tokens, model.spec.max_answer_tokens))
            fixed = tok.count(SYSTEM_PROMPT) + tok.count(question) + 64  # template and labels
            room = min(budget or s.answer_token_budget, model.n_ctx - max_new - fixed)
        else:
            tok = self.tokenizer()
            room = budget or s.answer_token_budget
            if not extractive and self.llm_problem is not None:
                notice = (
                    f"{self.llm_problem.message} This answer is made of sentences from "
                    f"your pages. {self.llm_problem.hint}"
                ).strip()
        parts: list[facets.Facet] = []
        t_split = t_retrieved
        if s.answer_facets and model is not None:
            parts = facets.decompose(question, model, s, cancel)
            t_split = time.perf_counter()
            found_parts = facets.retrieve_facets(
                self.engine, parts, s, provided=provided, first=found
            )
            built: BuiltContext = facets.pack_facets(
                parts, found_parts, max(0, room), tok, question, s
            )
        else:
            built = pack(found.evidence, max(0, room), tok, question, s)
        t_packed = time.perf_counter()
        timings: dict[str, float | None] = {
            "load_ms": round((t_loaded - t0) * 1000, 1),  # the model, on the first question
            "retrieval_ms": round((t_retrieved - t_loaded) * 1000, 1),
            "facets_ms": round((t_split - t_retrieved) * 1000, 1) if parts else None,
            "context_ms": round((t_packed - t_split) * 1000, 1),  # facets: retrieval + packing
            "first_token_ms": None,
            "generation_ms": None,
            "check_ms": None,
            "total_ms": None,
        }

        def result(
            answer: str, supported: bool, checked: Checked | None, raw: str, cancelled: bool = False
        ) -> AskResult:
            timings["total_ms"] = ms(time.perf_counter())
            return AskResult(
                answer=answer,
                supported=supported,
                sources=[src.to_dict() for src in built.sources],
                citations=[c.to_dict() for c in checked.checks] if checked else [],
                unsupported=checked.unsupported if checked else [],
                timings=timings,
                model=model.name if model is not None else None,
                raw_answer=raw,
                notice=notice,
                cancelled=cancelled,
                context_tokens=built.total_tokens,
                facets=[f.to_dict() for f in parts],
            )

        if not built.sources:  # nothing in the history is even close: no model needed
            text = COULD_NOT_FIND
            if on_chunk:
                on_chunk(text)
            return result(text, False, None, "")
        embed = self._embed()
        raw = ""
        if model is not None:
            first: float | None = None
            pieces: list[str] = []
            t_gen = time.perf_counter()
            repeating = RepeatGuard()
            stopped = False
            for piece in model.stream(
                answer_messages(built.text, question), max_tokens=max_new, cancel=cancel
            ):
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
            timings["first_token_ms"] = ms(first)
            timings["generation_ms"] = round((time.perf_counter() - t_gen) * 1000, 1)
        else:
            if not _confident(built.sources, found.confident_similarity):
                # No model to judge whether the passages answer: only near-topic passages
                # (bench/answers.py, held-out questions) get "couldn't find", not extracts.
                text = could_not_find(built.sources)
                if on_chunk:
                    on_chunk(text)
                return result(text, False, None, "")
            raw = extract_answer(question, built.sources, embed, found.query_vector, s)
            timings["first_token_ms"] = ms(time.perf_counter())
            if on_chunk and raw:
                on_chunk(raw)
        if cancel is not None and cancel.is_set():
            return result(raw, False, None, raw, cancelled=True)
        t_check = time.perf_counter()
        checked = check_answer(raw, built.sources, embed, s, question)
        timings["check_ms"] = round((time.perf_counter() - t_check) * 1000, 1)
        if not checked.supported:
            return result(could_not_find(built.sources), False, checked, raw)
        if checked.unsupported:
            n = len(checked.unsupported)
            left_out = (
                f"{n} sentence{'s were' if n > 1 else ' was'} left out of the "
                f"answer: nothing in your history supports {'them' if n > 1 else 'it'}."
            )
            notice = f"{notice} {left_out}" if notice else left_out
        return result(checked.answer, True, checked, raw)
