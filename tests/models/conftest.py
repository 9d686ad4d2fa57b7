"""Shared fixtures of the models' tests: `mirror`, a local model host on 127.0.0.1 serving
the tiny model's files (support.tiny_model), reached directly (no proxy, no mirror or test
host from the environment), with download's retries backing off without waiting."""

from __future__ import annotations

import types
from collections.abc import Iterator

import pytest
from rewind.models import download, sources
from support.model_server import PROXY_VARS, serving
from support.model_server import ModelHost as Mirror
from support.tiny_model import FILES


@pytest.fixture
def mirror(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mirror]:
    for var in PROXY_VARS:  # 127.0.0.1 is reached directly, never through a proxy
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv(sources.MIRROR_ENV, raising=False)
    monkeypatch.delenv(sources.TEST_HOST_ENV, raising=False)
    m = Mirror(files=dict(FILES))
    monkeypatch.setattr(  # retries back off without the tests waiting for it
        download, "time", types.SimpleNamespace(sleep=m.sleeps.append, monotonic=lambda: 0.0)
    )
    with serving(m):
        yield m
