"""A damaged store (`rewind.db` with a page of garbage in it), through the real CLI:
`doctor` names it and the fix, `doctor --repair` copies what can be read into a new store,
keeps the damaged file aside and says what was lost; the history then answers again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rewind.index.store.salvage import busy_elsewhere
from support.cli_runner import rewind

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def whole(tmp_path_factory, python_docs, model_dir) -> Path:
    data = tmp_path_factory.mktemp("salvage") / "data"
    rewind(data, "index", str(python_docs / "faq"), str(python_docs / "howto" / "sorting.html"),
           "--base-url", "https://docs.python.org/3/")
    return data


@pytest.fixture
def damaged(whole, tmp_path) -> Path:
    data = tmp_path / "data"
    shutil.copytree(whole, data)
    db = data / "rewind.db"
    b = bytearray(db.read_bytes())
    start = len(b) * 3 // 5 // 4096 * 4096 + 100  # inside one page, past the header
    for i in range(start, start + 3000, 5):
        b[i] ^= 0x5A
    db.write_bytes(bytes(b))
    return data


def test_doctor_finds_it_and_repair_keeps_what_can_be_read(damaged):
    before = rewind(damaged, "doctor", check=False)
    assert before.returncode == 1 and "Traceback" not in before.stderr, before.stderr
    assert "FAIL  store:" in before.stdout and "rewind doctor --repair" in before.stdout

    fixed = rewind(damaged, "doctor", "--repair", check=False)
    assert "Traceback" not in fixed.stderr, fixed.stderr
    repair = next(line for line in fixed.stdout.splitlines() if line.startswith("ok    repair"))
    assert "pages:" in repair and "recovered" in repair and "kept as" in repair
    assert "ok    store: SQLite integrity ok" in fixed.stdout
    assert "ok    text index" in fixed.stdout
    aside = list(damaged.glob("rewind.db.damaged-*"))
    assert [p for p in aside if p.name.count("-") == 2], "the damaged file is kept"

    stats = json.loads(rewind(damaged, "stats", "--json").stdout)
    assert stats["pages"] >= 5
    hits = json.loads(rewind(damaged, "search", "sorted key function", "--json").stdout)
    assert hits["results"]
    again = rewind(damaged, "doctor", "--repair", check=False)
    assert "nothing to repair" in again.stdout


def test_repair_refuses_while_another_process_has_the_store_open(damaged):
    import sqlite3

    con = sqlite3.connect(damaged / "rewind.db")
    try:
        assert busy_elsewhere(damaged / "rewind.db") == []  # this process is not "another"
        out = rewind(damaged, "doctor", "--repair", check=False)
        assert out.returncode == 1 and "open in other processes" in out.stderr
        assert not list(damaged.glob("rewind.db.damaged-*")), "nothing was changed"
    finally:
        con.close()
