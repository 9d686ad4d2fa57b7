"""Packing sources into a token budget, never over it (`build_context`, docs/answers.md).

Greedy, best first: each passage goes under its page's `[Source N]` (headers and fences
from prompt.py), counted with the answering model's own tokenizer. A passage too big for
the room left is trimmed to its sentences most about the query rather than dropped; the
packed text is counted whole at the end and cut until it fits (token counts of parts
need not add up).
This module must never retrieve (context.py does), and never pass page text on unfenced.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..config import Settings
from ..text import sentences, words
from .llm import Tokenizer
from .prompt import FENCE_CLOSE, PASSAGE_BREAK, clean, source_header


@dataclass
class Evidence:
    """One passage that may go into a context: from history, the current tab or raw context."""

    kind: str  # "history" | "tab" | "raw"
    text: str
    url: str
    title: str
    score: float  # ranking score within its kind, higher first
    similarity: float | None = None  # cosine with the query
    keyword: float | None = None  # BM25 score, when it matched
    quality: float = 0.5
    passage_id: int | None = None
    page_id: int | None = None
    position: int = 0
    visited_at: float | None = None
    visit_count: int = 0
    dwell_s: float = 0.0
    domain: str = ""
    vector: np.ndarray | None = field(default=None, repr=False)  # unit vector, when known
    # The page's passage just before this one (code and labels skipped), whose last
    # sentence a quote of this one's first may point back at ("The same technique…").
    before: str = field(default="", repr=False)

    @property
    def key(self) -> str:
        """Passages with the same key share one `[Source N]`."""
        return f"{self.kind}:{self.url}" if self.url else f"{self.kind}:"



@dataclass
class Source:
    n: int
    kind: str
    url: str
    title: str
    visited_at: float | None
    visit_count: int
    dwell_s: float
    passages: list[Evidence] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)  # as packed (trimmed ones are shorter)

    def to_dict(self) -> dict:
        return {
            "n": self.n,
            "kind": self.kind,
            "url": self.url,
            "title": self.title,
            "visited_at": self.visited_at,
            "visit_count": self.visit_count,
            "dwell_s": self.dwell_s,
            "passage": self.texts[0] if self.texts else "",
            "passages": [{"text": t, "position": p.position}
                         for t, p in zip(self.texts, self.passages, strict=True)],
        }


@dataclass
class Item:
    """One passage in the packed context (an entry of `build_context`'s `items`)."""

    source: int  # its [Source N]
    kind: str
    url: str
    title: str
    tokens: int  # of its text, plus its source's header when it opened the source
    trimmed: bool
    passage_id: int | None
    score: float

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "kind": self.kind,
            "url": self.url,
            "title": self.title,
            "tokens": self.tokens,
            "trimmed": self.trimmed,
            "passage_id": self.passage_id,
            "score": round(self.score, 4),
        }


@dataclass
class BuiltContext:
    text: str
    items: list[Item]
    sources: list[Source]
    total_tokens: int
    budget: int
    tokenizer: str
    took_ms: float = 0.0
    retrieval_ms: float = 0.0
    notice: str | None = None

    def to_dict(self) -> dict:
        return {
            "context": self.text,
            "total_tokens": self.total_tokens,
            "budget": self.budget,
            "items": [i.to_dict() for i in self.items],
            "sources": [s.to_dict() for s in self.sources],
            "tokenizer": self.tokenizer,
            "took_ms": round(self.took_ms, 2),
            "retrieval_ms": round(self.retrieval_ms, 2),
            "notice": self.notice,
        }


def header(n: int, ev: Evidence, brief: bool = False) -> str:
    return source_header(n, ev.kind, ev.title, ev.url, ev.visited_at, ev.visit_count,
                         ev.dwell_s, brief=brief)


def trim(text: str, room: int, query: str, tok: Tokenizer) -> str:
    """`text` cut to at most `room` tokens, keeping its sentences most about the query.

    Sentences are taken best first (words shared with the query, then earlier ones)
    while they fit, and put back in their order, with "…" where text was left out.
    """
    if room <= 0:
        return ""
    if tok.count(text) <= room:
        return text
    parts = sentences(text)
    qwords = set(words(query))
    order = sorted(range(len(parts)), key=lambda i: (-len(qwords & set(words(parts[i]))), i))
    chosen: list[int] = []
    for i in order:
        trial = sorted([*chosen, i])
        if tok.count(_join(parts, trial)) <= room:
            chosen = trial
    if chosen:
        out = _join(parts, chosen)
    else:  # not even one sentence fits: the best one, cut at a token
        out = tok.truncate(parts[order[0]] if parts else text, max(0, room - 1)).rstrip()
        out = out + "…" if out else ""
    n = room
    while out and tok.count(out) > room:  # tokenizers need not add up: make sure
        n -= 1
        out = tok.truncate(out, n)
    return out


def _join(parts: list[str], idx: list[int]) -> str:
    out = []
    for j, i in enumerate(idx):
        if j and i != idx[j - 1] + 1:
            out.append("…")
        out.append(parts[i])
    if idx and idx[0] != 0:
        out.insert(0, "…")
    if idx and idx[-1] != len(parts) - 1:
        out.append("…")
    return " ".join(out)


def render(sources: list[Source], brief: bool = False) -> str:
    blocks = []
    for src in sources:
        if not src.texts:
            continue
        blocks.append(header(src.n, src.passages[0], brief)
                      + PASSAGE_BREAK.join(src.texts) + "\n" + FENCE_CLOSE)
    return "\n\n".join(blocks)


def pack(
    evidence: Sequence[Evidence],
    budget: int,
    tok: Tokenizer,
    query: str,
    settings: Settings,
    *,
    brief: bool = False,
) -> BuiltContext:
    """Greedy packing, best first, never over `budget` tokens of the whole text. `brief`:
    one-line source headers (prompt.source_header), for the answering model."""
    t0 = time.perf_counter()
    budget = max(0, int(budget))
    sources: list[Source] = []
    by_key: dict[str, Source] = {}
    items: list[Item] = []
    used = 0
    for ev in evidence:
        body = clean(ev.text)
        if not body:
            continue
        src = by_key.get(ev.key)
        new_source = src is None
        n = len(sources) + 1 if new_source else src.n
        if new_source:
            overhead = tok.count(
                ("\n\n" if sources else "") + header(n, ev, brief) + "\n" + FENCE_CLOSE
            )
        else:
            overhead = tok.count(PASSAGE_BREAK)
        room = budget - used - overhead
        cost = tok.count(body)
        trimmed = False
        if cost > room:
            if room < settings.context_min_trim_tokens:
                continue  # a smaller passage further down may still fit
            body = trim(body, room, query, tok)
            if not body:
                continue
            cost, trimmed = tok.count(body), True
        if new_source:
            src = Source(n, ev.kind, ev.url, ev.title, ev.visited_at, ev.visit_count, ev.dwell_s)
            sources.append(src)
            by_key[ev.key] = src
        src.passages.append(ev)
        src.texts.append(body)
        items.append(
            Item(n, ev.kind, ev.url, ev.title, cost + overhead, trimmed, ev.passage_id, ev.score)
        )
        used += cost + overhead

    text = render(sources, brief)
    total = tok.count(text)
    # Token counts of parts need not add up to the count of the whole (merges across
    # joins): cut the last passage until the whole fits. Rare, and never more than a few.
    while total > budget and items:
        last = items[-1]
        src = next(s for s in sources if s.n == last.source)
        over = total - budget
        keep = tok.count(src.texts[-1]) - over - 1
        if keep >= settings.context_min_trim_tokens:
            src.texts[-1] = trim(src.texts[-1], keep, query, tok)
            last.tokens -= over + 1
            last.trimmed = True
        else:
            src.texts.pop()
            src.passages.pop()
            items.pop()
            if not src.texts:
                sources.remove(src)
        text = render(sources, brief)
        total = tok.count(text)
    return BuiltContext(
        text, items, sources, total, budget, tok.name, (time.perf_counter() - t0) * 1000
    )
