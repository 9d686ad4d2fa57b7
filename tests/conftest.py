"""Shared fixtures: the real default embedding model, engines on temporary data dirs,
and the real Python documentation pages (Debian's python3.11-doc) as test data.

Tests that need the real model or pages fail, rather than skip, when
REWIND_REQUIRE_MODELS=1 (set by `python3 build.py test`), so CI cannot pass by skipping.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.requirement import missing

# Stores made by tests keep their keys (index/crypto/keys.py) in a folder of their own, never in
# the person's keyring or key folder; subprocesses (hosts, CLIs) inherit this.
os.environ.setdefault("REWIND_KEY_DIR", tempfile.mkdtemp(prefix="rewind-test-keys-"))
os.environ.setdefault("REWIND_KEYRING", "off")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # bench.common.data: the one reader of the evaluation data

from rewind import config  # noqa: E402
from rewind.config import Settings  # noqa: E402
from rewind.models import installed, specs  # noqa: E402

MINILM = "all-minilm-l6-v2-int8"
SMOLLM = "smollm2-135m-instruct-q8_0"  # the offline default LLM


@pytest.fixture(scope="session")
def model_dir() -> Path:
    """The model directory holding the real default embedding model."""
    directory = config.model_dir()
    st = installed.status(specs.embedding_spec(MINILM), directory)
    if not st.installed:
        missing(f"{MINILM} is not installed in {directory}: run `python3 build.py install`")
    return directory


@pytest.fixture(scope="session")
def llm_dir(model_dir: Path) -> Path:
    """The model directory, which also holds the real offline default GGUF."""
    if not installed.status(specs.llm_spec(SMOLLM), model_dir).installed:
        missing(f"{SMOLLM} is not installed in {model_dir}: run `python3 build.py install`")
    return model_dir


@pytest.fixture(scope="session")
def embedder(model_dir: Path):
    """One real MiniLM embedder for the whole session (loading it takes a moment)."""
    from rewind.models.embedder import OnnxEmbedder

    return OnnxEmbedder(specs.embedding_spec(MINILM), model_dir, Settings())


@pytest.fixture
def engine(tmp_path: Path, embedder, model_dir: Path):
    """A writable engine on a fresh data dir with the real model."""
    from rewind.profile.engine import Rewind

    eng = Rewind.open(tmp_path / "data", Settings(), embedder=embedder, model_dir=model_dir)
    yield eng
    eng.close()


@pytest.fixture
def fake_engine(tmp_path: Path):
    """A writable engine with the deterministic fake embedder: for logic, not quality."""
    from rewind.models.embedder import FakeEmbedder
    from rewind.profile.engine import Rewind

    eng = Rewind.open(tmp_path / "data", Settings(), embedder=FakeEmbedder())
    yield eng
    eng.close()


@pytest.fixture(scope="session")
def python_docs() -> Path:
    """Debian's python3.11-doc HTML tree (downloaded once into .cache/)."""
    from bench.common.data import EvalDataError
    from bench.common.data import python_docs as fetch

    try:
        return fetch()
    except EvalDataError as exc:
        missing(f"the Python documentation could not be fetched: {exc}")
        raise


@pytest.fixture(scope="session")
def history_store(tmp_path_factory, embedder, model_dir) -> Path:
    """A small real history (answer_fixtures.PAGES) embedded with the real model, once, and
    closed: `history` and `own_history` open copies of it, a host may be given one."""
    from support.answer_fixtures import open_history

    directory = tmp_path_factory.mktemp("history") / "data"
    open_history(directory, embedder, model_dir).close()
    return directory


def _open_copy(store: Path, where: Path, embedder, model_dir: Path):
    """An engine on a copy of a closed store's data folder (its key is found by the key id
    the store holds)."""
    from rewind.profile.engine import Rewind

    shutil.copytree(store, where)
    return Rewind.open(where, Settings(), embedder=embedder, model_dir=model_dir)


@pytest.fixture(scope="module")
def history(history_store, tmp_path_factory, embedder, model_dir):
    """The small real history, shared by a module's tests, which only read it. A test that
    changes it (its settings, a part of it) takes `own_history`."""
    eng = _open_copy(history_store, tmp_path_factory.mktemp("history") / "data", embedder,
                     model_dir)
    yield eng
    eng.close()
    assert eng.settings == Settings(), "a test changed the shared history: give it own_history"


@pytest.fixture
def own_history(history_store, tmp_path, embedder, model_dir):
    """A test's own copy of the small real history, to change as it likes."""
    eng = _open_copy(history_store, tmp_path / "history", embedder, model_dir)
    yield eng
    eng.close()


@pytest.fixture(scope="session")
def gguf_tokenizer(llm_dir):
    """The offline default LLM's own tokenizer (vocabulary only): what budgets count with."""
    from rewind.answers import llm

    return llm.tokenizer(specs.llm_spec(SMOLLM), llm_dir)


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """small_tmpfs("2m") -> a real file system of that size that fills up for real (a
    tmpfs, mounted for the test, unmounted after it); skips, saying why, without root."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        if os.geteuid() != 0 or not shutil.which("mount"):
            pytest.skip("a real full disk needs root to mount a small tmpfs")
        where = tmp_path / f"small-{len(mounted)}"
        where.mkdir()
        got = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                             capture_output=True, text=True)
        if got.returncode:
            pytest.skip(f"mounting a small tmpfs failed here: {got.stderr.strip()}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], check=False)
