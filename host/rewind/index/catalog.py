"""The answering models' facts beyond their files: licence, shape, and the memory they need.

models.json says, for each language model, who published the GGUF, its licence, its
quantisation and its shape (layers, KV heads, head size, vocabulary: the published
config). From the shape and the context window Rewind loads it with follows an estimate
of the memory it needs; bench/ladder.py compares the estimate with what the offline
default really uses. This module must never load or download a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .models import LlmSpec

LLAMA_BATCH = 512  # llama-cpp-python's n_batch (answers/llm.py keeps its default)


@dataclass(frozen=True)
class Licence:
    name: str
    terms: str  # where its text is
    use: str = ""  # what it limits, in a phrase ("" when nothing worth saying)


@dataclass(frozen=True)
class Shape:
    """What a GGUF model's memory follows from (its published config)."""

    layers: int
    kv_heads: int
    head_dim: int
    vocab: int

    @property
    def kv_bytes_per_token(self) -> int:
        """K and V in f16, every layer. Sliding-window layers (Gemma 3) keep fewer
        tokens, so for them this is an upper bound."""
        return 2 * self.layers * self.kv_heads * self.head_dim * 2


def memory_bytes(spec: LlmSpec) -> int | None:
    """Memory to run `spec`, estimated: its weights + the KV cache at the context Rewind
    loads it with + llama.cpp's compute buffer (a 512-token batch's logits dominate it).
    None when models.json does not give its size and shape."""
    if spec.shape is None or spec.file_bytes is None:
        return None
    kv = spec.shape.kv_bytes_per_token * spec.n_ctx
    return spec.file_bytes + kv + spec.shape.vocab * LLAMA_BATCH * 4


def facts(spec: LlmSpec) -> dict[str, Any]:
    """What a person choosing an answering model wants to know about it (`rewind models`)."""
    lic = spec.licence
    return {
        "family": spec.family,
        "parameters_b": spec.parameters_b,
        "quantisation": spec.quantisation,
        "licence": {"name": lic.name, "terms": lic.terms, "use": lic.use} if lic else None,
        "n_ctx": spec.n_ctx,
        "context_window": spec.context_window,
        "file_bytes": spec.file_bytes,
        "memory_bytes": memory_bytes(spec),
    }
