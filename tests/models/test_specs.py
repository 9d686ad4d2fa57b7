"""Model specs (models/specs.py) and the model directory's status (models/installed.py), and the
installed offline defaults."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from rewind.errors import Code, RewindError
from rewind.models import installed, specs
from rewind.models.installed import FileState
from support.onnx_fixtures import real_model_dir

# --- specs ---


def test_default_specs_load_with_their_fields():
    known = specs.load_specs()
    minilm = known.embedding["all-minilm-l6-v2-int8"]
    assert (minilm.dim, minilm.max_tokens, minilm.output, minilm.pooling) == (
        384,
        256,
        "last_hidden_state",
        "mean",
    )
    assert minilm.matryoshka_dims == (384, 256, 128)
    assert minilm.confidence_high > minilm.confidence_medium
    assert all(f.package and f.member and len(f.sha256 or "") == 64 for f in minilm.files)
    gemma = known.embedding["embeddinggemma-300m"]
    assert gemma.output == "sentence_embedding" and gemma.dim == 768
    assert gemma.query_prefix == "task: search result | query: "
    assert all(f.download and not f.package for f in gemma.files)
    llm = specs.llm_spec("smollm2-135m-instruct-q8_0")
    assert llm.n_ctx == 4096
    source, made = (f for f in llm.files)
    assert source.package and made.name == "model.gguf"
    assert (made.made_from, made.made_by) == (source.name, "gguf_q8_0")


def test_specs_get_finds_either_kind():
    known = specs.load_specs()
    assert known.get("embeddinggemma-300m") is known.embedding["embeddinggemma-300m"]
    assert known.get("smollm2-135m-instruct-q8_0").n_ctx == 4096
    with pytest.raises(RewindError) as err:
        known.get("nope")
    assert err.value.code is Code.NOT_FOUND and "all-minilm-l6-v2-int8" in err.value.hint


def test_specs_are_frozen():
    spec = specs.embedding_spec("all-minilm-l6-v2-int8")
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.dim = 3  # type: ignore[misc]


@pytest.mark.parametrize("lookup", [specs.embedding_spec, specs.llm_spec])
def test_unknown_model_names_the_known_ones(lookup):
    with pytest.raises(RewindError) as err:
        lookup("gpt-17")
    assert err.value.code is Code.NOT_FOUND
    assert "gpt-17" in err.value.message
    known = specs.load_specs()
    known = known.embedding if lookup is specs.embedding_spec else known.llm
    assert all(name in err.value.hint for name in known)


def test_a_packaged_file_without_checksum_is_rejected(tmp_path: Path):
    bad = tmp_path / "models.json"
    bad.write_text(
        '{"embedding": {}, "llm": {"x": {"description": "", "n_ctx": 1, "temperature": 0,'
        ' "max_answer_tokens": 1, "files": {"m": {"sha256": null, "package": "p==1",'
        ' "member": "m"}}}}}'
    )
    with pytest.raises(ValueError, match="sha256"):
        specs.load_specs(bad)


# --- status ---


def test_status_of_an_empty_dir_says_what_to_do(tmp_path: Path):
    minilm = specs.embedding_spec("all-minilm-l6-v2-int8")
    st = installed.status(minilm, tmp_path)
    assert not st.installed and st.missing == ["model.onnx", "tokenizer.json"]
    assert st.path == tmp_path / "all-minilm-l6-v2-int8" == specs.model_path(minilm, tmp_path)
    assert "python3 build.py install" in st.summary
    gemma = installed.status(specs.embedding_spec("embeddinggemma-300m"), tmp_path)
    assert gemma.summary == (
        "not installed — download it (needs internet) with `rewind models pull embeddinggemma-300m`"
    )


def test_describe_lists_every_model(tmp_path: Path):
    rows = {r["name"]: r for r in installed.describe(tmp_path)}
    assert set(rows) == set(specs.load_specs().embedding) | set(specs.load_specs().llm)
    assert rows["all-minilm-l6-v2-int8"]["kind"] == "embedding"
    assert rows["all-minilm-l6-v2-int8"]["dim"] == 384
    assert rows["smollm2-135m-instruct-q8_0"]["dim"] is None
    assert rows["embeddinggemma-300m"]["missing"] == [
        "model.onnx",
        "model.onnx_data",
        "tokenizer.json",
    ]
    assert not any(r["installed"] for r in rows.values())


# --- the real offline defaults ---


@pytest.mark.slow
@pytest.mark.parametrize("name", ["all-minilm-l6-v2-int8", "smollm2-135m-instruct-q8_0"])
def test_installed_default_models_verify(name):
    model_dir = real_model_dir(name)
    spec = specs.load_specs().get(name)
    st = installed.status(spec, model_dir, verify=True)
    assert st.installed, st.summary
    assert all(f.state is FileState.OK for f in st.files)
