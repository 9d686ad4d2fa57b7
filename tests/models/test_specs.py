"""Model specs and status (index/models.py), and the installed offline defaults."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from onnx_fixtures import real_model_dir
from rewind.errors import Code, RewindError
from rewind.index import models
from rewind.index.models import FileState

# --- specs ---


def test_default_specs_load_with_their_fields():
    specs = models.load_specs()
    minilm = specs.embedding["all-minilm-l6-v2-int8"]
    assert (minilm.dim, minilm.max_tokens, minilm.output, minilm.pooling) == (
        384,
        256,
        "last_hidden_state",
        "mean",
    )
    assert minilm.matryoshka_dims == (384, 256, 128)
    assert minilm.confidence_high > minilm.confidence_medium
    assert all(f.package and f.member and len(f.sha256 or "") == 64 for f in minilm.files)
    gemma = specs.embedding["embeddinggemma-300m"]
    assert gemma.output == "sentence_embedding" and gemma.dim == 768
    assert gemma.query_prefix == "task: search result | query: "
    assert all(f.download and not f.package for f in gemma.files)
    llm = models.llm_spec("smollm2-135m-instruct-q4_1")
    assert llm.n_ctx == 4096 and llm.files[0].name == "model.gguf"


def test_specs_get_finds_either_kind():
    specs = models.load_specs()
    assert specs.get("embeddinggemma-300m") is specs.embedding["embeddinggemma-300m"]
    assert specs.get("smollm2-135m-instruct-q4_1").n_ctx == 4096
    with pytest.raises(RewindError) as err:
        specs.get("nope")
    assert err.value.code is Code.NOT_FOUND and "all-minilm-l6-v2-int8" in err.value.hint


def test_specs_are_frozen():
    spec = models.embedding_spec("all-minilm-l6-v2-int8")
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.dim = 3  # type: ignore[misc]


@pytest.mark.parametrize("lookup", [models.embedding_spec, models.llm_spec])
def test_unknown_model_names_the_known_ones(lookup):
    with pytest.raises(RewindError) as err:
        lookup("gpt-17")
    assert err.value.code is Code.NOT_FOUND
    assert "gpt-17" in err.value.message
    specs = models.load_specs()
    known = specs.embedding if lookup is models.embedding_spec else specs.llm
    assert all(name in err.value.hint for name in known)


def test_a_packaged_file_without_checksum_is_rejected(tmp_path: Path):
    bad = tmp_path / "models.json"
    bad.write_text(
        '{"embedding": {}, "llm": {"x": {"description": "", "n_ctx": 1, "temperature": 0,'
        ' "max_answer_tokens": 1, "files": {"m": {"sha256": null, "package": "p==1",'
        ' "member": "m"}}}}}'
    )
    with pytest.raises(ValueError, match="sha256"):
        models.load_specs(bad)


# --- status ---


def test_status_of_an_empty_dir_says_what_to_do(tmp_path: Path):
    minilm = models.embedding_spec("all-minilm-l6-v2-int8")
    st = models.status(minilm, tmp_path)
    assert not st.installed and st.missing == ["model.onnx", "tokenizer.json"]
    assert st.path == tmp_path / "all-minilm-l6-v2-int8" == models.model_path(minilm, tmp_path)
    assert "python3 build.py install" in st.summary
    gemma = models.status(models.embedding_spec("embeddinggemma-300m"), tmp_path)
    assert gemma.summary == (
        "not installed — download it (needs internet) with `rewind models pull embeddinggemma-300m`"
    )


def test_describe_lists_every_model(tmp_path: Path):
    rows = {r["name"]: r for r in models.describe(tmp_path)}
    assert set(rows) == set(models.load_specs().embedding) | set(models.load_specs().llm)
    assert rows["all-minilm-l6-v2-int8"]["kind"] == "embedding"
    assert rows["all-minilm-l6-v2-int8"]["dim"] == 384
    assert rows["smollm2-135m-instruct-q4_1"]["dim"] is None
    assert rows["embeddinggemma-300m"]["missing"] == [
        "model.onnx",
        "model.onnx_data",
        "tokenizer.json",
    ]
    assert not any(r["installed"] for r in rows.values())


# --- the real offline defaults ---


@pytest.mark.slow
@pytest.mark.parametrize("name", ["all-minilm-l6-v2-int8", "smollm2-135m-instruct-q4_1"])
def test_installed_default_models_verify(name):
    model_dir = real_model_dir(name)
    spec = models.load_specs().get(name)
    st = models.status(spec, model_dir, verify=True)
    assert st.installed, st.summary
    assert all(f.state is FileState.OK for f in st.files)
