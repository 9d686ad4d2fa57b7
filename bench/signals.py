"""Retrieval signals of one question, for fitting an answerability gate (issue 11).

Job: given an open engine, a question and the engine's own search results for it, compute
cheap per-question features from the engine's retrievers as they are: dense cosine scores
(top, margin to another page, WIG- and NQC-like spread), BM25 (top, gap to another page, top
divided by the query's self-score = the sum of its terms' IDF, so it compares across
queries), agreement between the two (same first page, overlap of their top 5 pages, the rank
of each one's first page in the other's list) and coverage of the question's terms by the
first result's passage (IDF-weighted, rare terms, numbers, capitalised words).
Never: change what the engine returns, or write to the store; the signals are read-only.
"""

from __future__ import annotations

import math
import re
import statistics
from typing import Any

K = 50  # candidates per retriever, as answer retrieval takes (settings.answer_candidates)


def _analyzer() -> Any:
    try:
        from rewind.text_index import _analyzer as make
    except ImportError:  # the host is being split into packages
        from rewind.index.text_index import _analyzer as make  # type: ignore[no-redef]
    return make()


def _pages_in_order(hits: list[tuple[int, int, float]]) -> list[int]:
    """Page ids by their best passage, best first; hits are (passage, page, score)."""
    seen: dict[int, None] = {}
    for _pid, page, _s in sorted(hits, key=lambda h: -h[2]):
        seen.setdefault(page, None)
    return list(seen)


def _rank(x: int | None, ranking: list[int]) -> int:
    """1-based rank of x in ranking, 0 when absent."""
    return ranking.index(x) + 1 if x is not None and x in ranking else 0


class SignalReader:
    """Computes signals over one open engine (one store)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.analyzer = _analyzer()

    def terms(self, text: str) -> list[str]:
        return list(dict.fromkeys(self.analyzer.analyze(text)))

    def __call__(self, question: str, results: list[Any]) -> dict[str, float | int]:
        with self.engine.searcher() as s:
            ts = s.text_index.index.searcher()
            n_docs = max(1, ts.num_docs)
            qterms = self.terms(question)
            idf = {t: math.log(1 + (n_docs - (df := ts.doc_freq("text", t)) + 0.5) / (df + 0.5))
                   for t in qterms}  # fmt: skip
            dense: list[tuple[int, int, float]] = []
            if s.embed_query is not None and s.vectors is not None:
                qvec = s.embed_query(question)
                s.vectors.refresh(s.store)
                dense = [(h.passage_id, h.page_id, h.similarity) for h in s.vectors.search(qvec, K)]
            bm25 = [(h.passage_id, h.page_id, h.score) for h in s.text_index.search(question, K)]
        out: dict[str, float | int] = {"q_terms": len(qterms)}
        out["q_mean_idf"] = statistics.fmean(idf.values()) if idf else 0.0
        out["q_words"] = len(question.split())

        dpages, bpages = _pages_in_order(dense), _pages_in_order(bm25)
        cos = sorted((h[2] for h in dense), reverse=True)
        out["cos_top"] = cos[0] if cos else 0.0
        best_other = max((h[2] for h in dense if dpages and h[1] != dpages[0]), default=0.0)
        out["cos_margin"] = out["cos_top"] - best_other  # to the best passage of another page
        out["cos_wig"] = out["cos_top"] - statistics.fmean(cos[4:10]) if len(cos) > 4 else 0.0
        out["cos_nqc"] = statistics.pstdev(cos[:10]) if len(cos) > 1 else 0.0

        b = sorted((h[2] for h in bm25), reverse=True)
        out["bm25_top"] = b[0] if b else 0.0
        b_other = max((h[2] for h in bm25 if bpages and h[1] != bpages[0]), default=0.0)
        out["bm25_gap"] = (out["bm25_top"] - b_other) / out["bm25_top"] if b else 0.0
        self_score = sum(idf.values())
        out["bm25_self"] = self_score
        out["bm25_ratio"] = out["bm25_top"] / self_score if self_score else 0.0
        out["bm25_hits"] = len(bm25)

        out["agree_top"] = int(bool(dpages and bpages and dpages[0] == bpages[0]))
        out["agree_overlap5"] = len(set(dpages[:5]) & set(bpages[:5])) / 5
        out["dense_top_rank_in_bm25"] = _rank(dpages[0] if dpages else None, bpages)
        out["bm25_top_rank_in_dense"] = _rank(bpages[0] if bpages else None, dpages)

        top = results[0] if results else None
        out["hit_similarity"] = (top.similarity or 0.0) if top else 0.0
        out["hit_keyword"] = (top.keyword_score or 0.0) if top else 0.0
        out["hit_confidence"] = {"high": 2, "medium": 1, "low": 0}.get(
            top.confidence if top else "", -1)
        passage_terms = set(self.terms(top.passage)) if top else set()
        total = sum(idf.values())
        out["cover_idf"] = (sum(v for t, v in idf.items() if t in passage_terms) / total
                            if total else 0.0)  # fmt: skip
        if idf:
            cut = sorted(idf.values())[(3 * (len(idf) - 1)) // 4]  # the 75th percentile
            rare = [t for t, v in idf.items() if v >= cut]
            out["cover_rare"] = sum(t in passage_terms for t in rare) / len(rare)
        else:
            out["cover_rare"] = 0.0
        passage = top.passage if top else ""
        nums = re.findall(r"\d+(?:\.\d+)?", question)
        out["cover_numbers"] = (sum(n in passage for n in nums) / len(nums)) if nums else -1.0
        caps = [w for w in re.findall(r"\b[A-Z][\w'-]+", question)[1:]]  # not the first word
        out["cover_capitals"] = (sum(w.lower() in passage.lower() for w in caps) / len(caps)
                                 if caps else -1.0)  # fmt: skip
        return out
