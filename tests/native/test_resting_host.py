"""The real host, started as a browser starts it, with the real models: with a 1-second idle
time the answering model is let go after a question, and the next question still answers
(the model loaded again), as does one sent while `warm` loads it."""

from __future__ import annotations

import shutil
import time

from support.host_process import HostProcess

LLM = "smollm2-135m-instruct-q8_0"
QUESTION = "How often should I feed a sourdough starter?"


def _let_go(h: HostProcess, what: str, n: int, timeout: float = 30.0) -> bool:
    """Whether the host's log says `what` was let go `n` times within `timeout`."""
    log = h.data_dir / "host.log"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text(encoding="utf-8") if log.exists() else ""
        if sum(what in line for line in text.splitlines() if "at rest: let go" in line) >= n:
            return True
        time.sleep(0.2)
    return False


def test_the_answering_model_is_let_go_when_idle_and_the_next_question_loads_it(
        tmp_path, history_store, llm_dir):
    shutil.copytree(history_store, tmp_path / "data")
    h = HostProcess(tmp_path, model_dir=llm_dir)
    try:
        h.hello()
        h.ok("set_settings", settings={"answer_model_idle_s": 1})
        first = h.replies(h.send("ask", question=QUESTION), timeout=600)[-1]
        assert first["ok"] and first["model"] == LLM and first["answer"], first
        assert _let_go(h, "the answering model", 1), "the model was not let go"

        again = h.replies(h.send("ask", question=QUESTION), timeout=600)[-1]
        assert again["ok"] and again["model"] == LLM, again  # loaded again, no error
        assert again["answer"] == first["answer"]  # seeded: the same model, the same words
        assert again["timings"]["load_ms"] > 0

        # The side panel opens while the model is away: a question sent right after `warm`
        # waits for it on the slow lane, and is answered by the model `warm` loaded.
        assert _let_go(h, "the answering model", 2)
        warm, ask = h.send("warm"), h.send("ask", question=QUESTION)
        (warmed,) = h.replies(warm, timeout=600)
        assert warmed["ok"] and warmed["answer_model"] == LLM and warmed["embedder"], warmed
        third = h.replies(ask, timeout=600)[-1]
        assert third["ok"] and third["answer"] == first["answer"], third
        assert third["timings"]["load_ms"] < again["timings"]["load_ms"]  # already loaded
        stats = h.ok("stats")["stats"]
        assert stats["memory_mb"] > 0
    finally:
        h.stop()
