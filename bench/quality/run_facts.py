"""The facts a benchmark section states about its own run: the command, the commit (and
whether host/ had uncommitted changes, as when a checker being rewritten is measured), the
date, the machine and its load at the start and the end.

Job: one line of those facts, for bench/quality/checker.py and answer_quality.py.
Never: change the repository (read-only git calls), or fail a run for want of git.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from bench.common import report

ROOT = report.ROOT
commit = report.commit  # the short commit, and whether host/ had uncommitted changes


def command(module: str, argv: Sequence[str]) -> str:
    """The command line, with the PYTHONPATH that put another `rewind` first."""
    host = report.imported_host()
    env = f"PYTHONPATH={host}:. " if host is not None and host != ROOT / "host" else ""
    return f"`{env}.venv/bin/python -m {module} {shlex.join(argv)}`".replace(" `", "`")


def line(module: str, argv: Sequence[str], took_s: float, load: tuple[float, float]) -> str:
    """Command · commit · date · machine · time · load average at the start and the end."""
    return (f"{command(module, argv)} · {commit()} · {report.today()} · {report.machine()} · "
            f"{took_s:.0f} s · load average (1 min) {load[0]:.1f} at the start, "
            f"{load[1]:.1f} at the end (other jobs share the machine)")
