"""Does the history hold what was asked? One calibrated decision, for search and for ask.

From the passages search retrieves and fuses (retrieve.py) it reads cheap signals — how
close the best passages are in meaning (cosine, and its margin over other pages), how much
of the question's rarer words the best passage (with its page's title) has (coverage, IDF-
weighted: what tells the page that answers from its neighbours), how sure BM25 is (its top
score over the question's own), and whether the two retrievers agree on the first page —
and two logistic models fitted on the development sets (bench/quality/fit_relevance.py, figures in
docs/benchmarks.md) turn them into probabilities:
- `hit`: is this result about what was asked? Search shows the results above `fold`, and
  folds the others under "less relevant".
- `answerable`: does the history answer the question? Below `refuse`, ask says "couldn't
  find" without running the model; at or above `extract`, an answer made of the sources'
  own sentences stands in for a model answer that no source backs; at or above `closest`,
  when nothing is backed, the closest passage is quoted (answers/closest.py) rather than
  "couldn't find" (chosen from what ask did on the tune sets: bench/quality/fit_relevance.py).
The models and thresholds are data, `relevance.json` beside this module.
This module must never write, and never decide anything the models do not say.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..index.derived import languages
from ..logistic import Logistic
from ..models.cosine_scale import calibrated
from .retrieve import PassageHit, Retrieved, Searcher

HIT_FEATURES = ("cos", "kw_share", "cover", "cover_rare", "first")
# Measured and left out (bench/quality/fit_relevance.py): the cosine's margin over other pages
# (strong on one-topic FAQ sets, but in a person's many-topic history it says "the topic is
# here", not "the answer is"), BM25's ratio to the query's self-score, the query's length;
# and (bench/labs/answerability.py) the best cosine of a single sentence, AUC +0.00-0.01 on every
# source, and the question's likelihood after a passage under the offline 135M model
# (query likelihood), AUC 0.56-0.60 on the tune sources.
QUERY_FEATURES = ("cos_top", "cover", "cover_rare", "agree")
TOP = 3  # passages read for the query's coverage


@dataclass(frozen=True)
class Gauge:
    """The fitted models and the thresholds chosen on the development sets."""

    hit: Logistic
    answerable: Logistic
    fold: float  # a result below this is folded under "less relevant"
    refuse: float  # below: "couldn't find", no model run
    extract: float  # at or above: the sources' own sentences may answer
    closest: float  # at or above: nothing backed, the closest passage is quoted

    @classmethod
    def from_dict(cls, d: dict) -> Gauge:
        return cls(Logistic.from_dict(d["hit"]), Logistic.from_dict(d["answerable"]),
                   float(d["fold"]), float(d["refuse"]), float(d["extract"]),
                   float(d.get("closest", d["refuse"])))


@lru_cache(maxsize=1)
def gauge() -> Gauge:
    text = resources.files(__package__).joinpath("relevance.json").read_text("utf-8")
    return Gauge.from_dict(json.loads(text))


@dataclass
class Reading:
    """The signals of one query, and of each of its first hits."""

    query: dict[str, float]
    hits: dict[int, dict[str, float]]  # passage id -> its signals


def _coverage(idf: dict[str, float], terms: set[str]) -> tuple[float, float]:
    """(IDF-weighted share of the query's terms in `terms`, share of its rarer half)."""
    total = sum(idf.values())
    if not total:
        return 0.0, 0.0
    weighted = sum(v for t, v in idf.items() if t in terms) / total
    cut = sorted(idf.values())[len(idf) // 2]
    rare = [t for t, v in idf.items() if v >= cut]
    return weighted, sum(t in terms for t in rare) / len(rare)


def _missing(idf: dict[str, float], terms: set[str]) -> float:
    """The rarest query term `terms` lacks, as a share of the rarest query term (0: none
    missing): "invented" missing from a page about starters is what an answer lacks."""
    top = max(idf.values(), default=0.0)
    return max((v for t, v in idf.items() if t not in terms), default=0.0) / top if top else 0.0


def _reference(searcher: Searcher, cosine: float) -> float:
    """A cosine on the scale the models were fitted on (MiniLM's; models/cosine_scale.py)."""
    return float(calibrated(searcher.confidence, cosine))


def _other_language(searcher: Searcher, query: str, records: dict
                    ) -> Callable[[int], bool | None]:
    """Whether a passage is in another language than the query (None: too short to tell,
    or no language at all, like code): then the query's words cannot be in it whatever it
    says (the multilingual model found it by meaning), and its coverage says nothing. Asked
    only of a history that holds more than English ("undetermined" pages are analysed as
    English, and code is in no language)."""
    if len(searcher.text_index.languages() - languages.NOT_LANGUAGES) < 2:
        return lambda _pid: False
    asked = languages.detect(query).lang
    if asked in languages.NOT_LANGUAGES:
        return lambda _pid: False
    seen: dict[int, bool | None] = {}

    def other(pid: int) -> bool | None:
        if pid not in seen:
            passage = records.get(pid, (None, None))[1]
            lang = languages.detect(passage.text).lang if passage is not None else asked
            seen[pid] = None if lang in languages.NOT_LANGUAGES else lang != asked
        return seen[pid]

    return other


def _unobserved(model: Logistic) -> tuple[float, float]:
    """Coverage that cannot be observed, as the model's mean: it votes neither way."""
    values = dict(zip(model.features, model.mean.tolist(), strict=True))
    return values["cover"], values["cover_rare"]


def read(searcher: Searcher, query: str, found: Retrieved, hits: Sequence[PassageHit]
         ) -> Reading:
    """The signals of `query` and of `hits` (some of found.hits, e.g. a page's best ones)."""
    ti = searcher.text_index
    idf = ti.idf(ti.terms(query))
    wanted = {h.passage_id for h in hits} | {h.passage_id for h in found.hits[:TOP]}
    records = searcher.passage_records(wanted)
    pages = searcher.pages({page for page, _ in records.values()})

    analysed: dict[int, set[str]] = {}  # the top passages are mostly among `hits` too

    def terms_of(pid: int) -> set[str]:
        if pid not in analysed:
            page_id, passage = records.get(pid, (None, None))
            title = pages[page_id].title if page_id in pages else ""
            analysed[pid] = (set() if passage is None
                             else set(ti.terms(f"{title}\n{passage.text}")))
        return analysed[pid]

    best_cos: dict[int, float] = {}  # each page's best cosine; the scale map is increasing
    for h in found.hits:
        if h.similarity is not None and h.similarity > best_cos.get(h.page_id, -2.0):
            best_cos[h.page_id] = h.similarity
    by_page_cos = {page: _reference(searcher, c) for page, c in best_cos.items()}
    ranked_pages = sorted(by_page_cos, key=by_page_cos.get, reverse=True)
    cos_top = by_page_cos[ranked_pages[0]] if ranked_pages else 0.0
    cos_next = by_page_cos[ranked_pages[1]] if len(ranked_pages) > 1 else 0.0
    kw = [h for h in found.hits if h.keyword is not None]
    kw_top_page = max(kw, key=lambda h: h.keyword).page_id if kw else None
    top_terms = [terms_of(h.passage_id) for h in found.hits[:TOP]]
    covers = [_coverage(idf, t) for t in top_terms]
    cover, cover_rare = max(covers, default=(0.0, 0.0))
    other = _other_language(searcher, query, records)
    top = [other(h.passage_id) for h in found.hits[:TOP]]
    if top and top[0] is not False and any(top):  # a page title alone is too short to tell
        cover, cover_rare = _unobserved(gauge().answerable)
    missing = min((_missing(idf, t) for t in top_terms), default=1.0)
    query_signals = {
        "cos_top": cos_top,
        "cos_margin": cos_top - cos_next,
        "cover": cover,
        "cover_rare": cover_rare,
        "bm25_ratio": found.keyword_top / sum(idf.values()) if idf else 0.0,
        "agree": float(bool(ranked_pages) and ranked_pages[0] == kw_top_page),
        "missing": missing,
        "q_terms": math.log1p(len(idf)),
    }
    first = found.hits[0].passage_id if found.hits else None
    hit_signals = {}
    for h in hits:
        c, r = _coverage(idf, terms_of(h.passage_id))
        if other(h.passage_id):  # None (too short to tell) keeps what was observed
            c, r = _unobserved(gauge().hit)
        hit_signals[h.passage_id] = {
            "cos": _reference(searcher, h.similarity) if h.similarity is not None else 0.0,
            "kw_share": found.keyword_share(h), "cover": c, "cover_rare": r,
            "first": float(h.passage_id == first)}
    return Reading(query_signals, hit_signals)


def read_provided(searcher: Searcher, query: str, texts: Sequence[str],
                  similarities: Sequence[float | None]) -> dict[str, float]:
    """The query's signals over text the caller gave (the current tab): its passages'
    cosines and coverage, as if they were the history's best (the retrievers agree)."""
    ti = searcher.text_index
    idf = ti.idf(ti.terms(query))
    covers = [_coverage(idf, set(ti.terms(t))) for t in texts]
    cover, cover_rare = max(covers, default=(0.0, 0.0))
    return {"cos_top": max((_reference(searcher, x) for x in similarities if x is not None),
                           default=0.0),
            "cos_margin": 0.0, "cover": cover, "cover_rare": cover_rare,
            "bm25_ratio": 0.0, "agree": 1.0, "missing": 0.0,
            "q_terms": math.log1p(len(idf))}
