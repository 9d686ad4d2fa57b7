"""What `python3 build.py bench` and `build.py fit` can run: every runnable benchmark with
the first line of its docstring, the sections of docs/benchmarks.md with the runs that
rewrite each (bench/common/sections.py's table), the default runs, and the fitters with the
shipped file each writes.

Job: find and name them for build.py (`bench --list`, `bench NAME`, `fit`), reading the
benchmarks' source and the sections' table with ast, and say in a line what a fitter changed
in its shipped file. Never: import a benchmark or `rewind`, or anything but the standard
library: build.py imports this module with the system Python, before the virtual
environment exists (tests/test_bench_layout.py runs `build.py bench --list` so).
"""

from __future__ import annotations

import ast
import difflib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
BENCH_GROUPS = ("perf", "quality", "labs")  # bench/common/ holds what they share
DEFAULT_BENCH = ("quality.quality", "perf.latency", "perf.ingest", "quality.answers")
# The fitters: each writes a file the host ships (a model and its thresholds), from data.
FITTERS = (
    ("quality.fit_relevance", [], ROOT / "host" / "rewind" / "search" / "relevance.json"),
    ("quality.sensitive", ["--fit"], ROOT / "host" / "rewind" / "capture" / "sensitive.json"),
)


def benchmarks() -> dict[str, str]:
    """Every runnable benchmark ("group.name": the first line of its docstring), read with
    ast, so that listing imports nothing."""
    found = {}
    for group in BENCH_GROUPS:
        for path in sorted((BENCH / group).glob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            runnable = any(isinstance(n, ast.If) and "__main__" in ast.unparse(n.test)
                           for n in tree.body)
            if runnable and not path.name.startswith("_"):
                first = (ast.get_docstring(tree) or "").strip().split("\n\n")[0]
                found[f"{group}.{path.stem}"] = " ".join(first.split())
    return found


def bench_sections() -> dict[str, tuple[str, ...]]:
    """Each section of docs/benchmarks.md and the runs that rewrite it, from
    bench/common/sections.py's table (read with ast: nothing of it is run)."""
    tree = ast.parse((BENCH / "common" / "sections.py").read_text(encoding="utf-8"))
    table = next(n.value for n in tree.body if isinstance(n, ast.AnnAssign)
                 and getattr(n.target, "id", "") == "SECTIONS")
    return ast.literal_eval(table)


def bench_name(name: str, known: dict[str, str]) -> str:
    """`latency`, `perf.latency` or `bench/perf/latency.py` -> `perf.latency`."""
    name = name.removeprefix("bench/").removeprefix("bench.").removesuffix(".py")
    name = name.replace("/", ".")
    hits = [k for k in known if k == name or k.split(".", 1)[1] == name]
    if len(hits) != 1:
        sys.exit(f"build.py bench: no benchmark {name!r}" if not hits else
                 f"build.py bench: {name!r} is ambiguous: {', '.join(hits)}"
                 " (see `python3 build.py bench --list`)")
    return hits[0]


def fit_summary(before: str, after: str) -> str:
    """What changed in a shipped file, in a line, and its unified diff for the top keys."""
    if before == after:
        return "unchanged"
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="",
                                     n=0))
    added = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
    removed = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
    shown = [d for d in diff if d[:1] in "+-" and d[:3] not in ("+++", "---")][:20]
    more = "" if len(shown) >= added + removed else "\n    ..."
    return (f"{added} lines added, {removed} removed (git diff shows all):\n    "
            + "\n    ".join(shown) + more)
