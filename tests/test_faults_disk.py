"""A full disk at each write point, by fault injection (faults.py, $REWIND_FAULT_KIND=enospc):
inside the SQLite transaction, after it, after tantivy's commit: each time `rewind index`
says the disk is full (no traceback), nothing is stored half-way, searches go on, and the
next run — with room again — carries on to a store that `doctor` passes. The vector
snapshot (written when a search first needs it) with no room: the search answers anyway."""

from __future__ import annotations

import json
import shutil

import pytest
from support.cli_runner import rewind

pytestmark = pytest.mark.slow

POINTS = ("store_commit", "after_store_commit", "after_text_commit")


@pytest.mark.parametrize("point", POINTS)
def test_a_full_disk_at_each_write_point(point, tmp_path, python_docs, model_dir):
    data = tmp_path / "data"
    faq = python_docs / "faq"
    base = ("--base-url", "https://docs.python.org/3/faq/")
    rewind(data, "index", str(faq / "general.html"), *base)  # a history already there
    pages = [str(faq / name) for name in ("windows.html", "installed.html")]
    full = rewind(data, "index", *pages, *base, check=False,
                  env={"REWIND_FAULT": point, "REWIND_FAULT_KIND": "enospc"})
    assert full.returncode == 1, (point, full.stdout)
    assert "Traceback" not in full.stderr, full.stderr[-2000:]
    assert "is full" in full.stderr and "intact" in full.stderr, full.stderr

    stats = json.loads(rewind(data, "stats", "--json").stdout)
    # Inside the transaction: rolled back. After it: the page is stored, whole.
    assert stats["pages"] == (1 if point == "store_commit" else 2), (point, stats)
    found = json.loads(rewind(data, "search", "Windows", "--json").stdout)["results"]
    assert found, "searches go on"

    again = rewind(data, "index", *pages, *base)
    assert again.returncode == 0
    doctor = rewind(data, "doctor", check=False)
    for part in ("store", "text index", "vectors"):
        assert f"ok    {part}" in doctor.stdout, (point, doctor.stdout)
    assert json.loads(rewind(data, "stats", "--json").stdout)["pages"] == 3


def test_no_room_for_the_vector_snapshot_is_no_error(tmp_path, python_docs, model_dir):
    data = tmp_path / "data"
    rewind(data, "index", str(python_docs / "faq" / "windows.html"), "--base-url",
           "https://docs.python.org/3/faq/")
    shutil.rmtree(data / "vectors", ignore_errors=True)
    # doctor writes the snapshot (a writer): with no room it keeps it in memory.
    full = rewind(data, "doctor", check=False,
                  env={"REWIND_FAULT": "vector_snapshot", "REWIND_FAULT_KIND": "enospc"})
    assert "ok    vectors" in full.stdout and "Traceback" not in full.stderr, full.stdout
    assert not [p for p in (data / "vectors").glob("*") if p.is_file()], "no half file"
    rewind(data, "doctor", check=False)  # with room: the snapshot is written this time
    assert [p for p in (data / "vectors").glob("*") if p.is_file()]


FULL = {"REWIND_FAULT": "store_commit", "REWIND_FAULT_KIND": "enospc"}


def _says_full(run) -> None:
    assert run.returncode == 1, run.stdout
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert "is full" in run.stderr and "intact" in run.stderr, run.stderr


def test_a_full_disk_during_an_import_changes_nothing_and_it_runs_again(
        tmp_path, python_docs, model_dir):
    source, data = tmp_path / "source", tmp_path / "data"
    faq = python_docs / "faq"
    rewind(source, "index", str(faq / "windows.html"), str(faq / "installed.html"),
           "--base-url", "https://docs.python.org/3/faq/")
    backup = tmp_path / "history.rwbk"
    rewind(source, "export", str(backup))
    rewind(data, "index", str(faq / "general.html"), "--base-url",
           "https://docs.python.org/3/faq/")
    _says_full(rewind(data, "import", str(backup), check=False, env=FULL))
    assert json.loads(rewind(data, "stats", "--json").stdout)["pages"] == 1, "rolled back"
    rewind(data, "import", str(backup))
    assert json.loads(rewind(data, "stats", "--json").stdout)["pages"] == 3


def test_a_full_disk_during_re_embedding_stores_no_half_batch_and_it_carries_on(
        tmp_path, python_docs, model_dir):
    data = tmp_path / "data"
    # indexed while no model was there: the passages wait for their vectors
    rewind(data, "index", str(python_docs / "faq" / "windows.html"), "--base-url",
           "https://docs.python.org/3/faq/", env={"REWIND_MODEL_DIR": str(tmp_path / "none")})
    _says_full(rewind(data, "reindex", check=False, env=FULL))
    waiting = json.loads(rewind(data, "stats", "--json").stdout)["unembedded_passages"]
    assert waiting > 0
    rewind(data, "reindex")
    assert json.loads(rewind(data, "stats", "--json").stdout)["unembedded_passages"] == 0
    assert "ok    vectors" in rewind(data, "doctor", check=False).stdout
