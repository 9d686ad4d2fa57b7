"""The answering models' facts beyond their files: licence, shape, and the memory they need.

models.json says, for each language model, who published the GGUF, its licence, its
quantisation and its shape (layers, heads, KV heads, head size, vocabulary: the published
config), and what bench/perf/ladder.py measured of it here (specs.py reads them into
`Licence`, `Shape` and `Measured`). The memory a model needs is that measured peak, or else
an estimate from the shape and the context window Rewind loads it with.
This module must never load or download a model.
"""

from __future__ import annotations

from typing import Any

from .specs import LlmSpec

LLAMA_BATCH = 512  # llama-cpp-python's n_batch (answers/llm.py keeps its default)


def estimated_bytes(spec: LlmSpec) -> int | None:
    """Memory to run `spec`, estimated: its weights + the KV cache at the context Rewind
    loads it with + llama.cpp's compute buffer, whose largest part is a 512-token batch's
    logits or its attention scores over the whole context, whichever is larger. None when
    models.json does not give its size and shape."""
    sh = spec.shape
    if sh is None or spec.file_bytes is None:
        return None
    kv = sh.kv_bytes_per_token * spec.n_ctx
    compute = LLAMA_BATCH * 4 * max(sh.vocab, spec.n_ctx * sh.heads)
    return spec.file_bytes + kv + compute


def memory_bytes(spec: LlmSpec) -> int | None:
    """The memory `spec` needs: the peak bench/perf/ladder.py measured (the model, or a stand-in
    of its shape), else the estimate."""
    if spec.measured is not None and spec.measured.peak_rss_bytes:
        return spec.measured.peak_rss_bytes
    return estimated_bytes(spec)


def facts(spec: LlmSpec) -> dict[str, Any]:
    """What a person choosing an answering model wants to know about it (`rewind models`)."""
    lic = spec.licence
    return {
        "family": spec.family,
        "parameters_b": spec.parameters_b,
        "quantisation": spec.quantisation,
        "licence": {"name": lic.name, "terms": lic.terms, "use": lic.use,
                    "commercial": lic.commercial} if lic else None,
        "n_ctx": spec.n_ctx,
        "context_window": spec.context_window,
        "file_bytes": spec.file_bytes,
        "memory_bytes": memory_bytes(spec),
        "memory_measured": bool(spec.measured and spec.measured.peak_rss_bytes),
    }
