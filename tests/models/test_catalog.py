"""The ladder of answering models in models.json (models/catalog.py): what a person is
told about each one, and the memory it needs."""

from __future__ import annotations

import dataclasses
import re

import pytest
from rewind.config import Settings
from rewind.models import catalog, specs
from rewind.models.specs import FileSpec, LlmSpec, Measured, Shape
from support.onnx_fixtures import real_model_dir

DEFAULT = "smollm2-135m-instruct-q8_0"
LADDER = {
    "qwen2.5-1.5b-instruct-q4_k_m", "qwen2.5-3b-instruct-q4_k_m",
    "llama-3.2-1b-instruct-q4_k_m", "llama-3.2-3b-instruct-q4_k_m",
    "gemma-3-1b-it-q4_k_m", "gemma-3-4b-it-q4_k_m",
}


def test_the_ladder_is_in_the_catalog_with_what_a_person_needs_to_know():
    llms = specs.load_specs().llm
    assert LADDER | {DEFAULT} == set(llms)
    for name in LADDER:
        spec = llms[name]
        (f,) = spec.files
        assert f.name == "model.gguf" and f.download and not f.package
        repo, _, path = f.download.partition(" ")
        assert repo.count("/") == 1 and path.endswith(".gguf")
        # Instruction-tuned only: a base model has no chat template and never stops.
        assert re.search(r"(instruct|-it-)", path, re.I), path
        assert f.sha256 and re.fullmatch(r"[0-9a-f]{64}", f.sha256), name  # published
        assert f.bytes and f.bytes > 5e8 and spec.file_bytes == f.bytes
        assert spec.quantisation == "Q4_K_M" and spec.parameters_b >= 1
        assert spec.licence and spec.licence.name and spec.licence.terms
        assert spec.shape and spec.n_ctx <= spec.context_window
        assert spec.max_answer_tokens >= Settings().answer_length(spec.n_ctx)  # not cut


@pytest.mark.parametrize("name,licence,restricted", [
    ("qwen2.5-1.5b-instruct-q4_k_m", "Apache-2.0", False),
    ("qwen2.5-3b-instruct-q4_k_m", "Qwen Research License", True),  # not Apache, unlike 1.5B
    ("llama-3.2-1b-instruct-q4_k_m", "Llama 3.2 Community License", True),
    ("llama-3.2-3b-instruct-q4_k_m", "Llama 3.2 Community License", True),
    ("gemma-3-1b-it-q4_k_m", "Gemma Terms of Use", True),
    ("gemma-3-4b-it-q4_k_m", "Gemma Terms of Use", True),
])
def test_licences_and_what_they_limit(name, licence, restricted):
    lic = specs.llm_spec(name).licence
    assert lic is not None and lic.name == licence
    assert bool(lic.use) is restricted
    if "Qwen Research" in licence:
        assert "non-commercial" in lic.use


SHAPE = Shape(2, 4, 2, 8, 100)


def _spec(n_ctx=4096, measured=None, shape=SHAPE, size=1000) -> LlmSpec:
    return LlmSpec("m", "", n_ctx, 0.2, 400, (FileSpec("model.gguf", None, download="o/m f",
                                                      bytes=size),), shape=shape,
                   measured=measured)


def test_memory_estimate_adds_weights_kv_cache_and_compute_buffer():
    sh = Shape(layers=2, heads=4, kv_heads=2, head_dim=8, vocab=100)
    assert sh.kv_bytes_per_token == 2 * 2 * 2 * 8 * 2  # K and V, f16, every layer
    small = _spec(n_ctx=10, shape=sh)  # the batch's logits are the larger buffer
    assert catalog.estimated_bytes(small) == 1000 + 128 * 10 + 512 * 4 * 100
    long = _spec(n_ctx=1000, shape=sh)  # attention scores over the context are
    assert catalog.estimated_bytes(long) == 1000 + 128 * 1000 + 512 * 4 * 1000 * 4
    assert catalog.estimated_bytes(_spec(shape=None)) is None


def test_a_measured_peak_is_the_memory_a_model_needs():
    m = Measured(100.0, 10.0, 2, 123_456_789, "stand-in")
    spec = _spec(measured=m)
    assert catalog.memory_bytes(spec) == 123_456_789
    assert catalog.memory_bytes(dataclasses.replace(spec, measured=None)) == (
        catalog.estimated_bytes(spec))
    facts = catalog.facts(spec)
    assert facts["memory_bytes"] == 123_456_789 and facts["memory_measured"]


@pytest.mark.slow
def test_the_default_models_shape_is_what_its_gguf_says():
    # The shapes in models.json are copied from the models' published configs; the one
    # file here checks the copying (the others cannot be downloaded here).
    import llama_cpp

    spec = specs.llm_spec(DEFAULT)
    path = specs.model_path(spec, real_model_dir(DEFAULT)) / "model.gguf"
    meta = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False).metadata
    arch = meta["general.architecture"]
    sh = spec.shape
    assert sh is not None
    assert int(meta[f"{arch}.block_count"]) == sh.layers
    assert int(meta[f"{arch}.attention.head_count"]) == sh.heads
    assert int(meta[f"{arch}.attention.head_count_kv"]) == sh.kv_heads
    assert int(meta[f"{arch}.embedding_length"]) // sh.heads == sh.head_dim
    assert int(meta[f"{arch}.vocab_size"]) == sh.vocab
    assert int(meta[f"{arch}.context_length"]) == spec.context_window
    assert path.stat().st_size == spec.file_bytes
