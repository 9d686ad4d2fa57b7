"""OnnxEmbedder on the real offline default, all-MiniLM-L6-v2 int8 (loaded once for the
module): unit rows, order kept across batches, similarity, truncation, padding, prefixes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from rewind.config import Settings
from rewind.models import specs
from rewind.models.embedder import OnnxEmbedder
from rewind.models.multilingual import open_embedder
from support.onnx_fixtures import real_model_dir, record

SETTINGS = Settings()
MINILM = "all-minilm-l6-v2-int8"


@pytest.fixture(scope="module")
def minilm() -> OnnxEmbedder:
    model_dir = real_model_dir(MINILM)
    settings = dataclasses.replace(SETTINGS, default_embedding_model=MINILM, embed_batch_size=4)
    return open_embedder(settings, model_dir)


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


@pytest.mark.slow
def test_real_vectors_are_unit_float32_rows(minilm: OnnxEmbedder):
    v = minilm.embed_documents(["A short one.", "Another passage about gardening in spring."])
    assert v.shape == (2, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-5)
    assert minilm.model_id == "all-minilm-l6-v2-int8@384"


@pytest.mark.slow
def test_real_order_is_preserved_with_mixed_lengths(minilm: OnnxEmbedder):
    texts = [
        "Rust's borrow checker enforces aliasing rules at compile time. " * 8,
        "Tea.",
        "The Treaty of Westphalia ended the Thirty Years' War in 1648.",
        "How to repot a fiddle leaf fig without shocking the roots " * 3,
        "Python lists are dynamic arrays.",
        "Mitochondria produce ATP through oxidative phosphorylation in the inner membrane.",
    ]
    batched = minilm.embed_documents(texts)  # batch size 4: sorted, two batches
    for i, text in enumerate(texts):
        assert cos(batched[i], minilm.embed_documents([text])[0]) > 0.9999


@pytest.mark.slow
def test_real_similar_sentences_score_higher_than_unrelated(minilm: OnnxEmbedder):
    v = minilm.embed_documents(
        [
            "The cat sat on the mat.",
            "A kitten was sitting on a rug.",
            "Quarterly earnings rose by ten percent.",
        ]
    )
    assert cos(v[0], v[1]) > 0.5 > 0.2 > cos(v[0], v[2])
    q = minilm.embed_query("where did the kitten sit")
    assert cos(q, v[1]) > cos(q, v[2]) + 0.3


@pytest.mark.slow
def test_real_five_thousand_word_text_is_truncated(minilm: OnnxEmbedder):
    words = [
        "memory",
        "palace",
        "technique",
        "helps",
        "people",
        "recall",
        "long",
        "lists",
        "of",
        "items",
    ]
    text = " ".join(words[i % len(words)] for i in range(5000))
    assert minilm.count_tokens(text) > 5000
    cut = minilm.truncate_to_tokens(text, minilm.max_tokens)
    assert minilm.count_tokens(cut) <= minilm.max_tokens and text.startswith(cut)
    rec = record(minilm)
    try:
        v = minilm.embed_documents([text])[0]
    finally:
        minilm._session = rec.session
    assert rec.feeds[0]["input_ids"].shape == (1, 256)
    assert cos(v, minilm.embed_documents([cut])[0]) > 0.999


@pytest.mark.slow
def test_real_padding_follows_the_batch_not_128(minilm: OnnxEmbedder):
    rec = record(minilm)
    try:
        minilm.embed_documents(["Tea.", "Coffee, please."])
    finally:
        minilm._session = rec.session
    assert rec.feeds[0]["input_ids"].shape == (2, 6)  # [CLS] coffee , please . [SEP]
    assert set(rec.feeds[0]) == {"input_ids", "attention_mask", "token_type_ids"}


@pytest.mark.slow
def test_real_query_prefix_is_used(tmp_path: Path):
    model_dir = real_model_dir(MINILM)
    spec = dataclasses.replace(specs.embedding_spec(MINILM), query_prefix="search query: ")
    emb = OnnxEmbedder(spec, model_dir, SETTINGS)
    q = emb.embed_query("garden tools")
    assert cos(q, emb.embed_documents(["search query: garden tools"])[0]) > 0.9999
    assert cos(q, emb.embed_documents(["garden tools"])[0]) < 0.99
