"""rewind/memory.py: this process's resident memory, and the running helpers `rewind doctor`
reports (found by their command line)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from rewind import memory
from rewind.checks import helper_memory_check

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")


@pytest.mark.parametrize("argv,helper", [
    (["/venv/bin/python", "-m", "rewind", "serve", "chrome-extension://abc/"], True),
    (["/venv/bin/rewind", "serve", "chrome-extension://abc/"], True),
    (["python3", "-m", "rewind", "serve"], False),  # no caller: not what a browser starts
    (["python3", "-m", "rewind", "search", "serve", "chrome-extension://abc/"], False),
    (["vim", "serve", "chrome-extension://abc/"], False),
    (["python3", "-m", "other", "serve", "chrome-extension://abc/"], False),
])
def test_a_helper_is_the_host_a_browser_starts(argv, helper):
    assert memory.is_helper(argv) is helper


@linux
def test_this_process_and_a_running_helper_are_measured():
    assert 1 < memory.resident_mb() < 100_000
    # A stand-in with a helper's command line (python ignores what follows -c's code).
    fake = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "-m",
                             "rewind", "serve", "chrome-extension://abcdefgh/"])
    try:
        found = {h.pid: h for h in memory.running_helpers()}
        assert fake.pid in found and found[fake.pid].resident_mb > 1
        check = helper_memory_check()
        assert check.ok and f"pid {fake.pid}:" in check.detail
    finally:
        fake.kill()
        fake.wait()
    assert fake.pid not in {h.pid for h in memory.running_helpers()}
