"""The `reindex` request on the real host with the real MiniLM: a re-embedding job from
384 to 256 dimensions (another vector space as far as the store is concerned), the host
SIGKILLed in the middle of it. After the restart the job resumes where its last batch
landed, the store passes doctor, and search answers throughout: from the old vectors
during the job, from the new ones after the switch, when the old ones are gone."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from rewind.config import Settings
from rewind.profile import embedding_job as reembed
from rewind.profile.engine import Rewind
from support.faq_pages import index_faq
from support.host_process import HostProcess

MINILM = "all-minilm-l6-v2-int8"
OLD, NEW = f"{MINILM}@384", f"{MINILM}@256"
QUERY = "what is the global interpreter lock"


@pytest.fixture
def faq_store(tmp_path, embedder, model_dir, python_docs):
    data = tmp_path / "data"
    with Rewind.open(data, Settings(), embedder=embedder, model_dir=model_dir) as eng:
        urls = index_faq(eng, python_docs)
        assert eng.model_id() == OLD
    return data, urls


def doctor(data) -> dict:
    out = subprocess.run([sys.executable, "-m", "rewind", "--data-dir", str(data), "doctor",
                          "--json"], capture_output=True, text=True, timeout=300)
    report = json.loads(out.stdout)
    return {c["name"]: c for c in report["checks"]}


def vector_models(data) -> dict[str, int]:
    with Rewind.open(data, writer=False, embedder=None) as eng:
        return eng.reader().vector_models()


def semantic_top(host: HostProcess) -> list[dict]:
    frames = host.replies(host.send("search", query=QUERY, mode="semantic", limit=5))
    assert frames[-1]["ok"], frames[-1]
    return [r for f in frames for r in f.get("results", [])]


def job(host: HostProcess) -> dict | None:
    return host.ok("stats")["stats"]["reembed"]


def test_a_killed_job_resumes_and_search_answers_throughout(tmp_path, faq_store, model_dir):
    data, urls = faq_store
    total = sum(vector_models(data).values())
    host = HostProcess(tmp_path, data_dir=data, model_dir=model_dir)
    try:
        host.hello()
        started = host.ok("reindex", action="start", model=MINILM, dim=256)
        assert started["reembed"]["model"] == NEW and started["embedding_model"] == OLD
        assert any(m["name"] == MINILM and 256 in m["dims"] for m in started["models"])
        deadline = time.monotonic() + 300
        while True:
            status = job(host)
            assert status is not None and status["state"] == "running", status
            hits = semantic_top(host)  # answered from the old model's vectors
            assert hits and hits[0]["url"] == urls["library"]
            if status["done"] >= total // 3:
                break
            assert time.monotonic() < deadline, status
            time.sleep(0.2)
        host.proc.kill()  # SIGKILL, in the middle of a batch or between two
        host.proc.wait()
    finally:
        host.stop()

    kept = vector_models(data)
    assert kept[OLD] == total and 0 < kept.get(NEW, 0) < total, kept
    with Rewind.open(data, writer=False, embedder=None) as eng:
        record = reembed.read(eng.reader())
    assert record.target == NEW and record.done == kept[NEW]  # the record matches the vectors
    checks = doctor(data)
    for name in ("store", "text index", "vectors"):
        assert checks[name]["ok"], checks[name]

    host = HostProcess(tmp_path, data_dir=data, model_dir=model_dir)
    try:
        host.hello()  # the job goes on by itself
        status = job(host)
        assert status["model"] == NEW and status["done"] >= kept[NEW], status
        seen = [status["done"]]
        deadline = time.monotonic() + 300
        while (status := job(host)) is not None:
            assert status["state"] == "running" and status["done"] >= seen[-1], status
            seen.append(status["done"])
            hits = semantic_top(host)
            assert hits and hits[0]["url"] == urls["library"]
            assert time.monotonic() < deadline, status
            time.sleep(0.2)
        stats = host.ok("stats")["stats"]
        assert stats["embedding_model"] == NEW and stats["unembedded_passages"] == 0
        hits = semantic_top(host)  # now from the 256-dimensional vectors
        assert hits and hits[0]["url"] == urls["library"]
        while set(vector_models(data)) != {NEW}:  # the old vectors go in batches
            assert time.monotonic() < deadline
            time.sleep(0.2)
        host.close_stdin()
        assert host.wait_exit(30)[0] == 0
    finally:
        host.stop()
    after = vector_models(data)
    assert set(after) == {NEW} and after[NEW] >= kept[NEW], after
    checks = doctor(data)
    for name in ("store", "text index", "vectors"):
        assert checks[name]["ok"], checks[name]
    assert NEW in checks["vectors"]["detail"]
    log = (data / "host.log").read_text()
    assert f"re-embedding done: {NEW} is the active model" in log


def test_reindex_requests_are_checked_and_follow_streams_progress(tmp_path, faq_store,
                                                                 model_dir):
    data, _urls = faq_store
    host = HostProcess(tmp_path, data_dir=data, model_dir=model_dir)
    try:
        host.hello()
        bad = host.call("reindex", action="start")
        assert not bad["ok"] and "start needs a model" in bad["error"]["message"]
        bad = host.call("reindex", action="start", model=MINILM, dim=100)
        assert not bad["ok"] and "256" in json.dumps(bad["error"])
        bad = host.call("reindex", action="start", model="no-such-model")
        assert not bad["ok"]
        assert host.ok("reindex")["reembed"] is None  # no job
        host.ok("reindex", action="start", model=MINILM, dim=128)
        paused = host.ok("reindex", action="pause")["reembed"]
        assert paused["state"] == "paused"
        host.ok("reindex", action="resume")
        frames = host.replies(host.send("reindex", follow=True), timeout=600)
        progress = [f["progress"] for f in frames[:-1]]
        assert progress and all(p["model"] == f"{MINILM}@128" for p in progress)
        assert [p["done"] for p in progress] == sorted(p["done"] for p in progress)
        assert frames[-1]["ok"] and frames[-1]["reembed"] is None  # done: switched
        assert frames[-1]["embedding_model"] == f"{MINILM}@128"
    finally:
        host.stop()
