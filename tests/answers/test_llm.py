"""The LLM runner: choosing the model, loading checks, the tokenizer, streaming and cancel.

Real GGUF tests use the offline default (SmolLM2-135M-Instruct); the check for a
base model without a chat template uses a stand-in for llama_cpp.Llama (logic only).
"""

from __future__ import annotations

import shutil
import threading
import time

import pytest
from rewind.answers import llm
from rewind.config import Settings
from rewind.errors import Code, RewindError
from rewind.models import installed, specs

LLM = "smollm2-135m-instruct-q8_0"


@pytest.fixture(scope="module")
def model(llm_dir):
    m = llm.GgufLlm(specs.llm_spec(LLM), llm_dir, Settings())
    yield m
    m.close()


def test_no_model_installed_means_none(tmp_path):
    assert llm.choose_spec(Settings(), tmp_path) is None
    assert llm.installed_specs(tmp_path) == []


def test_a_named_model_that_is_missing_says_how_to_get_it(tmp_path):
    with pytest.raises(RewindError) as err:
        llm.choose_spec(Settings(llm_model=LLM), tmp_path)
    assert err.value.code is Code.MODEL_MISSING and "build.py install" in err.value.hint
    with pytest.raises(RewindError) as err:
        llm.choose_spec(Settings(llm_model="no-such-model"), tmp_path)
    assert err.value.code is Code.NOT_FOUND


def test_a_damaged_model_is_refused(tmp_path, llm_dir):
    spec = specs.llm_spec(LLM)
    dest = specs.model_path(spec, tmp_path)
    dest.mkdir(parents=True)
    shutil.copy(specs.model_path(spec, llm_dir) / "model.gguf", dest / "model.gguf")
    with open(dest / "model.gguf", "r+b") as fh:
        fh.seek(1000)
        fh.write(b"\0" * 16)
    assert installed.status(spec, tmp_path, verify=True).mismatched == ["model.gguf"]
    with pytest.raises(RewindError) as err:
        llm.GgufLlm(spec, tmp_path, Settings())
    assert err.value.code is Code.MODEL_INVALID and "damaged" in err.value.message


def test_a_base_model_without_chat_template_is_refused(monkeypatch, llm_dir):
    import llama_cpp

    class BaseModel:  # what llama_cpp.Llama gives for a GGUF with no chat template
        metadata = {"general.name": "base"}

        def __init__(self, **_kw):
            self.closed = False

        def close(self):
            self.closed = True

    monkeypatch.setattr(llama_cpp, "Llama", BaseModel)
    with pytest.raises(RewindError) as err:
        llm.GgufLlm(specs.llm_spec(LLM), llm_dir, Settings())
    assert err.value.code is Code.MODEL_INVALID
    assert "chat template" in err.value.message and "Instruct" in err.value.hint


def test_chooses_the_largest_installed_model(tmp_path, llm_dir, monkeypatch):
    small = specs.llm_spec(LLM)
    big = specs.LlmSpec("bigger-model", "a pulled one", 4096, 0.2, 400, small.files)
    real_specs = specs.load_specs()
    fake = specs.Specs(real_specs.embedding, {small.name: small, big.name: big})
    monkeypatch.setattr(specs, "load_specs", lambda *a: fake)
    for spec, size in ((small, 10), (big, 20)):
        dest = specs.model_path(spec, tmp_path)
        dest.mkdir(parents=True)
        (dest / "model.gguf").write_bytes(b"x" * size)
    # Files present but unverified (no install marker) count as installed.
    assert llm.choose_spec(Settings(), tmp_path).name == "bigger-model"
    assert llm.choose_spec(Settings(llm_model=LLM), tmp_path).name == LLM


def test_vocab_only_tokenizer_counts_like_the_loaded_model(model, llm_dir):
    vocab = llm.tokenizer(specs.llm_spec(LLM), llm_dir)
    for text in (
        "",
        "Hello world.",
        "Pruning neighbours in HNSW graphs keeps diverse edges.",
        "naïve café — 東京 🚋 tram 28",
        "<|im_start|> is just text here",
    ):
        assert vocab.count(text) == model.tokenizer.count(text)
    text = "The borrow checker enforces one mutable reference or many shared ones."
    for n in range(0, vocab.count(text) + 2):
        cut = vocab.truncate(text, n)
        assert vocab.count(cut) <= n and text.startswith(cut.strip()[:3])


def test_stream_answers_and_stops_at_max_tokens(model):
    messages = [{"role": "user", "content": "Name three colours."}]
    pieces = list(model.stream(messages, max_tokens=12))
    assert pieces and all(isinstance(p, str) for p in pieces)
    assert model.tokenizer.count("".join(pieces)) <= 14
    assert model.finish_reason in ("stop", "length")


def test_cancel_before_start_returns_nothing(model):
    cancel = threading.Event()
    cancel.set()
    assert (
        list(model.stream([{"role": "user", "content": "Hi"}], max_tokens=50, cancel=cancel)) == []
    )


@pytest.mark.parametrize("when", ["prompt", "generation"])
def test_cancel_stops_within_a_second(model, when):
    long_prompt = " ".join(
        f"Fact {i}: the tram number {i} goes to district {i}." for i in range(200)
    )  # ~3,000 tokens: seconds of prompt processing
    content = long_prompt if when == "prompt" else "Write a long story about a tram."
    cancel = threading.Event()
    got: list[str] = []
    done = threading.Event()

    def run():
        for piece in model.stream(
            [{"role": "user", "content": content[:14000]}], max_tokens=300, cancel=cancel
        ):
            got.append(piece)
        done.set()

    t = threading.Thread(target=run)
    t.start()
    if when == "generation":
        deadline = time.monotonic() + 300
        while not got and time.monotonic() < deadline:
            time.sleep(0.01)
        assert got, "no token within 300 s"
    else:
        time.sleep(0.3)  # inside prompt processing
    t0 = time.monotonic()
    cancel.set()
    assert done.wait(5)
    stopped_after = time.monotonic() - t0
    t.join()
    assert stopped_after < 1.0, stopped_after
    # The model still answers normally afterwards (its cache is consistent).
    after = list(model.stream([{"role": "user", "content": "Say yes."}], max_tokens=5))
    assert after
