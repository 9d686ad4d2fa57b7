"""Facets: a complex question split into sub-questions, each searched, the budget split.

The loaded LLM is asked once (short prompt, fixed sampling seed) for up to
`facet_count - 1` sub-questions with an importance 0..1 each; the question itself is
always kept as the first facet, importance 1.0, so a model that writes garbage leaves
the answer as good as without facets. Every facet is retrieved on its own (the question
with it first, the model's facets after it has written them: `context.retrieve_each`, one
searcher for them all), then packed into its share of the token budget,
share = budget * importance / sum(importance), most important first, a share left
unused passing to the next facet. A passage found by two facets is packed once, for
the more important one. The chosen passages are then packed together by one
`packing.pack` call: one [Source N] numbering, and its never-over-budget guarantee.
Off by default (`answer_facets`): the offline 135M model cannot decompose well.
This module must never pack past the budget itself (only `packing.pack` packs), never
run a facet the model wrote as anything but a search query, and never let a failed
or garbled decomposition fail the answer.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import RewindError
from ..text import words
from .context import Retrieval, TabContext, retrieve_each
from .llm import Llm, Tokenizer
from .packing import BuiltContext, Evidence, pack
from .prompt import FACETS_EXAMPLE_ANSWER, facets_messages

if TYPE_CHECKING:
    from ..profile.engine import Rewind

log = logging.getLogger(__name__)

_ITEM = re.compile(r"^\s*(?:\(?\d{1,2}\s*[.):]|[-*•])\s*(?P<rest>.+)$")
# At the end of a line: "(importance 0.8)", "- importance: 0.8", "(0.8)", "...? 0.8" or
# "20%"; a number without the word must look like 0..1, so "(2024)" stays in the question.
_NUM01 = r"(?:[01](?:\.\d+)?|\.\d+)"
_KEY = r"(?:importance|weight|score)\s*[:=]?\s*"
_IMPORTANCE = re.compile(
    r"(?:[\s,;:–—-]*(?:[(\[]\s*(?P<a>" + _NUM01 + r")\s*[)\]]"
    r"|[(\[]?\s*(?:" + _KEY + r")?(?P<p>\d{1,3}(?:\.\d+)?\s*%)\s*[)\]]?"
    r"|[(\[]?\s*" + _KEY + r"(?P<b>\d*\.?\d+)\s*[)\]]?)"
    r"|(?<=\?)[\s,;:–—-]*(?P<c>" + _NUM01 + r"))\s*\.?\s*$",
    re.IGNORECASE,
)
_LABEL = re.compile(r"^(?:sub-?question|question)\s*\d*\s*[:.]\s*", re.IGNORECASE)


@dataclass
class Facet:
    question: str
    importance: float  # 0..1; the original question is 1.0
    tokens: int = 0  # of the packed context taken by the passages this facet found

    def to_dict(self) -> dict:
        return {
            "question": self.question,
            "importance": round(self.importance, 3),
            "tokens": self.tokens,
        }


# ---- decomposition ------------------------------------------------------------------------


def _clean_question(text: str, settings: Settings) -> str:
    text = _LABEL.sub("", text.strip())
    text = text.strip().strip("*_`\"'“”‘’ ").strip()
    return re.sub(r"\s+", " ", text)[: settings.facet_max_chars].strip()


def _importance(value: Any, settings: Settings) -> float:
    """A number in 0..1; what is not a number gets the default importance."""
    try:
        if isinstance(value, str) and value.strip().endswith("%"):
            x = float(value.strip()[:-1]) / 100
        else:
            x = float(value)
    except (TypeError, ValueError):
        return settings.facet_default_importance
    return min(1.0, max(0.0, x)) if x == x else settings.facet_default_importance  # NaN


def _from_json(text: str) -> list[tuple[str, Any]] | None:
    """(question, importance) pairs from a JSON array in `text`, or None if there is none."""
    start, end = text.find("["), text.rfind("]")
    if start < 0 or end <= start:
        return None
    try:
        data = json.loads(text[start : end + 1])
    except ValueError:
        return None
    if not isinstance(data, list):
        return None
    out: list[tuple[str, Any]] = []
    for entry in data:
        if isinstance(entry, str):
            out.append((entry, None))
        elif isinstance(entry, dict):
            q = entry.get("question") or entry.get("q") or entry.get("text")
            if isinstance(q, str):
                out.append((q, entry.get("importance", entry.get("score"))))
    return out


def _from_lines(text: str) -> list[tuple[str, Any]]:
    """(question, importance) pairs from numbered or bulleted lines (or lines ending in ?)."""
    out: list[tuple[str, Any]] = []
    for line in text.splitlines():
        m = _ITEM.match(line)
        rest = m.group("rest") if m else line.strip()
        imp = _IMPORTANCE.search(rest)
        if imp:
            value = next(v for v in imp.groups() if v is not None)
            rest = rest[: imp.start()]
        else:
            value = None
        if m or rest.rstrip().endswith("?"):  # a bare line of prose is not a sub-question
            out.append((rest, value))
    return out


# A model that copies the example has not split this question.
_EXAMPLE_KEYS = {frozenset(words(q)) for q, _ in _from_lines(FACETS_EXAMPLE_ANSWER)}


def parse_facets(text: str, question: str, settings: Settings) -> list[Facet]:
    """The question itself (importance 1.0), then the model's sub-questions, defensively.

    Never more than `facet_count` facets; empty ones, duplicates (the same words in any
    order, the question itself included) and copies of the prompt's example are dropped.
    """
    facets = [Facet(question, 1.0)]
    seen = {frozenset(words(question))}
    pairs = _from_json(text)
    for raw, value in pairs if pairs else _from_lines(text):
        if len(facets) >= settings.facet_count:
            break
        q = _clean_question(raw, settings)
        key = frozenset(words(q))
        if len(key) < 2 or key in seen or key in _EXAMPLE_KEYS:
            continue
        seen.add(key)
        facets.append(Facet(q, _importance(value, settings)))
    return facets


def decompose(
    question: str, model: Llm, settings: Settings, cancel: threading.Event | None = None
) -> list[Facet]:
    """Facets of `question` from the loaded language model; the question alone on failure."""
    n = settings.facet_count - 1
    if n < 1:
        return [Facet(question, 1.0)]
    messages = facets_messages(question, n)
    text = ""
    try:
        stream = model.stream(messages, max_tokens=settings.facet_max_tokens, cancel=cancel)
        with contextlib.closing(stream):  # closing it frees the model for the answer
            for piece in stream:
                text += piece
                # Enough complete lines: further tokens only delay the answer.
                if "\n" in piece:
                    done = text[: text.rfind("\n")]
                    if len(parse_facets(done, question, settings)) >= settings.facet_count:
                        break
    except RewindError as exc:  # the answer itself may still work: answer without facets
        log.warning("facet decomposition failed: %s", exc.message)
        return [Facet(question, 1.0)]
    if getattr(model, "finish_reason", None) == "length":  # the last line was cut off
        text = text[: max(0, text.rfind("\n"))]
    return parse_facets(text, question, settings)


# ---- retrieval and packing ----------------------------------------------------------------


def retrieve_facets(
    engine: Rewind,
    facets: Sequence[Facet],
    settings: Settings,
    *,
    provided: TabContext | None = None,
    first: Retrieval | None = None,
) -> list[list[Evidence]]:
    """Each facet's passages (`context.retrieve_each`: one searcher for them all);
    `first`: facets[0]'s, already retrieved."""
    known = [first.evidence] if first is not None and facets else []
    todo = [f.question for f in facets[len(known):]]
    found = retrieve_each(engine, todo, settings, k=settings.answer_top_k,
                          provided=provided) if todo else []
    return known + [r.evidence for r in found]


def _identity(ev: Evidence) -> tuple:
    """The same passage found by two retrievals (two Evidence objects) has one identity."""
    return (ev.kind, ev.url, ev.passage_id if ev.passage_id is not None else ev.text)


def _packed(built: BuiltContext) -> list[tuple[Evidence, str]]:
    """(evidence, its text as packed) for each packed passage, in `built.items` order."""
    by_n = {s.n: s for s in built.sources}
    nth: dict[int, int] = {}
    out = []
    for item in built.items:  # pack appends a source's passages and its items in step
        k = nth.get(item.source, 0)
        nth[item.source] = k + 1
        src = by_n[item.source]
        out.append((src.passages[k], src.texts[k]))
    return out


def pack_facets(
    facets: Sequence[Facet],
    evidence: Sequence[Sequence[Evidence]],
    budget: int,
    tok: Tokenizer,
    question: str,
    settings: Settings,
    *,
    brief: bool = False,
) -> BuiltContext:
    """Each facet's passages packed into its share of `budget`, then all of them at once
    (`brief`: one-line source headers, as `packing.pack`).

    Sets each facet's `tokens`. Facets that found nothing get no share; facets are served
    most important first, so an unused share goes to the next and a passage two facets
    found counts for the more important one.
    """
    budget = max(0, int(budget))
    live = [i for i, found in enumerate(evidence) if found]
    order = sorted(live, key=lambda i: (-facets[i].importance, i))
    total = sum(facets[i].importance for i in live)
    taken: set[tuple] = set()
    chosen: dict[int, list[Evidence]] = {}
    carry = 0
    for i in order:
        imp = facets[i].importance
        share = int(budget * imp / total) if total > 0 else budget // len(live)
        fresh = [ev for ev in evidence[i] if _identity(ev) not in taken]
        # pack's own trimming, to the facet's question: the sentences about *this* facet
        part = pack(fresh, share + carry, tok, facets[i].question, settings, brief=brief)
        chosen[i] = [replace(ev, text=text) for ev, text in _packed(part)]
        taken |= {_identity(ev) for ev in chosen[i]}
        # items, not the whole text's count: the measure `tokens` is reported in below
        carry = max(0, share + carry - sum(item.tokens for item in part.items))
    # Round robin in importance order: every facet's best passage comes before any
    # facet's second, so if the whole must still be cut, the least useful goes.
    merged: list[Evidence] = []
    owner: dict[int, int] = {}
    for rank in range(max((len(v) for v in chosen.values()), default=0)):
        for i in order:
            if rank < len(chosen[i]):
                merged.append(chosen[i][rank])
                owner[id(chosen[i][rank])] = i
    built = pack(merged, budget, tok, question, settings, brief=brief)
    for facet in facets:
        facet.tokens = 0
    for (ev, _text), item in zip(_packed(built), built.items, strict=True):
        facets[owner[id(ev)]].tokens += item.tokens
    return built
