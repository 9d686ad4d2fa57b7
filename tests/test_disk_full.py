"""A full disk, for real: the data folder on a 2 MB tmpfs that fills up during `rewind
index` (real pages, tantivy and SQLite; no embedding model, so the disk fills in seconds,
not minutes). The command says so without a traceback, what was committed stays
searchable, `doctor` names the disk, and once there is room the text index catches up by
itself. Needs root (mount); skipped otherwise, with the reason."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from support.cli_runner import rewind

pytestmark = pytest.mark.slow


@pytest.fixture
def small_disk(small_tmpfs):
    return small_tmpfs("2m")


def test_indexing_into_a_full_disk_says_so_keeps_what_it_stored_and_carries_on(
        small_disk, python_docs, tmp_path):
    data = small_disk / "data"
    no_model = {"REWIND_MODEL_DIR": str(tmp_path / "no-models")}

    def cli(*args: str, check: bool = True):
        return rewind(data, *args, check=check, env=no_model)

    run = cli("index", str(python_docs / "library"), "--base-url", "https://docs.python.org/3/",
              check=False)
    assert run.returncode == 1, run.stdout[-2000:]
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert "is full" in run.stderr and "Everything stored before is intact" in run.stderr

    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["pages"] > 0, "pages committed before the disk filled up are there"
    found = cli("search", "json", "--mode", "keyword", "--json")
    assert json.loads(found.stdout)["results"], "searches go on"

    doctor = cli("doctor", check=False)
    assert "Traceback" not in doctor.stderr, doctor.stderr[-3000:]
    assert "disk: The disk holding" in doctor.stdout or "text index: " in doctor.stdout

    subprocess.run(["mount", "-o", "remount,size=256m", str(small_disk)], check=True)
    healed = cli("doctor", check=False)  # a writer: it catches up at open
    lines = {line.split(":")[0].strip(): line for line in healed.stdout.splitlines()}
    assert lines["ok    text index"], healed.stdout
    assert "disk" not in " ".join(lines), healed.stdout
    again = cli("index", str(python_docs / "library" / "json.html"), "--base-url",
                "https://docs.python.org/3/library/")
    assert again.returncode == 0
    assert Path(data / "rewind.db").exists()


def test_a_backup_to_a_full_disk_names_that_disk_and_leaves_no_part(
        small_disk, python_docs, tmp_path):
    data = tmp_path / "data"  # the history has room; the backup's disk has none
    no_model = {"REWIND_MODEL_DIR": str(tmp_path / "no-models")}
    rewind(data, "index", str(python_docs / "library"), "--base-url",
           "https://docs.python.org/3/", env=no_model)
    (small_disk / "filler").write_bytes(b"\0" * (2 * 1024 * 1024 - 64 * 1024))
    for args in (("export",), ("export", "--json")):
        run = rewind(data, *args, str(small_disk / "history.bak"), check=False, env=no_model)
        assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
        assert f"The disk holding {small_disk} is full" in run.stderr, run.stderr
        assert "write the backup to another disk" in run.stderr
        assert sorted(p.name for p in small_disk.iterdir()) == ["filler"], "no part left"
    assert "exported" not in (data / "audit.log").read_text(), "no backup was written"
    assert json.loads(rewind(data, "stats", "--json", env=no_model).stdout)["pages"] > 0
