"""OnnxEmbedder on tiny ONNX models built here: pooling, outputs, inputs, batching, lanes,
truncation, prefixes, the query cache and the errors; and the fake embedder's contract.
The real MiniLM model: test_embedder_minilm.py."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from rewind.config import Settings
from rewind.errors import Code, RewindError
from rewind.models import embedder, specs
from rewind.models.embedder import Embedder, FakeEmbedder, OnnxEmbedder
from support.onnx_fixtures import (
    VOCAB,
    RecordingSession,
    make_tiny_model_dir,
    record,
    tiny_spec,
)

SETTINGS = Settings()


def ids(text: str) -> list[int]:
    return [VOCAB["[CLS]"], *(VOCAB.get(w, VOCAB["[UNK]"]) for w in text.split()), VOCAB["[SEP]"]]


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def mean_pooled(w, text: str) -> np.ndarray:
    return w.table[ids(text)].mean(axis=0)


def sentence(w, text: str) -> np.ndarray:
    return w.table[ids(text)].sum(axis=0) @ w.projection


# --- tiny models: the plumbing ---


def test_mean_pools_last_hidden_state_over_the_mask(tmp_path: Path):
    spec = tiny_spec()
    w = make_tiny_model_dir(tmp_path, spec)
    emb = OnnxEmbedder(spec, tmp_path, SETTINGS)
    texts = ["the cat sat on the mat", "dog", "stock market fell today"]
    got = emb.embed_documents(texts)
    assert got.dtype == np.float32 and got.shape == (3, 8)
    want = np.stack([unit(mean_pooled(w, t)) for t in texts])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_sentence_embedding_output_is_taken_as_is(tmp_path: Path):
    spec = tiny_spec(output="sentence_embedding")
    w = make_tiny_model_dir(tmp_path, spec, outputs=("last_hidden_state", "sentence_embedding"))
    emb = OnnxEmbedder(spec, tmp_path, SETTINGS)
    texts = ["the cat sat", "dog ran in the park"]
    got = emb.embed_documents(texts)
    np.testing.assert_allclose(got, [unit(sentence(w, t)) for t in texts], rtol=1e-5, atol=1e-6)
    assert not np.allclose(got[0], unit(mean_pooled(w, texts[0])), atol=1e-3)


def test_transformer_only_export_is_refused_for_a_sentence_embedding_spec(tmp_path: Path):
    spec = tiny_spec(name="gemma-like", output="sentence_embedding")
    make_tiny_model_dir(tmp_path, spec, outputs=("last_hidden_state",))
    with pytest.raises(RewindError) as err:
        OnnxEmbedder(spec, tmp_path, SETTINGS)
    assert err.value.code is Code.MODEL_INVALID
    assert "transformer-only export (last_hidden_state)" in err.value.message
    assert "mean-pooling it does not give EmbeddingGemma's vectors" in err.value.message
    assert "sentence_embedding" in err.value.hint and "onnx-community" in err.value.hint


def test_matryoshka_truncates_then_renormalises(tmp_path: Path):
    spec = tiny_spec()
    w = make_tiny_model_dir(tmp_path, spec)
    emb = OnnxEmbedder(spec, tmp_path, SETTINGS, dim=4)
    assert (emb.dim, emb.model_id) == (4, "tiny@4")
    got = emb.embed_documents(["the cat sat", "market"])
    assert got.shape == (2, 4)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(got[0], unit(mean_pooled(w, "the cat sat")[:4]), rtol=1e-5)
    assert emb.embed_query("dog").shape == (4,)
    assert OnnxEmbedder(spec, tmp_path, SETTINGS).model_id == "tiny@8"


def test_a_dimension_the_model_does_not_offer_is_refused(tmp_path: Path):
    spec = tiny_spec()
    make_tiny_model_dir(tmp_path, spec)
    with pytest.raises(RewindError) as err:
        OnnxEmbedder(spec, tmp_path, SETTINGS, dim=5)
    assert err.value.code is Code.BAD_REQUEST and "8, 4" in err.value.hint


@pytest.mark.parametrize(
    "inputs",
    [
        ("input_ids",),
        ("input_ids", "attention_mask", "token_type_ids"),
        ("input_ids", "attention_mask", "position_ids"),
    ],
)
def test_only_declared_inputs_are_fed(tmp_path: Path, inputs):
    # onnxruntime rejects a feed the graph does not declare, so running proves it too.
    spec = tiny_spec()
    w = make_tiny_model_dir(tmp_path, spec, inputs=inputs)
    emb = OnnxEmbedder(spec, tmp_path, SETTINGS)
    rec = record(emb)
    got = emb.embed_documents(["the cat", "dog ran in the park"])
    assert set(rec.feeds[0]) == set(inputs)
    if "position_ids" in inputs:
        n = len(ids("dog ran in the park"))
        want = unit((w.table[ids("dog ran in the park")] + w.positions[:n]).mean(axis=0))
        np.testing.assert_allclose(got[1], want, rtol=1e-5, atol=1e-6)
    elif "attention_mask" in inputs:
        np.testing.assert_allclose(got[0], unit(mean_pooled(w, "the cat")), rtol=1e-5, atol=1e-6)


def test_an_input_we_cannot_make_is_refused(tmp_path: Path):
    spec = tiny_spec()
    make_tiny_model_dir(tmp_path, spec, inputs=("input_ids", "pixel_values"))
    with pytest.raises(RewindError) as err:
        OnnxEmbedder(spec, tmp_path, SETTINGS)
    assert err.value.code is Code.MODEL_INVALID and "pixel_values" in err.value.message


def test_padding_is_to_the_batch_longest_with_the_spec_pad_id(tmp_path: Path):
    spec = tiny_spec()  # the fixture tokenizer, like upstream ones, pads to a fixed 128
    make_tiny_model_dir(tmp_path, spec)
    emb = OnnxEmbedder(spec, tmp_path, dataclasses.replace(SETTINGS, embed_batch_size=8))
    rec = record(emb)
    emb.embed_documents(["the cat", "dog ran in the park"])
    feeds = rec.feeds[0]
    assert feeds["input_ids"].shape == (2, 7)
    assert feeds["input_ids"][0].tolist() == [*ids("the cat"), 0, 0, 0]
    assert feeds["attention_mask"][0].tolist() == [1, 1, 1, 1, 0, 0, 0]


def test_batches_are_sorted_by_length_and_rows_come_back_in_input_order(tmp_path: Path):
    spec = tiny_spec()
    w = make_tiny_model_dir(tmp_path, spec)
    texts = ["the cat sat on the mat today", "dog", "stock market fell", "in", "park ran", "on"]
    want = np.stack([unit(mean_pooled(w, t)) for t in texts])
    for lanes in (1, 2):  # one run at a time, shortest first; or two at once, longest first
        emb = OnnxEmbedder(spec, tmp_path, dataclasses.replace(
            SETTINGS, embed_batch_size=2, embed_lanes=lanes))
        rec = record(emb)
        got = emb.embed_documents(texts)
        shapes = [f["input_ids"].shape for f in rec.feeds]
        assert (shapes if lanes == 1 else sorted(shapes)) == [(2, 3), (2, 4), (2, 9)]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert emb.embed_documents([]).shape == (0, 8)


class CountingSession(RecordingSession):
    """Also counts the runs in flight at once (each held a little, so they can overlap)."""

    def __init__(self, session) -> None:
        super().__init__(session)
        self.lock = threading.Lock()
        self.now = self.most = 0

    def run(self, names, feeds, options=None):
        if options is not None:
            return super().run(names, feeds, options)
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.02)
        try:
            return super().run(names, feeds)
        finally:
            with self.lock:
                self.now -= 1


@pytest.mark.parametrize("lanes", [1, 2, 3])
def test_runs_at_once_never_exceed_the_lanes_queries_included(tmp_path: Path, lanes: int):
    spec = tiny_spec()
    make_tiny_model_dir(tmp_path, spec)
    emb = OnnxEmbedder(spec, tmp_path, dataclasses.replace(
        SETTINGS, embed_batch_size=1, embed_lanes=lanes, query_cache_size=0))
    counting = CountingSession(emb._session)
    emb._session = counting  # type: ignore[assignment]
    texts = [" ".join(["the cat sat"] * (i % 4 + 1)) for i in range(12)]
    queries = threading.Thread(target=lambda: [emb.embed_query(f"cat {i}") for i in range(5)])
    queries.start()
    got = emb.embed_documents(texts)
    queries.join()
    assert counting.most == lanes and len(counting.feeds) == 12 + 5
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-5)


def test_the_arena_is_shrunk_once_documents_stop_coming(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(embedder, "IDLE_SHRINK_S", 0.5)
    spec = tiny_spec()
    make_tiny_model_dir(tmp_path, spec)
    emb = OnnxEmbedder(spec, tmp_path, SETTINGS)
    rec = record(emb)
    first = emb.embed_documents(["the cat sat"])
    emb.embed_documents(["the dog"])  # within the idle time: the first shrink is put off
    emb.embed_query("cat")
    assert rec.options == []
    deadline = time.monotonic() + 5
    while not rec.options and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.7)  # no second shrink follows
    assert len(rec.options) == 1
    assert rec.options[0].get_run_config_entry(
        "memory.enable_memory_arena_shrinkage") == "cpu:0"
    np.testing.assert_array_equal(emb.embed_documents(["the cat sat"]), first)


def test_long_texts_are_truncated_to_max_tokens(tmp_path: Path):
    spec = tiny_spec(max_tokens=16)
    w = make_tiny_model_dir(tmp_path, spec)
    emb = OnnxEmbedder(spec, tmp_path, SETTINGS)
    long = " ".join(["the cat sat on the mat"] * 50)
    assert emb.count_tokens(long) == 302 and emb.count_tokens("the cat") == 4
    cut = emb.truncate_to_tokens(long, 16)
    assert emb.count_tokens(cut) == 16 and long.startswith(cut)
    assert emb.truncate_to_tokens("the cat", 16) == "the cat"
    got = emb.embed_documents([long])[0]
    np.testing.assert_allclose(got, unit(mean_pooled(w, cut)), rtol=1e-5, atol=1e-6)


def test_prefixes_are_added_to_queries_and_documents(tmp_path: Path):
    spec = tiny_spec(query_prefix="query ", document_prefix="text ")
    w = make_tiny_model_dir(tmp_path, spec)
    emb = OnnxEmbedder(spec, tmp_path, SETTINGS)
    q, d = emb.embed_query("the cat"), emb.embed_documents(["the cat"])[0]
    np.testing.assert_allclose(q, unit(mean_pooled(w, "query the cat")), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d, unit(mean_pooled(w, "text the cat")), rtol=1e-5, atol=1e-6)
    assert emb.count_tokens("the cat") == 5  # [CLS] text the cat [SEP]


def test_query_cache_is_a_bounded_per_instance_lru(tmp_path: Path):
    spec = tiny_spec()
    make_tiny_model_dir(tmp_path, spec)
    emb = OnnxEmbedder(spec, tmp_path, dataclasses.replace(SETTINGS, query_cache_size=2))
    rec = record(emb)
    a = emb.embed_query("the cat")
    assert emb.embed_query("the cat") is a and len(rec.feeds) == 1
    assert not a.flags.writeable  # a caller cannot corrupt the cached vector
    emb.embed_query("dog")
    emb.embed_query("the cat")  # refreshes "the cat"
    emb.embed_query("park")  # evicts "dog", the least recently used
    runs = len(rec.feeds)
    emb.embed_query("the cat")
    assert len(rec.feeds) == runs
    emb.embed_query("dog")
    assert len(rec.feeds) == runs + 1


def test_missing_files_say_how_to_get_them(tmp_path: Path):
    with pytest.raises(RewindError) as err:
        OnnxEmbedder(tiny_spec(name="absent"), tmp_path, SETTINGS)
    assert err.value.code is Code.MODEL_MISSING
    assert "model.onnx, tokenizer.json" in err.value.message
    assert "rewind models pull absent" in err.value.hint

    minilm = specs.embedding_spec("all-minilm-l6-v2-int8")
    with pytest.raises(RewindError) as err:
        OnnxEmbedder(minilm, tmp_path, SETTINGS)
    assert err.value.code is Code.MODEL_MISSING
    assert err.value.hint == "Run `python3 build.py install`."


def test_a_corrupt_model_file_is_model_invalid(tmp_path: Path):
    spec = tiny_spec()
    make_tiny_model_dir(tmp_path, spec)
    (tmp_path / "tiny" / "model.onnx").write_bytes(b"\x00garbage" * 10)
    with pytest.raises(RewindError) as err:
        OnnxEmbedder(spec, tmp_path, SETTINGS)
    assert err.value.code is Code.MODEL_INVALID and "onnxruntime cannot load" in err.value.message


def test_a_pad_id_the_tokenizer_disagrees_with_is_refused(tmp_path: Path):
    spec = dataclasses.replace(tiny_spec(), pad_id=1)
    make_tiny_model_dir(tmp_path, spec)
    with pytest.raises(RewindError) as err:
        OnnxEmbedder(spec, tmp_path, SETTINGS)
    assert err.value.code is Code.MODEL_INVALID and "[PAD]" in err.value.message


# --- the fake ---


def test_fake_embedder_keeps_the_contract():
    fake: Embedder = FakeEmbedder(dim=32)
    v = fake.embed_documents(["the cat sat", "the cat sat", "stock market", ""])
    assert v.shape == (4, 32) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-6)
    assert np.array_equal(v[0], v[1])
    q = fake.embed_query("cat sat")
    assert q @ v[0] > q @ v[2]
    assert fake.embed_documents([]).shape == (0, 32)
    assert fake.count_tokens("a b c") == 3 and fake.truncate_to_tokens("a b, c", 2) == "a b"
