"""Shared fixtures of the native host's tests: `start(**kwargs)` starts a real host process
(support.host_process.HostProcess) on the test's tmp_path, as many as a test asks for, and
stops each after the test (checking that no reply frame was over 1 MiB)."""

from __future__ import annotations

import pytest
from support.host_process import HostProcess


@pytest.fixture
def start(tmp_path):
    hosts: list[HostProcess] = []

    def _start(**kwargs) -> HostProcess:
        h = HostProcess(tmp_path, **kwargs)
        hosts.append(h)
        return h

    yield _start
    for h in hosts:
        h.stop()
