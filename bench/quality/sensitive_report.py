"""How bench/quality/sensitive.py writes what it measured: the `sensitive` section of
docs/benchmarks.md (the cross-validated table, where it misses, every real page held or
refused, what was tuned after seeing which pages), and the two records it reads: a `Tally`
of what happened to the pages tested, a `Corpus` of real pages with their windows.

Never: compute a figure (bench/quality/sensitive.py does), or write anything itself.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from rewind.capture import sensitive

from bench.common import real_pages, report

if TYPE_CHECKING:
    from bench.common.labelled_pages import Page


@dataclass
class Tally:
    """What happened to the pages tested (each counted once per split it was tested in)."""

    counts: dict[tuple[int, str], int] = field(default_factory=Counter)  # (label, action)
    by_group: dict[tuple[str, int, str], int] = field(default_factory=Counter)
    wrong: Counter = field(default_factory=Counter)  # page id -> times stored / refused-held

    def add(self, page: Page, action: str) -> None:
        y = page.sensitive
        self.counts[(y, action)] += 1
        for g in (f"category {page.category}", f"language {page.lang}"):
            self.by_group[(g, y, action)] += 1
        if (y and action == "record") or (not y and action != "record"):
            self.wrong[page.id] += 1

    def rate(self, label: int, action: str, counts: dict | None = None, group: str = "") -> float:
        c = counts if counts is not None else self.counts
        if group:
            total = sum(v for (g, y, _), v in self.by_group.items() if g == group and y == label)
            return self.by_group.get((group, label, action), 0) / max(1, total)
        total = sum(v for (y, _), v in c.items() if y == label)
        return c.get((label, action), 0) / max(1, total)

    def groups(self) -> list[str]:
        return sorted({g for g, _, _ in self.by_group})


@dataclass
class Corpus:
    source: real_pages.Source
    form: str
    pages: list[real_pages.RealPage]
    windows: list[np.ndarray]  # per page, its windows' features

    def actions(self, model: sensitive.Model) -> list[str]:
        return [model.decide(float(model.probabilities(w).max())) for w in self.windows]


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _ms(xs: Sequence[float]) -> str:
    return f"{1000 * statistics.median(xs):.1f} / {1000 * report.quantile(xs, 0.95):.1f}"


def cv_rows(name: str, tally: Tally) -> list[str]:
    return [name, _pct(tally.rate(1, "record")), _pct(tally.rate(1, "hold")),
            _pct(tally.rate(1, "refuse")), _pct(tally.rate(0, "hold")),
            _pct(tally.rate(0, "refuse"))]


def misses(tally: Tally, prefix: str) -> str:
    """Groups whose private pages were stored or whose articles were held or refused."""
    out = []
    for g in tally.groups():
        if not g.startswith(prefix):
            continue
        stored, held = tally.rate(1, "record", group=g), tally.rate(1, "hold", group=g)
        fp = tally.rate(0, "hold", group=g) + tally.rate(0, "refuse", group=g)
        if stored or held or fp:
            out.append(f"{g.split(' ', 1)[1]} (stored {_pct(stored)}, held {_pct(held)}, "
                       f"articles held or refused {_pct(fp)})")
    return "; ".join(out) or "none"


HONESTY = (
    "What was changed after looking at which pages: the lexicon was pruned of words common in "
    "the fit sources (Django, PostgreSQL, English Wikipedia, the Debian Reference) and of false "
    "friends across languages, and each labelled page is fitted on with and without its page "
    "signals (without, the check leaned on signals the older English pages lack). Four "
    "changes came after looking at held-out pages, so those sources' figures are optimistic: "
    "Spanish 'cita' (also 'quote', as in [cita requerida]) left the health words after Spanish "
    "Wikipedia pages were held; dates, doses and fields in prose lines stopped counting as "
    "records after French and Spanish Wikipedia pages (a biography's 'ne le', a liqueur's "
    "g/l) were held; the footer phrase 'last modified' left the interface words after SQLite "
    "pages were held; a topic counts its different words, not every repeat, and short lines "
    "with figures became a feature after Python index pages (listing the mailbox module) and "
    "SQLite's release list were held. The GIMP manual (nine languages), the Debian FAQ (eight) "
    "and the git manual were first read by the final model then. When the check learned to "
    "read a person's particulars in prose (amounts to the cent, full dates, long numbers, "
    "doses, message stamps, the words that address a reader or speak of the writer, an "
    "article's framing), SQLite's and git's pages were looked at again: a date in ISO form "
    "and a clock time with seconds (a machine's stamp) stopped counting after their 'last "
    "modified' footers were held, so those two sources' figures are optimistic too. The real "
    "pages' weight and the thresholds were set before the first run and kept; L2 was raised "
    "from 1 to 3 then, chosen on the record pages' fit parts (bench/quality/records.py).")


def report_lines(pages: Sequence[Page], fit_corpora: Sequence[Corpus],
                 results: dict[str, Tally], rows: list[list[str]], named_lines: list[str],
                 named: Counter, in_sample: Counter, started: float,
                 recipe: dict[str, float]) -> list[str]:
    """The section's opening lines; `recipe`: L2, REAL_WEIGHT, HOLD, REFUSE as fitted."""
    L2, REAL_WEIGHT, HOLD, REFUSE = (recipe[k] for k in  # noqa: N806 (the recipe's names)
                                     ("L2", "REAL_WEIGHT", "HOLD", "REFUSE"))
    n_sens = sum(p.sensitive for p in pages)
    langs = Counter(p.lang for p in pages)
    cats = {p.category for p in pages} - {"none"}
    sites = {p.site for p in pages}
    fit_names = ", ".join(sorted({c.source.name for c in fit_corpora}))
    cv = [cv_rows(name, t) for name, t in (
        ("stratified 5-fold x4 (sanity: every language and site seen)", results["stratified"]),
        ("leave one category out", results["category"]),
        ("leave one language out", results["language"]),
        ("leave one language out, its words removed from the lexicon",
         results["language, no words"]),
        ("leave one site out", results["site"]),
        ("leave one language and all its sites out", results["language and sites"]))]
    strict = results["language and sites"]
    wrong_in_sample = in_sample[(1, "record")] + in_sample[(0, "hold")] + in_sample[(0, "refuse")]
    return [
        "## Sensitive-page content check (bench/quality/sensitive.py)",
        "",
        f"{report.today()} · {report.machine()} · {time.monotonic() - started:.0f} s",
        "",
        "Labelled pages (tests/data/sensitive_pages/, written for this, and the generated "
        "record pages of the parts the model is fitted on, bench/common/record_pages.py): "
        f"{len(pages)} — "
        f"{n_sens} private screens and {len(pages) - n_sens} articles about the same topics "
        f"(and ordinary pages read while signed in), {len(cats)} categories, {len(sites)} "
        f"sites, languages {', '.join(f'{k} {v}' for k, v in sorted(langs.items()))}. Real "
        f"pages fitted on (negatives): {fit_names}. Logistic model, L2 = {L2}, real pages "
        f"weighing {REAL_WEIGHT:g} x the labelled articles; a page is held at p >= {HOLD} and "
        f"refused at p >= {REFUSE} (thresholds fixed before the first run). Targets: private pages "
        "from sites and languages the check never saw <= 2 % stored and <= 5 % held; "
        "articles and documentation <= 1 % refused or held.",
        "",
        report.table(["labelled set, cross-validated", "private stored", "private held",
                      "private refused", "articles held", "articles refused"], cv),
        "",
        "Never-seen language and sites, where it misses — by category: "
        + misses(strict, "category ") + ". By language: " + misses(strict, "language ") + ".",
        "",
        "Pages wrong most often (leave one language and its sites out): " + (", ".join(
            f"{k} ({v})" for k, v in strict.wrong.most_common(12)) or "none") + ".",
        "",
        report.table(["real source", "lang", "split", "form", "pages", "windows", "held",
                      "refused"], rows),
        "",
        "Every real page held or refused (the held-out ones are the result; the fit ones are "
        "in-sample):" if named_lines else "No real page was held or refused.",
        *named_lines,
        "",
        HONESTY,
        "",
        f"Private pages held or refused named with their labelled category: {named[True]} of "
        f"{named[True] + named[False]}. In-sample (the shipped model on the pages it was "
        f"fitted on, a sanity check only): {wrong_in_sample} wrong.",
    ]

