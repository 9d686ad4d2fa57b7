"""Shared reporting for bench scripts: markdown tables, machine facts, and docs/benchmarks.md.

Job: each bench script owns one section of docs/benchmarks.md, delimited by
`<!-- bench:NAME -->` ... `<!-- /bench:NAME -->`, and replaces only that section where it
stands (a new section is appended at the end: move it into its part of the report and list
it in bench/common/sections.py), so several scripts can write the same file. Under a
section's heading goes its provenance line, unless the body already states its command and
commit: the command that rewrites it (`python3 build.py bench NAME`), how this run was
started, the commit and the load when it was written; the script's own line beside it
gives the date and the machine.
Never: touch text outside the script's own markers, or write a half file (atomic replace).
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import os
import platform
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH_DOC = ROOT / "docs" / "benchmarks.md"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
# A line that states a run's command and commit: "`command` · ... commit abc1234 ...".
PROVENANCE = re.compile(r"^`[^`]+` · .*\bcommit [0-9a-f]{7,}", re.M)


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


def _git(*args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=30, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None


def imported_host() -> Path | None:
    """The folder `rewind` was imported from (None: not importable)."""
    try:
        import rewind
    except ImportError:
        return None
    return Path(rewind.__file__).resolve().parents[1]


def commit() -> str:
    """The short commit, with "+ uncommitted changes in host/" when host/ differs from it;
    when `rewind` is imported from elsewhere (an export of another revision, on
    PYTHONPATH), that folder and the REVISION file beside it."""
    head = _git("rev-parse", "--short", "HEAD")
    if head is None or head.returncode != 0:
        return "unknown commit"
    host = imported_host()
    if host is not None and host != ROOT / "host":
        rev = host.parent / "REVISION"
        what = f"revision {rev.read_text().strip()}" if rev.exists() else "unknown revision"
        return f"commit {head.stdout.strip()}, rewind imported from {host} ({what})"
    dirty = _git("status", "--porcelain", "--", "host")
    extra = " + uncommitted changes in host/" if dirty is not None and dirty.stdout.strip() \
        else ""
    return f"commit {head.stdout.strip()}{extra}"


def started_as() -> str:
    """This process's command line: `python -m bench.perf.scale --passages 100000`."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    head = ["python", "-m", spec.name] if spec is not None and spec.name else \
        ["python", sys.argv[0]]
    return shlex.join([*head, *sys.argv[1:]])


def provenance(name: str) -> str:
    """The line under section `name`'s heading: what rewrites it, how this run started,
    the commit and the 1-minute load as it is written."""
    return (f"`python3 build.py bench {name}` · this run: `{started_as()}` · {commit()} · "
            f"load {load_average():.1f} when written")


def stamped(name: str, body: str) -> str:
    """`body` with its provenance line under its first `## ` heading (a body that states
    its own command and commit, or has no heading, stays as given)."""
    lines = body.strip().split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith("## ")), None)
    if at is None or PROVENANCE.search(body):
        return body
    rest = "\n".join(lines[at + 1 :]).lstrip("\n")
    return "\n".join([*lines[: at + 1], "", provenance(name), "", rest]).rstrip("\n")


def update_section(name: str, body: str, doc: Path = BENCH_DOC) -> Path:
    """Replace (or append) the `name` section of `doc` with `body` under its provenance
    line (`stamped`); returns the path."""
    if not _NAME.match(name):
        raise ValueError(f"bad section name {name!r}: use lower-case letters, digits, - and _")
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{stamped(name, body).strip()}\n{end}"
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
