"""answer_models and pull_model through the real host process (started as Chrome starts
it), downloading from a local server laid out like the model host ($REWIND_TEST_MODEL_HOST)
with a catalog of test models ($REWIND_TEST_MODEL_CATALOG): progress frames, cancel
through the protocol's `cancel`, resume, and the switch of the answering model."""

from __future__ import annotations

import hashlib
import json
import random
import time
from pathlib import Path

import pytest
from rewind.models import sources, specs
from support.host_process import HostProcess
from support.model_server import PROXY_VARS, ModelHost, serving

BODY = random.Random(11).randbytes(6 * 1024 * 1024 + 321)
PATH = "/org/tiny-GGUF/resolve/main/tiny.gguf"


def catalog(tmp_path: Path) -> Path:
    """The real models.json's embedding models and offline LLM, and one downloadable LLM
    (random bytes: it is never loaded here), published at a test address."""
    real = json.loads((Path(specs.__file__).parent / "models.json").read_text())
    tiny = {
        "description": "a stand-in to download", "label": "Tiny 0.2B", "family": "Tiny",
        "parameters_b": 0.2, "quantisation": "Q4_K_M", "n_ctx": 4096, "temperature": 0.2,
        "max_answer_tokens": 64,
        "measured": {"prompt_tokens_per_s": 300.0, "answer_tokens_per_s": 90.0, "threads": 2,
                     "peak_rss_bytes": 300_000_000, "how": "stand-in"},
        "files": {"model.gguf": {"sha256": hashlib.sha256(BODY).hexdigest(), "bytes": len(BODY),
                                 "download": "org/tiny-GGUF tiny.gguf",
                                 "url": f"https://models.example{PATH}"}},
    }
    smol = "smollm2-135m-instruct-q8_0"
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"embedding": real["embedding"],
                                "llm": {smol: real["llm"][smol], "tiny": tiny}}))
    return path


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A running model host and the real host process pointed at it (HostProcess passes
    its environment on, as Chromium does)."""
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv(sources.MIRROR_ENV, raising=False)
    server = ModelHost(files={PATH: BODY})
    with serving(server):
        monkeypatch.setenv(sources.TEST_HOST_ENV, server.url)
        monkeypatch.setenv(specs.TEST_CATALOG_ENV, str(catalog(tmp_path)))
        h = HostProcess(tmp_path, model_dir=tmp_path / "models")
        try:
            h.hello()
            yield h, server
        finally:
            h.stop()


def test_answer_models_says_what_answers_now_and_what_would_suit(host):
    h, _ = host
    r = h.ok("answer_models")
    assert r["answer_model"] is None  # nothing installed in this model folder
    assert r["recommended"]["name"] == "tiny" and r["recommended"]["label"] == "Tiny 0.2B"
    assert r["recommended"]["installed"] is False
    assert r["recommended"]["file_bytes"] == len(BODY)
    assert r["recommended"]["first_words_s"] is not None and r["max_wait_s"] == 8
    assert "instead of sentences picked from your pages" in r["gains"][0]
    assert any("download" in c for c in r["costs"])


def test_pull_model_streams_progress_installs_and_switches_the_answering_model(host,
                                                                              tmp_path):
    h, server = host
    frames = h.replies(h.send("pull_model", model="tiny"), timeout=60)
    *parts, last = frames
    assert last["ok"] is True, last
    assert parts and all(f["done"] is False and "progress" in f for f in parts)
    done = [f["progress"]["all_done"] for f in parts]
    assert done == sorted(done) and done[-1] == len(BODY)
    assert all(f["progress"]["all_total"] == len(BODY) for f in parts)
    assert last["model"] == "tiny" and last["files"][0]["checked_against"] == "models.json"
    assert last["source"].startswith("$REWIND_TEST_MODEL_HOST is set (tests only)")
    assert (tmp_path / "models" / "tiny" / "model.gguf").read_bytes() == BODY
    # The switch: the profile's answering model, kept, and reported.
    assert last["answer_model"] == "tiny" and last["setting"] == "tiny"
    saved = json.loads((h.data_dir / "host_settings.json").read_text())
    assert saved["llm_model"] == "tiny"
    assert h.ok("stats")["stats"]["answer_model"] == "tiny"
    assert [r.path for r in server.log] == [PATH]


def test_a_cancelled_pull_keeps_what_came_and_the_next_one_resumes(host, tmp_path):
    h, server = host
    server.rate = 2_000_000  # bytes a second: ~3 s for the file, time to cancel
    rid = h.send("pull_model", model="tiny")
    first = h.next_frame(timeout=30)
    assert first["id"] == rid and first["done"] is False and first["progress"]["done"] > 0
    assert h.ok("cancel", target_id=rid)["found"] is True
    end = h.replies(rid, timeout=30)[-1]
    assert end["ok"] is False and end["error"]["code"] == "cancelled"
    part = tmp_path / "models" / "tiny" / ".model.gguf.part"
    time.sleep(0.5)  # the server may still be writing into a closed socket
    have = part.stat().st_size
    assert 0 < have < len(BODY)
    assert not (tmp_path / "models" / "tiny" / "model.gguf").exists()
    assert h.ok("answer_models")["answer_model"] is None  # nothing switched

    server.rate = None
    last = h.replies(h.send("pull_model", model="tiny"), timeout=60)[-1]
    assert last["ok"] is True, last
    assert server.log[-1].range == f"bytes={have}-" and server.log[-1].status == 206
    assert (tmp_path / "models" / "tiny" / "model.gguf").read_bytes() == BODY
    assert last["answer_model"] == "tiny"


def test_pull_model_errors_say_what_to_do(host, monkeypatch):
    h, server = host
    r = h.call("pull_model", model="no-such-model")
    assert r["ok"] is False and r["error"]["code"] == "not_found"
    assert "Known models" in r["error"]["message"]
    r = h.call("pull_model", model="smollm2-135m-instruct-q8_0")  # from a package
    assert r["ok"] is False and "build.py install" in r["error"]["message"]
    server.files.clear()  # the address answers 404
    r = h.call("pull_model", model="tiny")
    assert r["ok"] is False and "404" in r["error"]["message"]
    assert h.ok("answer_models")["setting"] == ""  # nothing switched
