"""The facts a benchmark section states about its own run: the command, the commit (and
whether host/ had uncommitted changes, as when a checker being rewritten is measured), the
date, the machine and its load at the start and the end.

Job: one line of those facts, for bench/quality/checker.py and answer_quality.py.
Never: change the repository (read-only git calls), or fail a run for want of git.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path

from bench.common import report

ROOT = Path(__file__).resolve().parents[2]


def _git(*args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=30, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None


def _imported_host() -> Path | None:
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
    host = _imported_host()
    if host is not None and host != ROOT / "host":
        rev = host.parent / "REVISION"
        what = f"revision {rev.read_text().strip()}" if rev.exists() else "unknown revision"
        return f"commit {head.stdout.strip()}, rewind imported from {host} ({what})"
    dirty = _git("status", "--porcelain", "--", "host")
    extra = " + uncommitted changes in host/" if dirty is not None and dirty.stdout.strip() \
        else ""
    return f"commit {head.stdout.strip()}{extra}"


def command(module: str, argv: Sequence[str]) -> str:
    """The command line, with the PYTHONPATH that put another `rewind` first."""
    host = _imported_host()
    env = f"PYTHONPATH={host}:. " if host is not None and host != ROOT / "host" else ""
    return f"`{env}.venv/bin/python -m {module} {shlex.join(argv)}`".replace(" `", "`")


def line(module: str, argv: Sequence[str], took_s: float, load: tuple[float, float]) -> str:
    """Command · commit · date · machine · time · load average at the start and the end."""
    return (f"{command(module, argv)} · {commit()} · {report.today()} · {report.machine()} · "
            f"{took_s:.0f} s · load average (1 min) {load[0]:.1f} at the start, "
            f"{load[1]:.1f} at the end (other jobs share the machine)")
