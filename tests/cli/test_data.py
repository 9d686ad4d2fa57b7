"""`rewind forget | export | import | log | reset | stats` as a person runs them (real
processes, the real model): refusals say what to do, and a lost key is said plainly."""

from __future__ import annotations

import json
import os

import pytest
from support.cli_runner import rewind

PAGE = """<html><head><title>Notes on {topic}</title></head><body><article>
<p>These notes describe {topic} in some detail, with enough words to make a passage of
their own for the index to keep.</p></article></body></html>"""



@pytest.fixture
def data(tmp_path, model_dir):
    site = tmp_path / "site"
    site.mkdir()
    for i, topic in enumerate(["lichen", "kestrels", "tide pools"]):
        (site / f"p{i}.html").write_text(PAGE.format(topic=topic))
    d = tmp_path / "data"
    rewind(d, "index", str(site), "--base-url", "https://notes.example/")
    return d


def test_forget_everything_needs_a_yes(data):
    out = rewind(data, "forget", "--all", check=False, stdin="")
    assert out.returncode == 1 and "--yes" in out.stderr
    assert json.loads(rewind(data, "stats", "--json").stdout)["pages"] == 3
    out = rewind(data, "forget", "--url", "https://notes.example/p0.html", "--json")
    assert json.loads(out.stdout) == {"removed": 1}
    assert "2 pages removed" in rewind(data, "forget", "--all", "--yes").stdout
    out = rewind(data, "forget", check=False)
    assert out.returncode == 1 and "one of --url" in out.stderr


def test_export_import_log_and_stats(data, tmp_path):
    (tmp_path / "pw").write_text("lantern\n")
    rewind(data, "export", str(tmp_path / "b.rwb"), "--passphrase-file", str(tmp_path / "pw"))
    rewind(data, "export", str(tmp_path / "e.json"), "--json")
    assert json.loads((tmp_path / "e.json").read_text())["pages_total"] == 3
    rewind(data, "forget", "--all", "--yes")
    out = rewind(data, "import", str(tmp_path / "b.rwb"), check=False)
    assert out.returncode == 1 and "passphrase" in out.stderr  # no terminal to ask on
    got = json.loads(rewind(data, "import", str(tmp_path / "b.rwb"), "--passphrase-file",
                            str(tmp_path / "pw"), "--json").stdout)
    assert got["new"] == 3 and got["embedded"] == 0
    (tmp_path / "cut.rwb").write_bytes((tmp_path / "b.rwb").read_bytes()[:-50])
    out = rewind(data, "import", str(tmp_path / "cut.rwb"), "--passphrase-file",
                 str(tmp_path / "pw"), check=False)
    assert out.returncode == 1 and "cut short" in out.stderr and "Nothing was imported" \
        in out.stderr
    log = json.loads(rewind(data, "log", "-n", "0", "--json").stdout)
    events = [e["event"] for e in log]
    assert {"encrypted", "indexed", "exported", "forgotten", "imported"} <= set(events)
    assert all("Notes on" not in json.dumps(e) for e in log)  # no titles, no text
    human = rewind(data, "stats").stdout
    assert "vectors" in human and "text index" in human and "encrypted at rest" in human
    assert "retention: no age limit, no size limit" in human


def test_a_lost_key_is_said_and_reset_starts_again(data, tmp_path):
    meta = json.loads(rewind(data, "stats", "--json").stdout)["encryption"]
    assert meta["encrypted"]
    key_file = meta["key"].split("key file ")[1].split(" ")[0]
    os.rename(key_file, key_file + ".gone")
    out = rewind(data, "search", "lichen", check=False)
    assert out.returncode == 1 and "encrypted" in out.stderr and "rewind reset" in out.stderr
    out = rewind(data, "doctor", check=False)
    assert out.returncode == 1 and "rewind reset" in out.stderr
    reset = json.loads(rewind(data, "reset", "--yes", "--json").stdout)
    assert os.path.exists(os.path.join(reset["moved_to"], "rewind.db"))  # moved, not deleted
    assert json.loads(rewind(data, "stats", "--json").stdout)["pages"] == 0
