"""Stores written by earlier Rewinds (tests/data/stores: schema 1, plain; schema 2,
encrypted) opened by today's, through the real `rewind` CLI: a reader says what to do, the
first writer upgrades the store in place, rebuilds what derives from it, and every page
is found again, by its words and by its meaning."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rewind.index.store.migrations import SCHEMA_VERSION
from rewind.index.store.store import Store
from support.cli_runner import rewind

pytestmark = pytest.mark.slow
STORES = Path(__file__).resolve().parents[2] / "data" / "stores"


@pytest.mark.parametrize("written_at", ["schema1", "schema2"])
def test_an_old_store_is_upgraded_on_first_open_and_keeps_every_page(
        written_at, tmp_path, model_dir):
    data, keys = tmp_path / "data", tmp_path / "keys"
    data.mkdir()
    shutil.copy(STORES / written_at / "rewind.db", data / "rewind.db")
    if (STORES / written_at / "keys").exists():  # an encrypted store comes with its key
        shutil.copytree(STORES / written_at / "keys", keys)
    else:
        keys.mkdir()
    env = {"REWIND_KEY_DIR": str(keys), "REWIND_KEYRING": "off"}

    reader = rewind(data, "search", "sorting", "--mode", "keyword", env=env, check=False)
    assert reader.returncode == 1 and "Traceback" not in reader.stderr, reader.stderr
    assert "older Rewind" in reader.stderr and "rewind doctor" in reader.stderr

    doctor = rewind(data, "doctor", env=env, check=False)
    assert "Traceback" not in doctor.stderr, doctor.stderr
    for part in ("store", "text index", "vectors", "encryption"):
        assert f"ok    {part}" in doctor.stdout, doctor.stdout
    store = Store(data / "rewind.db", readonly=True)
    assert store.schema_version() == SCHEMA_VERSION
    store.close()

    stats = json.loads(rewind(data, "stats", "--json", env=env).stdout)
    assert stats["pages"] == 3
    words = json.loads(rewind(data, "search", "Windows", "--mode", "keyword", "--json",
                              env=env).stdout)["results"]
    assert words[0]["url"] == "https://docs.python.org/3/faq/windows.html"
    meaning = json.loads(rewind(data, "search", "order a list of records by one of their fields",
                                "--mode", "semantic", "--json", env=env).stdout)["results"]
    assert meaning[0]["url"] == "https://docs.python.org/3/howto/sorting.html"
