"""Context for answers and for other local AI tools: retrieve passages, pack them to a budget.

`retrieve` ranks *passages*, not pages: the passages search retrieves and fuses
(search/retrieve.py, the one retrieval path), those close enough to the question kept,
passage quality weighted in, at most 2 passages per page and 3 pages per domain; the
current tab's text (or any raw context a caller gives) is chunked, ranked against the
query and interleaved with the history, so both always reach the model. The searcher is
opened once for all of it (`retrieve_each`: once for a question's facets too).
`build_context` is what other local AI tools get (`rewind context`, the MCP server;
docs/answers.md): the packed text, the items used with their token counts and the
total, counted with the answering model's own tokenizer. The total is never over the
budget: the packed text is counted whole at the end and cut until it fits. A passage
too big for the room left is trimmed to its most relevant sentences rather than
dropped. Each source is labelled `[Source N]` with its title, URL, last visit, visit
count and reading time; page text is fenced as data.
This module must never write to the store, and never pass page text on unfenced.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..capture import urls
from ..capture.chunker import chunk_blocks
from ..capture.extract import text_document
from ..config import Settings
from ..errors import RewindError
from ..models.cosine_scale import calibrated
from ..search import Searcher, SearchQuery, relevance
from ..text import words
from .llm import Tokenizer
from .packing import BuiltContext, Evidence, pack

if TYPE_CHECKING:
    from ..models.embedder import Embedder
    from ..profile.engine import Rewind


@dataclass
class Retrieval:
    evidence: list[Evidence]  # ranked, provided context interleaved with history
    took_ms: float
    query_vector: np.ndarray | None
    notice: str | None = None
    # The history passages as search ranked them (Searcher.passages), before the evidence
    # gate, quality weighting and diversity: ask and search fuse a query the same way.
    candidates: list[int] = field(default_factory=list)
    # The relevance gate's probability that the history answers the question (None: no
    # embedder, so no cosine to judge by).
    answerable: float | None = None
    # What the reader picks sentences from (extractive.py): more passages, and more of a
    # page, than the model's prompt can hold (`reader_passages`, `reader_passages_per_page`).
    reading: list[Evidence] = field(default_factory=list)


@dataclass
class TabContext:
    """Text the caller gives with the query: the current tab, or build_context's raw context."""

    text: str
    url: str = ""
    title: str = ""
    kind: str = "tab"  # "tab" | "raw"


# Each word a given passage shares with the query adds this to its cosine: a nudge that
# orders passages about equally close in meaning, and without an embedder (no cosine)
# orders them alone.
SHARED_WORD_TIEBREAK = 0.01


# ---- retrieval ----------------------------------------------------------------------------


def _diverse(ranked: list[Evidence], k: int, per_page: int, per_domain: int) -> list[Evidence]:
    """The best `k` in order, at most `per_page` passages a page and `per_domain` pages a site."""
    out: list[Evidence] = []
    by_page: dict[int | None, int] = {}
    pages_of_domain: dict[str, set[int | None]] = {}
    for ev in ranked:
        if len(out) >= k:
            break
        if by_page.get(ev.page_id, 0) >= per_page:
            continue
        pages = pages_of_domain.setdefault(ev.domain, set())
        if ev.page_id not in pages and len(pages) >= per_domain:
            continue
        pages.add(ev.page_id)
        by_page[ev.page_id] = by_page.get(ev.page_id, 0) + 1
        out.append(ev)
    return out


def history_evidence(
    searcher: Searcher, query: str, settings: Settings, k: int
) -> tuple[list[Evidence], Retrieval]:
    """The best `k` passages of the history for `query`, from search's own ranking: those
    close enough to be evidence, weighted by quality, at most 2 a page and 3 pages a site."""
    s = settings
    found = searcher.passages(SearchQuery(query))
    meta = Retrieval([], found.took_ms, found.query_vector, found.notice("the sources"),
                     candidates=[h.passage_id for h in found.hits])
    if not found.hits:
        meta.answerable = 0.0
        return [], meta
    if found.query_vector is not None:
        reading = relevance.read(searcher, query, found, [])
        meta.answerable = relevance.gauge().answerable.probability(reading.query)
    hi, lo = found.hits[0].score, found.hits[-1].score
    passages = searcher.passage_records(h.passage_id for h in found.hits)
    pages = searcher.pages({page_id for page_id, _ in passages.values()})
    w = s.answer_quality_weight
    ranked: list[Evidence] = []
    for h in found.hits:
        page_id, p = passages.get(h.passage_id, (h.page_id, None))
        page = pages.get(page_id)
        if page is None or p is None or p.is_title:  # deleted meanwhile; a title is no evidence
            continue
        if h.similarity is not None:
            # the threshold is on the reference scale (models/cosine_scale.py)
            evidence = calibrated(searcher.confidence, h.similarity) >= s.answer_min_similarity
        else:  # no embedder: the words must carry it
            evidence = found.keyword_share(h) >= s.answer_min_keyword_share
        if not evidence:
            continue
        rel = (h.score - lo) / (hi - lo) if hi > lo else 1.0  # 0..1 in this query
        ranked.append(Evidence(
            kind="history", text=p.text, url=page.url, title=page.title,
            score=(1 - w) * rel + w * p.quality, similarity=h.similarity,
            keyword=h.keyword, quality=p.quality, passage_id=h.passage_id, page_id=page_id,
            position=p.position, visited_at=page.last_visit, visit_count=page.visit_count,
            dwell_s=page.dwell_s, domain=page.domain))
    ranked.sort(key=lambda e: (-e.score, e.passage_id or 0))
    chosen = _diverse(ranked, k, s.answer_passages_per_page, s.answer_pages_per_domain)
    meta.reading = _diverse(ranked, max(k, s.reader_passages), s.reader_passages_per_page,
                            s.answer_pages_per_domain)
    _passages_before(searcher, meta.reading)
    both = list({id(e): e for e in [*chosen, *meta.reading]}.values())
    vecs = searcher.vectors_for([e.passage_id for e in both]) if both else None
    if vecs is not None and found.query_vector is not None:
        for e, v in zip(both, vecs, strict=True):
            e.vector = v if np.any(v) else None
    return chosen, meta


_CODE_ONLY = re.compile(r"^\s*(?:>>>|›››|\$ |#|\{|<)")


def _passages_before(searcher: Searcher, reading: list[Evidence]) -> None:
    """Each passage's `before`: its page's passage before it, a code example or a label
    between them skipped (one read for all the pages)."""
    pages = {e.page_id for e in reading if e.page_id is not None}
    if not pages:
        return
    by_page: dict[int, dict[int, str]] = {}
    for _pid, page_id, p in searcher.store.passages_of(pages):
        by_page.setdefault(page_id, {})[p.position] = p.text
    for e in reading:
        texts = by_page.get(e.page_id or -1, {})
        for back in (1, 2, 3):
            text = texts.get(e.position - back, "")
            if text and not _CODE_ONLY.match(text) and re.search(r"[.!?:]\s*$", text):
                e.before = text
                break


def provided_evidence(
    ctx: TabContext,
    query: str,
    qvec: np.ndarray | None,
    embed: Callable[[Sequence[str]], np.ndarray] | None,
    settings: Settings,
    k: int,
) -> list[Evidence]:
    """The best `k` passages of text the caller gave (the tab, raw context), ranked by cosine.

    Only a shortlist (`provided_shortlist`, by words shared with the query) is embedded: a
    long page has hundreds of passages and embedding them all would take seconds.
    """
    doc = text_document(ctx.text, ctx.title)
    _text, chunks = chunk_blocks(doc.blocks, settings,
                                 max_passages=settings.max_passages_per_document)
    if not chunks:
        cut = ctx.text.strip()[: settings.max_passage_chars]
        if not cut:
            return []
        chunks_text = [cut]
        qualities = [0.5]
    else:
        chunks_text = [c.text for c in chunks]
        qualities = [c.quality for c in chunks]
    qwords = set(words(query))
    overlap = [len(qwords & set(words(t))) for t in chunks_text]
    shortlist = settings.provided_shortlist
    order = sorted(range(len(chunks_text)), key=lambda i: (-overlap[i], i))[:shortlist]
    sims: dict[int, float] = {}
    vecs: dict[int, np.ndarray] = {}
    if embed is not None and qvec is not None and order:
        mat = embed([chunks_text[i] for i in order])
        for i, v in zip(order, mat, strict=True):
            sims[i], vecs[i] = float(v @ qvec), v
    nudge = SHARED_WORD_TIEBREAK
    ranked = sorted(order, key=lambda i: (-(sims.get(i, 0.0) + nudge * overlap[i]), i))[:k]
    return [
        Evidence(
            kind=ctx.kind,
            text=chunks_text[i],
            url=ctx.url,
            title=ctx.title,
            score=sims.get(i, 0.0),
            similarity=sims.get(i),
            quality=qualities[i],
            position=i,
            vector=vecs.get(i),
        )
        for i in ranked
    ]


def interleave(first: list[Evidence], second: list[Evidence]) -> list[Evidence]:
    """a1, b1, a2, b2, ...: provided context and history both reach a small budget."""
    out: list[Evidence] = []
    for i in range(max(len(first), len(second))):
        out += first[i : i + 1] + second[i : i + 1]
    return out


def retrieve(
    engine: Rewind, query: str, settings: Settings, *, k: int,
    provided: TabContext | None = None
) -> Retrieval:
    """History passages for `query`, with the provided text's best passages interleaved."""
    return retrieve_each(engine, [query], settings, k=k, provided=provided)[0]


def retrieve_each(
    engine: Rewind, queries: Sequence[str], settings: Settings, *, k: int,
    provided: TabContext | None = None
) -> list[Retrieval]:
    """`retrieve` for each query (a question, or its facets), the searcher opened once for
    all of them: it holds the vectors' lock, so it is never held while a model writes."""
    given = provided if provided is not None and provided.text.strip() else None
    emb = engine.embedder() if given is not None else None
    out: list[Retrieval] = []
    t0 = time.perf_counter()  # the first one's time counts the opening
    with engine.searcher() as searcher:
        for query in queries:
            history, found = history_evidence(searcher, query, settings, k)
            if given is not None:
                history = _with_provided(searcher, found, history, given, query, emb,
                                         settings, k)
            found.evidence = history
            t1 = time.perf_counter()
            found.took_ms, t0 = (t1 - t0) * 1000, t1
            out.append(found)
    return out


def _with_provided(searcher: Searcher, found: Retrieval, history: list[Evidence],
                   provided: TabContext, query: str, emb: Embedder | None,
                   settings: Settings, k: int) -> list[Evidence]:
    """The history's passages with the provided text's best interleaved (the tab itself
    once, when it is also in the history); `found.reading` likewise, and the gate's
    probability raised when the tab holds what the history lacks."""
    n = settings.tab_passages if provided.kind == "tab" else k
    extra = provided_evidence(
        provided, query, found.query_vector, emb.embed_documents if emb else None,
        settings, n)
    reading = found.reading
    if provided.url:  # the tab itself, when it is also in the history: once is enough
        try:
            same = urls.normalize(provided.url, settings.max_url_chars)
        except RewindError:
            same = provided.url
        history = [e for e in history if e.url not in (same, provided.url)]
        reading = [e for e in reading if e.url not in (same, provided.url)]
    found.reading = interleave(extra, reading)
    if extra and found.answerable is not None:  # the tab may hold what history lacks
        signals = relevance.read_provided(searcher, query, [e.text for e in extra],
                                          [e.similarity for e in extra])
        found.answerable = max(found.answerable,
                               relevance.gauge().answerable.probability(signals))
    return interleave(extra, history)


def build_context(
    engine: Rewind,
    query: str,
    raw_context: str | None,
    token_budget: int,
    tok: Tokenizer,
    settings: Settings,
    *,
    provided: TabContext | None = None,
    k: int | None = None,
) -> BuiltContext:
    """Relevant history (and the raw context) packed into `token_budget` tokens: what
    `rewind context` and the MCP server give other AI tools (docs/answers.md)."""
    t0 = time.perf_counter()
    if provided is None and raw_context and raw_context.strip():
        provided = TabContext(raw_context, kind="raw")
    found = retrieve(
        engine, query, settings, k=k or settings.context_passages, provided=provided
    )
    built = pack(found.evidence, token_budget, tok, query, settings)
    built.retrieval_ms = found.took_ms
    built.took_ms = (time.perf_counter() - t0) * 1000
    built.notice = found.notice
    return built
