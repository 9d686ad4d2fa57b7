"""SIGKILL a process that is ingesting, at several points: the store must open, pass
`rewind doctor`, and keep every page committed before the kill."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

WRITER = r"""
import json, os, sys
from rewind.profile.engine import Rewind
from rewind.capture.ingest import PageInput, PassageInput
eng = Rewind.open(sys.argv[1])
fault, after = sys.argv[2], int(sys.argv[3])
for i in range(1000):
    if i == after and fault != "none":
        os.environ["REWIND_FAULT"] = fault  # the next write dies at that point
    text = [PassageInput(f"Page {i} tells of topic{i} with several more words to index.")]
    eng.index_page(PageInput(f"https://site{i % 3}.example/p{i}", f"Page {i}", text))
    print(json.dumps({"committed": f"https://site{i % 3}.example/p{i}"}), flush=True)
"""


def run_writer(data, fault: str, after: int, kill_after_s: float | None = None):
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(data), fault, str(after)],
                            stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    if kill_after_s is not None:
        time.sleep(kill_after_s)
        proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    return [json.loads(line)["committed"] for line in out.splitlines() if line.strip()]


def doctor(data) -> dict:
    out = subprocess.run([sys.executable, "-m", "rewind", "--data-dir", str(data), "doctor",
                          "--json"], capture_output=True, text=True, timeout=120)
    report = json.loads(out.stdout)
    return {c["name"]: c for c in report["checks"]} | {"_exit": out.returncode}


@pytest.mark.parametrize("fault", ["store_commit", "after_store_commit", "after_text_commit"])
def test_kill_at_each_fault_point(tmp_path, model_dir, fault):
    data = tmp_path / "data"
    committed = run_writer(data, fault, after=3)
    assert len(committed) == 3
    checks = doctor(data)
    for name in ("store", "text index", "vectors"):
        assert checks[name]["ok"], checks[name]
    from rewind.profile.engine import Rewind
    from rewind.search import SearchQuery

    with Rewind.open(data, writer=False) as eng:
        stored = {p["url"] for p in eng.list_pages(0, 100)}
        assert set(committed) <= stored
        # the killed write either landed whole or not at all
        assert stored - set(committed) in (set(), {"https://site0.example/p3"})
        for i in range(3):
            hits = eng.search(SearchQuery(f"topic{i}", mode="keyword")).results
            assert hits and hits[0].url == committed[i]


@pytest.mark.parametrize("delay", [1.5, 3.0, 4.5])
def test_kill_at_random_moments(tmp_path, model_dir, delay):
    data = tmp_path / "data"
    committed = run_writer(data, "none", after=-1, kill_after_s=delay)
    checks = doctor(data)
    assert checks["store"]["ok"] and checks["text index"]["ok"] and checks["vectors"]["ok"], \
        checks
    from rewind.profile.engine import Rewind

    with Rewind.open(data, writer=False) as eng:
        assert set(committed) <= {p["url"] for p in eng.list_pages(0, 1000)}
