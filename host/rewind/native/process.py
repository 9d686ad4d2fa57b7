"""What the host process sets up around serving: its log file, fd 1 kept for frames,
stdin reads that treat a vanished pipe as EOF, and a cap on glibc malloc arenas.

It must never write to the real stdout (that belongs to the frames) nor log page text.
"""

from __future__ import annotations

import ctypes
import logging
import logging.handlers
import os
import sys
from pathlib import Path

from .. import config
from ..config import Settings

log = logging.getLogger("rewind.host")
LOG_FILE = "host.log"


def log_path(data_dir_override: str | os.PathLike[str] | None) -> Path:
    """Next to the data when a data dir is forced (tests), else in the per-user app dir."""
    forced = data_dir_override or os.environ.get("REWIND_DATA_DIR")
    return Path(forced).expanduser() / LOG_FILE if forced else config.app_data_dir() / LOG_FILE


def setup_logging(path: Path, settings: Settings) -> logging.Handler:
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=settings.host_log_bytes, backupCount=2, encoding="utf-8"
    )
    handler.setFormatter(
        logging.Formatter("%(asctime)s pid=%(process)d %(threadName)s %(levelname)s %(message)s")
    )
    root = logging.getLogger("rewind")
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    root.propagate = False  # never to stderr/stdout by accident
    return handler


def protect_stdout() -> int:
    """A private copy of fd 1 for frames; fd 1 itself then points at stderr."""
    if sys.platform == "win32":
        import msvcrt

        msvcrt.setmode(0, os.O_BINARY)
        msvcrt.setmode(1, os.O_BINARY)
    out_fd = os.dup(1)
    try:
        os.dup2(2, 1)
    except OSError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    sys.stdout = sys.stderr
    return out_fd


def read_stdin(n: int) -> bytes:
    try:
        return os.read(0, n)
    except OSError:
        return b""  # a stdin that is gone is an EOF


def limit_malloc_arenas(n: int) -> None:
    """At most `n` glibc malloc arenas for the threads started from now on (M_ARENA_MAX);
    nothing where the C library is not glibc."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None).mallopt(-8, n)  # M_ARENA_MAX
    except (OSError, AttributeError):
        log.info("malloc arenas left as they are (not glibc)")
