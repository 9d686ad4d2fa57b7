"""The citation checker on its labelled set: how often it shows a sentence the cited passage
does not say (false accepts) and hides one it does say (false rejects), per split and kind.

Job: build the labelled set (bench/quality/checker_set.py: dev from the tune sources,
held-out from the held-out ones), run `check_answer(sentence [Source 1], [Source], embed,
settings, question)` on every item with the real embedder (quality.py's MODEL, the offline
default) and count a sentence accepted when the checker shows it citing the passage: every
piece the checker cuts it into that carries a claim has a status in ACCEPTED and keeps
source 1. Report false accepts (unsupported accepted) and false rejects (supported not
accepted) per split and kind, and per language. `--sweep FIELD=v1,v2` reports the same for
several values of one Settings field on the DEV split only, to fit thresholds there.
Writes the `checker` section of docs/benchmarks.md (command, commit, date, load);
`--dump` writes the set and each item's outcome to build/checker-set/ (git-ignored).
Never: sweep or fit on held-out items, touch a user's data, or change a Settings field
beyond the run's own copy.

Run (a few minutes on 2 cores; the set itself is read from the Debian doc packages):
    .venv/bin/python -m bench.quality.checker [--split dev|held-out] [--sweep FIELD=v1,v2]
        [--langs de,fr] [--dump] [--no-write]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bench.common import report
from bench.quality import checker_set, run_facts
from bench.quality.quality import MODEL, model_dir_for

if TYPE_CHECKING:
    from rewind.answers.citations import Meaning

ROOT = Path(__file__).resolve().parents[2]
DUMP_DIR = ROOT / "build" / "checker-set"
ACCEPTED = ("ok", "corrected", "added", "quoted")
NOT_CLAIMS = ("no_claim", "repeat")  # pieces that neither show nor hide a claim
SECTION = "checker"


@dataclass(frozen=True)
class Outcome:
    item: checker_set.Item
    accepted: bool
    statuses: tuple[str, ...]  # of every piece the checker cut the sentence into
    support: float  # the best passage's support of the first claim

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.item.id, "split": self.item.split, "kind": self.item.kind,
                "label": self.item.label, "accepted": self.accepted,
                "statuses": list(self.statuses), "support": round(self.support, 3)}


class MemoEmbedder:
    """An embedder's `embed_documents`, each text embedded once (a sweep re-checks the same
    texts). The checker is given the wrapped model's cosine scale beside it (`Meaning`)."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.cache: dict[str, np.ndarray] = {}

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            self.cache.update(zip(todo, self.embedder.embed_documents(todo), strict=True))
        return np.vstack([self.cache[t] for t in texts])


def cited(sentence: str) -> str:
    """'It does [Source 1].': the citation before the closing punctuation, as models write."""
    m = re.search(r"[.!?。]+[\"'”’)]*$", sentence)
    if m:
        return f"{sentence[: m.start()].rstrip()} [Source 1]{sentence[m.start():]}"
    return f"{sentence} [Source 1]"


def source_of(item: checker_set.Item) -> Any:
    from rewind.answers.packing import Evidence, Source
    from rewind.answers.prompt import clean

    ev = Evidence("history", item.passage, item.url, item.title, 1.0)
    return Source(1, "history", item.url, item.title, None, 1, 0.0, [ev], [clean(item.passage)])


def judge(items: Sequence[checker_set.Item], embed: Meaning | None, settings: Any,
          check: Callable | None = None) -> list[Outcome]:  # fmt: skip
    """Every item through the checker (`check`: check_answer unless given)."""
    if check is None:
        from rewind.answers.citations import check_answer as check
    out = []
    for it in items:
        got = check(cited(it.sentence), [source_of(it)], embed, settings, it.question)
        statuses = tuple(c.status for c in got.checks)
        claims = [c for c in got.checks if c.status not in NOT_CLAIMS]
        shown = [c.status in ACCEPTED and 1 in c.sources for c in claims]
        out.append(Outcome(it, bool(shown) and all(shown), statuses,
                           float(claims[0].support) if claims else 0.0))  # fmt: skip
    return out


# ---- figures ------------------------------------------------------------------------------


def wrong(o: Outcome) -> bool:
    """A false accept (unsupported shown) or a false reject (supported hidden)."""
    return o.accepted != (o.item.label == "supported")


def _pct(outs: Sequence[Outcome]) -> str:
    n = sum(wrong(o) for o in outs)
    return f"{100 * n / len(outs):.1f}% ({n}/{len(outs)})" if outs else "-"


def rate_row(label: str, outs: Sequence[Outcome]) -> list[str]:
    sup = [o for o in outs if o.item.label == "supported"]
    uns = [o for o in outs if o.item.label == "unsupported"]
    return [label, str(len(outs)), _pct(uns), _pct(sup)]


def kind_rows(outs: Sequence[Outcome], split: str) -> list[list[str]]:
    mine = [o for o in outs if o.item.split == split]
    rows = [rate_row(f"{split} · {k}", [o for o in mine if o.item.kind == k])
            for k in checker_set.KINDS if any(o.item.kind == k for o in mine)]
    rows.append(rate_row(f"**{split} · all**", mine))
    return rows


def lang_rows(outs: Sequence[Outcome], split: str) -> list[list[str]]:
    mine = [o for o in outs if o.item.split == split]
    langs = sorted({o.item.lang for o in mine}, key=lambda x: (x != "en", x))
    return [rate_row(f"{split} · {lang}", [o for o in mine if o.item.lang == lang])
            for lang in langs]


def parse_sweep(spec: str, base: Any) -> tuple[str, list[Any]]:
    name, _, values = spec.partition("=")
    if not hasattr(base, name) or not values:
        raise SystemExit(f"--sweep {spec!r}: want FIELD=v1,v2 with a Settings field")
    kind = type(getattr(base, name))
    conv = (lambda v: v.lower() in ("1", "true", "yes")) if kind is bool else kind
    return name, [conv(v) for v in values.split(",")]


def sweep_rows(items: Sequence[checker_set.Item], embed: Meaning, base: Any, name: str,
               values: Sequence[Any]) -> list[list[str]]:  # fmt: skip
    """Dev items only: the rates at each value of Settings field `name`."""
    dev = [it for it in items if it.split == "dev"]
    rows = []
    for v in values:
        outs = judge(dev, embed, dataclasses.replace(base, **{name: v}))
        per_kind = [_pct([o for o in outs if o.item.kind == k]).split(" ")[0]
                    for k in checker_set.UNSUPPORTED]
        rows.append([f"{name}={v}", *rate_row("", outs)[2:], *per_kind])
    return rows


def render(outs: Sequence[Outcome], sweeps: list[tuple[str, list[list[str]]]], facts: str,
           notes: Sequence[str]) -> str:  # fmt: skip
    splits = [s for s in ("dev", "held-out") if any(o.item.split == s for o in outs)]
    header = ["split · kind", "items", "false accepts (unsupported shown)",
              "false rejects (supported hidden)"]
    lines = [
        "## Citation checker on labelled sentences (bench/quality/checker.py)", "", facts, "",
        "Each item is one sentence cited to one passage (`check_answer(sentence [Source 1], "
        "[Source], embed, settings, question)`, embedding "
        f"{MODEL}): accepted when every piece of it that makes a claim has a status in "
        f"{', '.join(ACCEPTED)} and keeps source 1. Items are made by rule from the dev sets' "
        "gold passages (bench/quality/checker_set.py): supported kinds " + ", ".join(
            checker_set.SUPPORTED) + "; unsupported " + ", ".join(checker_set.UNSUPPORTED)
        + ". dev: tune sources (python-faq, django-faq; Debian Reference chapters 1-6); "
        "held-out: the held-out sources (debian-faq, sqlite-faq, git-faq, wiki; chapters 7 "
        "on). Fit on dev only." + ("" if not notes else " " + " ".join(notes)), "",
        "### Per split and kind", "",
        report.table(header, [r for s in splits for r in kind_rows(outs, s)]), "",
        "### Per language", "",
        report.table(["split · language", *header[1:]],
                     [r for s in splits for r in lang_rows(outs, s)]),
    ]  # fmt: skip
    for name, rows in sweeps:
        lines += ["", f"### Sweep of {name} (dev only)", "",
                  report.table(["value", "false accepts", "false rejects",
                                *[f"FA {k}" for k in checker_set.UNSUPPORTED]], rows)]
    return "\n".join(lines)


def dump(items: Sequence[checker_set.Item], outs: Sequence[Outcome], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("dev", "held-out"):
        mine = [it for it in items if it.split == split]
        if not mine:
            continue
        with (folder / f"{split}.jsonl").open("w", encoding="utf-8") as f:
            for it in mine:
                f.write(json.dumps(it.to_dict(), ensure_ascii=False) + "\n")
        with (folder / f"{split}-outcomes.jsonl").open("w", encoding="utf-8") as f:
            for o in outs:
                if o.item.split == split:
                    f.write(json.dumps(o.to_dict(), ensure_ascii=False) + "\n")


def load(path: Path) -> list[checker_set.Item]:
    """Items dumped by --dump."""
    with path.open(encoding="utf-8") as f:
        return [checker_set.Item(**json.loads(line)) for line in f if line.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "held-out"), action="append", default=[],
                    help="repeatable; default both")
    ap.add_argument("--langs", default=",".join(checker_set.LANGS),
                    help="other languages, comma-separated ('' for English only)")
    ap.add_argument("--passages", type=int, default=checker_set.N_PASSAGES,
                    help="gold passages per English source")
    ap.add_argument("--sweep", action="append", default=[], metavar="FIELD=v1,v2,...")
    ap.add_argument("--dump", action="store_true", help=f"write the set to {DUMP_DIR}")
    ap.add_argument("--from", dest="from_dir", type=Path, default=None,
                    help="read the set dumped there (the same items for two checkers)")
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--model-dir", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=report.BENCH_DOC)
    ap.add_argument("--no-write", action="store_true", help="only print the figures")
    args = ap.parse_args(argv)
    t0, load0 = time.perf_counter(), report.load_average()

    from rewind import config
    from rewind.answers.citations import Meaning
    from rewind.models import specs
    from rewind.models.embedder import OnnxEmbedder

    base = config.Settings(default_embedding_model=MODEL)
    sweeps_asked = [parse_sweep(s, base) for s in args.sweep]
    langs = [x for x in args.langs.split(",") if x]
    unchecked: list[str] = []
    items: list[checker_set.Item] = []
    for split in args.split or ["dev", "held-out"]:
        if args.from_dir is not None:
            items += load(args.from_dir / f"{split}.jsonl")
        else:
            items += checker_set.build(split, args.cache, langs, args.passages,
                                       unchecked=unchecked)  # fmt: skip
    print(f"{len(items)} items in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    cache = args.cache or checker_set.devsets.data.default_cache()
    emb_dir = model_dir_for(config, MODEL, args.model_dir, cache)
    embedder = OnnxEmbedder(specs.embedding_spec(MODEL), emb_dir,
                            dataclasses.replace(base, query_cache_size=0))  # fmt: skip
    embed = Meaning(MemoEmbedder(embedder).embed_documents, embedder.confidence)
    t1 = time.perf_counter()
    outs = judge(items, embed, base)
    print(f"checked in {time.perf_counter() - t1:.0f} s", file=sys.stderr)
    sweeps = [(name, sweep_rows(items, embed, base, name, values))
              for name, values in sweeps_asked]
    if args.dump:
        dump(items, outs, DUMP_DIR)
        print(f"wrote {DUMP_DIR}", file=sys.stderr)
    notes = [f"Read although their files differ from bench/sets/checksums.json (a rebuilt "
             f"Debian doc package): {', '.join(sorted(set(unchecked)))}."] if unchecked else []
    notes += [f"Items read from {args.from_dir}."] if args.from_dir is not None else []
    facts = run_facts.line("bench.quality.checker", argv, time.perf_counter() - t0,
                           (load0, report.load_average()))  # fmt: skip
    body = render(outs, sweeps, facts, notes)
    print(body)
    if not args.no_write:
        print(f"wrote {report.update_section(SECTION, body, args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
