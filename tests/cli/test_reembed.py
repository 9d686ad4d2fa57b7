"""`rewind models use` and `rewind reindex --model` as a person runs them (real processes,
the real MiniLM at another Matryoshka dimension): the store switches models, search
answers from the new vectors, the old ones are gone; a job left half done by a killed
process is finished by the next command; bad choices say what to do."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from rewind import config
from support.cli_runner import rewind

MINILM = "all-minilm-l6-v2-int8"
PAGE = """<html><head><title>Notes on {topic}</title></head><body><article>
<p>These notes describe {topic} in some detail, with enough words to make a passage of
their own for the index to keep. {more}</p></article></body></html>"""
TOPICS = ["lichen on old stone walls", "kestrels hovering over motorways",
          "tide pools and their anemones", "sourdough starters and flour"]



@pytest.fixture
def data(tmp_path, model_dir):
    site = tmp_path / "site"
    site.mkdir()
    for i, topic in enumerate(TOPICS * 20):
        (site / f"p{i}.html").write_text(PAGE.format(topic=topic, more=f"Page {i}. " * 40))
    d = tmp_path / "data"
    rewind(d, "index", str(site), "--base-url", "https://notes.example/")
    return d


def stats(data) -> dict:
    return json.loads(rewind(data, "stats", "--json").stdout)


def test_models_use_switches_the_store_to_another_dimension(data):
    before = stats(data)
    assert before["embedding_model"] == f"{MINILM}@384"
    out = json.loads(rewind(data, "models", "use", MINILM, "--dim", "128", "--json").stdout)
    assert out["embedding_model"] == f"{MINILM}@128" and out["was"] == f"{MINILM}@384"
    after = stats(data)
    assert after["embedding_model"] == f"{MINILM}@128" and after["reembed"] is None
    assert after["unembedded_passages"] == 0 and after["vectors"] == before["vectors"]
    hits = json.loads(rewind(data, "search", "birds of prey hovering", "--mode", "semantic",
                             "--json").stdout)
    assert "kestrels" in hits["results"][0]["title"]
    doctor = json.loads(rewind(data, "doctor", "--json", check=False).stdout)
    vec = next(c for c in doctor["checks"] if c["name"] == "vectors")
    assert vec["ok"] and f"{MINILM}@128" in vec["detail"]


def test_a_job_killed_half_way_is_finished_by_the_next_command(data):
    env = {**os.environ, "REWIND_MODEL_DIR": str(config.model_dir())}
    proc = subprocess.Popen([sys.executable, "-m", "rewind", "--data-dir", str(data),
                             "reindex", "--model", MINILM, "--dim", "256"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    from rewind.profile import embedding_job as reembed
    from rewind.profile.engine import Rewind

    deadline = time.monotonic() + 300
    done = 0
    while done == 0:
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
        with Rewind.open(data, writer=False, embedder=None) as eng:
            job = reembed.read(eng.reader())
            done = job.done if job else 0
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Rewind.open(data, writer=False, embedder=None) as eng:
        job = reembed.read(eng.reader())
        assert job.target == f"{MINILM}@256" and 0 < job.done < eng.reader().passage_count()
    out = json.loads(rewind(data, "reindex", "--json").stdout)  # resumes the recorded job
    assert out["embedding_model"] == f"{MINILM}@256"
    after = stats(data)
    assert after["reembed"] is None and after["unembedded_passages"] == 0


def test_bad_choices_say_what_to_do(data):
    out = rewind(data, "models", "use", MINILM, "--dim", "100", check=False)
    assert out.returncode == 1 and "384, 256, 128" in out.stderr
    out = rewind(data, "models", "use", "embeddinggemma-300m", check=False)
    assert out.returncode == 1 and "models pull" in out.stderr and "Traceback" not in out.stderr
    out = rewind(data, "reindex", "--dim", "128", check=False)
    assert out.returncode == 1 and "--dim goes with --model" in out.stderr
    assert stats(data)["embedding_model"] == f"{MINILM}@384"  # nothing changed
