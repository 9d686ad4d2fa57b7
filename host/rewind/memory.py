"""How much memory a process holds now: this one's (the status reply's `memory_mb`) and the
running helpers' (`rewind doctor`).

Resident memory (RSS) is what the system counts against the machine: read from
/proc/<pid>/status on Linux, from GetProcessMemoryInfo on Windows (this process only);
elsewhere it is unknown (None), never the peak passed off as the present.
This module must never change anything: it reads figures.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

MIB = 1024 * 1024
PROC = Path("/proc")


def resident_mb(pid: int | None = None) -> float | None:
    """The resident memory of `pid` (None: this process) in MiB; None when unknown."""
    if sys.platform.startswith("linux"):
        try:
            text = (PROC / str(pid or "self") / "status").read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError):
            return None
        for line in text.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024  # kB
        return None
    if sys.platform == "win32" and pid in (None, os.getpid()):
        return _windows_own_rss()
    return None


def _windows_own_rss() -> float | None:
    import ctypes
    from ctypes import wintypes

    class Counters(ctypes.Structure):
        _fields_ = [("cb", wintypes.DWORD), ("PageFaultCount", wintypes.DWORD),
                    *[(n, ctypes.c_size_t) for n in (
                        "PeakWorkingSetSize", "WorkingSetSize", "QuotaPeakPagedPoolUsage",
                        "QuotaPagedPoolUsage", "QuotaPeakNonPagedPoolUsage",
                        "QuotaNonPagedPoolUsage", "PagefileUsage", "PeakPagefileUsage")]]

    try:
        counters = Counters()
        counters.cb = ctypes.sizeof(Counters)
        windll = ctypes.windll  # type: ignore[attr-defined]
        process = windll.kernel32.GetCurrentProcess()
        if not windll.psapi.GetProcessMemoryInfo(process, ctypes.byref(counters), counters.cb):
            return None
        return counters.WorkingSetSize / MIB
    except (OSError, AttributeError):
        return None


@dataclass(frozen=True)
class Helper:
    pid: int
    resident_mb: float | None


def is_helper(argv: list[str]) -> bool:
    """Whether a command line is the native host a browser started (`python -m rewind
    serve ORIGIN`, which the rewind-host launcher execs, or the `rewind serve` script)."""
    for i, arg in enumerate(argv[:-1]):
        if arg == "serve" and i > 0 and (
            argv[i - 1] == "rewind" and i > 1 and argv[i - 2] == "-m"
            or Path(argv[i - 1]).name in ("rewind", "rewind.exe")
        ):
            return "://" in argv[i + 1]  # the caller's origin
    return False


def running_helpers() -> list[Helper]:
    """This user's running helpers (Linux: read from /proc; elsewhere none are found)."""
    if not sys.platform.startswith("linux") or not PROC.is_dir():
        return []
    me, uid = os.getpid(), os.getuid()
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
            argv = (entry / "cmdline").read_bytes().decode("utf-8", "replace").split("\0")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if is_helper([a for a in argv if a]):
            found.append(Helper(int(entry.name), resident_mb(int(entry.name))))
    return sorted(found, key=lambda h: h.pid)
