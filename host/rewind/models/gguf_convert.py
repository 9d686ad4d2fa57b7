"""The offline answering model, once at install time: the package's Q4_1 GGUF re-encoded as
Q8_0 by llama.cpp's own quantizer (`llama_model_quantize`, through llama-cpp-python).

Why: reading the prompt decides when the first words of an answer appear, and on this
machine's CPUs llama.cpp reads a Q8_0 prompt about 1.8x as fast as a Q4_1 one, while
writing the answer runs at the same speed (docs/benchmarks.md, "First words"). Every Q4_1
weight (a 4-bit code times a block scale plus a block minimum) is re-encoded with 8 bits,
so the answers stay the model's own. The result is the same bytes on every machine with
the pinned llama-cpp-python (its sha256 is pinned in models.json).
This module must never download anything, and never write outside the model's folder.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
from pathlib import Path

from ..errors import Code, RewindError

LLAMA_FTYPE_MOSTLY_Q8_0 = 7  # llama.h's enum llama_ftype


def convert(source: Path, dest: Path) -> list[Path]:
    """Write `dest`/model.gguf, the Q8_0 re-encoding of `source` (atomically)."""
    try:
        import llama_cpp
    except ImportError:
        raise RewindError(
            Code.NOT_AVAILABLE,
            "llama-cpp-python is not installed, so the answering model cannot be prepared.",
            "Install Rewind with its answering extra (`pip install 'rewind[llm]'`), then run "
            "setup again.",
        ) from None
    out = dest / "model.gguf"
    tmp = dest / "model.gguf.part"
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = LLAMA_FTYPE_MOSTLY_Q8_0
    params.allow_requantize = True  # the source is quantised already: Q4_1 -> Q8_0
    params.nthread = min(2, os.cpu_count() or 1)
    with _quiet():
        rc = llama_cpp.llama_model_quantize(
            str(source).encode(), str(tmp).encode(), ctypes.byref(params)
        )
    if rc != 0:
        tmp.unlink(missing_ok=True)
        raise RewindError(
            Code.MODEL_INVALID,
            f"llama.cpp could not re-encode {source.name} (code {rc}).",
            "Check the disk has ~150 MB free and the file is intact; run setup again.",
        )
    os.replace(tmp, out)
    return [out]


@contextlib.contextmanager
def _quiet():
    """llama.cpp's per-tensor lines are not for the person running setup: llama-cpp-python
    prints its library's log at or above its logger's level (ERROR, as `verbose=False`)."""
    logger = logging.getLogger("llama-cpp-python")
    before = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(before)
