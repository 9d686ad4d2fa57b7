"""Shared reporting for bench scripts: markdown tables, machine facts, and docs/benchmarks.md.

Job: each bench script owns one section of docs/benchmarks.md, delimited by
`<!-- bench:NAME -->` ... `<!-- /bench:NAME -->`, and replaces only that section (appending it
the first time), so several scripts can write the same file.
Never: touch text outside the script's own markers, or write a half file (atomic replace).
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import os
import platform
import re
from collections.abc import Sequence
from pathlib import Path

BENCH_DOC = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub markdown table; the first column left-aligned, the others right-aligned."""
    head = "| " + " | ".join(str(h) for h in header) + " |"
    sep = "|" + "|".join(":---" if i == 0 else "---:" for i in range(len(header))) + "|"
    body = ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join([head, sep, *body])


def quantile(xs: Sequence[float], p: float) -> float:
    """Nearest-rank quantile (p in 0..1) of a non-empty sample: always one of its values."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(p * (len(s) - 1))))]


def load_average() -> float:
    """The 1-minute load average (0.0 where the OS has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gib() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def machine() -> str:
    """One line: cores, RAM, CPU model, OS, Python."""
    return (
        f"{os.cpu_count()} cores (nproc {len(os.sched_getaffinity(0))}), {_ram_gib()} RAM, "
        f"{_cpu_model()}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


def today() -> str:
    return _dt.date.today().isoformat()


def update_section(name: str, body: str, doc: Path = BENCH_DOC) -> Path:
    """Replace (or append) the `name` section of `doc` with `body`; returns the path."""
    if not _NAME.match(name):
        raise ValueError(f"bad section name {name!r}: use lower-case letters, digits, - and _")
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{body.strip()}\n{end}"
    doc.parent.mkdir(parents=True, exist_ok=True)
    # Lock the folder (the file itself is replaced, so its inode can't carry the lock):
    # two bench scripts finishing together must not drop each other's section.
    dir_fd = os.open(doc.parent, os.O_RDONLY)
    try:
        fcntl.flock(dir_fd, fcntl.LOCK_EX)
        old = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
        i, j = old.find(start), old.find(end)
        if i >= 0 and j > i:
            new = old[:i] + block + old[j + len(end) :]
        elif i >= 0 or j >= 0:
            raise ValueError(f"{doc}: unbalanced markers for section {name!r}; fix them by hand")
        else:
            new = old.rstrip("\n") + "\n\n" + block + "\n"
        tmp = doc.with_name(f".{doc.name}.{os.getpid()}.tmp")
        tmp.write_text(new, encoding="utf-8")
        os.replace(tmp, doc)
    finally:
        os.close(dir_fd)  # releases the lock
    return doc
