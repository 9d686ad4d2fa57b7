"""`rewind` as a person runs it: a real process over a data directory, for the CLI tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rewind import config


def rewind(data: Path, *args: str, check: bool = True, stdin: str | None = None,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    # A fresh HOME: no browser registrations of this machine leak into `doctor`.
    env = {**os.environ, "REWIND_MODEL_DIR": str(config.model_dir()), **(env or {}),
           "HOME": str(data.parent / "home")}
    out = subprocess.run([sys.executable, "-m", "rewind", "--data-dir", str(data), *args],
                         capture_output=True, text=True, timeout=600, env=env, input=stdin)
    if check:
        assert out.returncode == 0, out.stderr
    return out
