"""Text -> unit vectors: the `Embedder` contract, the ONNX implementation and a fake.

`OnnxEmbedder` runs any ONNX sentence-embedding model with a tokenizer.json as its spec
(models.json) describes it. `FakeEmbedder` is deterministic, for unit tests of the logic
around embeddings. This module must never download anything, and never store vectors:
the caller stores them with `model_id`.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import numpy as np
import onnxruntime as ort
from tokenizers import Encoding, Tokenizer

from .. import config, heap
from ..config import Settings
from ..errors import Code, RewindError
from . import installed
from .specs import Confidence, EmbeddingSpec


class Embedder(Protocol):
    """Turns passages and queries into vectors.

    Contract:
    - `embed_documents(texts)` returns float32 (len(texts), dim): one row per text, in input
      order, each of unit L2 norm; an empty input gives shape (0, dim).
    - `embed_query(text)` returns float32 (dim,), unit norm, read-only (it may be cached).
    - Documents and queries get the model's own prefixes; callers pass raw text.
    - Texts longer than `max_tokens` are truncated, never refused.
    - `model_id` names the model and dimension ("name@dim"). Vectors are comparable only
      with vectors of the same model_id: store it with every vector.
    - `confidence` holds the cosines that count as a high / medium match on this model's
      scale (its spec's).
    - `count_tokens(text)` counts what the model sees for `text` as a document (prefix and
      special tokens included, before truncation); `truncate_to_tokens(text, n)` returns
      the longest prefix of text whose count is at most n (approximately, at token joins).
    """

    model_id: str
    dim: int
    max_tokens: int
    confidence: Confidence

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...

    def count_tokens(self, text: str) -> int: ...

    def truncate_to_tokens(self, text: str, n: int) -> str: ...


def _normalise(v: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return (v / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


class _QueryCache:
    """A small per-instance LRU (functools.lru_cache on a method would pin every instance)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> np.ndarray | None:
        with self._lock:
            v = self._data.get(key)
            if v is not None:
                self._data.move_to_end(key)
            return v

    def put(self, key: str, value: np.ndarray) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)


# onnxruntime's arena keeps the largest batch's tensors for reuse: a process that embedded
# pages of up to 8 passages held 367 MB anonymous, 198 without the arena (whose largest
# pages then took half as long again: every large tensor a fresh mapping) and 134 once the
# arena was shrunk. So it is kept while pages come, and shrunk this long after the last.
IDLE_SHRINK_S = 2.0
_SHRINK = ort.RunOptions()
_SHRINK.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")

_INPUTS = ("input_ids", "attention_mask", "token_type_ids", "position_ids")
_ORT_INT = {"tensor(int64)": np.int64, "tensor(int32)": np.int32}


class OnnxEmbedder:
    """An ONNX embedding model run with onnxruntime and a tokenizers tokenizer.json."""

    def __init__(
        self, spec: EmbeddingSpec, model_dir: Path, settings: Settings, dim: int | None = None
    ) -> None:
        self.spec = spec
        self.dim = spec.dim if dim is None else dim
        if self.dim != spec.dim and self.dim not in spec.matryoshka_dims:
            raise RewindError(
                Code.BAD_REQUEST,
                f"{spec.name} cannot give {self.dim}-dimensional vectors.",
                f"Choose one of its dimensions: {', '.join(map(str, spec.matryoshka_dims))}.",
            )
        self.model_id = f"{spec.name}@{self.dim}"
        self.confidence = spec.confidence
        self.max_tokens = spec.max_tokens
        self._batch_size = max(1, settings.embed_batch_size)
        self._cache = _QueryCache(settings.query_cache_size)
        # At most `embed_lanes` runs at once, whoever asks (a query waits for a lane).
        self._lanes = max(1, settings.embed_lanes)
        self._run_slots = threading.BoundedSemaphore(self._lanes)
        self._shrink_timer: threading.Timer | None = None
        self._timer_lock = threading.Lock()

        st = installed.require_installed(spec, model_dir)
        self._tok = self._load_tokenizer(st.path / "tokenizer.json")
        self._session = self._load_session(st.path / "model.onnx", settings)
        self._special = len(self._tok.encode("").ids)  # e.g. [CLS] [SEP]

    # --- loading ---

    def _invalid(self, message: str, hint: str = "") -> RewindError:
        again = (f"Reinstall it (`{config.setup_command()}`, or `rewind models pull` for "
                     "downloads).")
        return RewindError(Code.MODEL_INVALID, f"{self.spec.name}: {message}", hint or again)

    def _load_tokenizer(self, path: Path) -> Tokenizer:
        try:
            tok = Tokenizer.from_file(str(path))
        except Exception as e:  # tokenizers raises plain Exception on bad JSON
            raise self._invalid(f"cannot read {path}: {e}") from e
        # Upstream files pad and truncate to a fixed 128: we truncate to the spec's
        # max_tokens and pad each batch to its longest ourselves (_arrays).
        tok.no_truncation()
        tok.no_padding()
        if tok.token_to_id(self.spec.pad_token) != self.spec.pad_id:
            raise self._invalid(
                f"its tokenizer's {self.spec.pad_token!r} is not id {self.spec.pad_id}.",
                "models.json and the tokenizer disagree: fix pad_token/pad_id in the spec.",
            )
        return tok

    def _load_session(self, path: Path, settings: Settings) -> ort.InferenceSession:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = settings.onnx_threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # Shapes change with every batch, so memory patterns never repay; turning them off
        # cut peak RSS from 831 to 540 MB at batch 16 (bench/perf/embedder.py).
        opts.enable_mem_pattern = False
        try:
            session = ort.InferenceSession(
                str(path), sess_options=opts, providers=["CPUExecutionProvider"]
            )
        except Exception as e:  # onnxruntime raises its own Fail/InvalidGraph types
            raise self._invalid(f"onnxruntime cannot load {path}: {e}") from e
        outputs = [o.name for o in session.get_outputs()]
        if self.spec.output not in ("sentence_embedding", "last_hidden_state"):
            raise self._invalid(f"unknown output kind {self.spec.output!r} in models.json")
        if self.spec.output == "sentence_embedding" and "sentence_embedding" not in outputs:
            raise self._invalid(
                f"{path} has outputs {outputs}: it is a transformer-only export "
                "(last_hidden_state); mean-pooling it does not give EmbeddingGemma's vectors.",
                "Use the onnx-community export, whose graph has the sentence_embedding "
                f"output (`rewind models pull {self.spec.name}`).",
            )
        if self.spec.output == "last_hidden_state" and (
            "last_hidden_state" not in outputs or self.spec.pooling != "mean"
        ):
            raise self._invalid(f"needs a last_hidden_state output and mean pooling: {outputs}")
        self._inputs: dict[str, type[np.integer]] = {}
        for i in session.get_inputs():
            if i.name not in _INPUTS or i.type not in _ORT_INT:
                raise self._invalid(f"the model wants an input {i.name} ({i.type}) we cannot feed")
            self._inputs[i.name] = _ORT_INT[i.type]
        return session

    # --- tokens ---

    def _encode(self, texts: Sequence[str], prefix: str) -> list[Encoding]:
        """Tokenise with special tokens, each truncated to max_tokens."""
        encs = self._tok.encode_batch([prefix + t for t in texts], add_special_tokens=False)
        out = []
        for e in encs:
            e.truncate(max(0, self.max_tokens - self._special))
            out.append(self._tok.post_process(e))
        return out

    def _arrays(self, encs: Sequence[Encoding]) -> dict[str, np.ndarray]:
        """All inputs we can make, padded to the batch's longest with the spec's pad id."""
        n, width = len(encs), max(len(e.ids) for e in encs)
        ids = np.full((n, width), self.spec.pad_id, dtype=np.int64)
        mask = np.zeros((n, width), dtype=np.int64)
        types = np.zeros((n, width), dtype=np.int64)
        for row, e in enumerate(encs):
            k = len(e.ids)
            ids[row, :k] = e.ids
            mask[row, :k] = e.attention_mask
            types[row, :k] = e.type_ids
        positions = np.broadcast_to(np.arange(width, dtype=np.int64), (n, width))
        return {
            "input_ids": ids,
            "attention_mask": mask,
            "token_type_ids": types,
            "position_ids": positions,
        }

    def _feeds(self, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Only what the session declares: exports differ (position_ids, token_type_ids)."""
        return {name: arrays[name].astype(dt, copy=False) for name, dt in self._inputs.items()}

    def count_tokens(self, text: str) -> int:
        return len(self._tok.encode(self.spec.document_prefix + text).ids)

    def truncate_to_tokens(self, text: str, n: int) -> str:
        prefix = self.spec.document_prefix
        enc = self._tok.encode(prefix + text, add_special_tokens=False)
        budget = n - self._special
        if len(enc.ids) <= budget:
            return text
        if budget <= 0:
            return ""
        return text[: max(0, enc.offsets[budget - 1][1] - len(prefix))]

    # --- vectors ---

    def _run(self, encs: Sequence[Encoding]) -> np.ndarray:
        arrays = self._arrays(encs)
        name = self.spec.output
        with self._run_slots:
            (out,) = self._session.run([name], self._feeds(arrays))
        if name == "last_hidden_state":
            mask = arrays["attention_mask"][..., None].astype(np.float32)
            out = (out * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)
        if out.ndim != 2 or out.shape[1] != self.spec.dim:
            raise self._invalid(f"{name} has shape {out.shape}, expected (n, {self.spec.dim})")
        # Matryoshka: the first `dim` components, renormalised.
        return _normalise(out[:, : self.dim])

    def _embed(self, texts: Sequence[str], prefix: str) -> np.ndarray:
        result = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return result
        encs = self._encode(texts, prefix)
        runs = self._batches([len(e.ids) for e in encs])
        if self._lanes == 1 or len(runs) == 1:
            for idx in runs:
                result[idx] = self._run([encs[i] for i in idx])  # rows back in input order
            return result
        # Several runs: one a lane (onnxruntime lets go of the GIL), the longest first so
        # that no lane is left with a long run at the end.
        runs.sort(key=lambda idx: -len(idx) * max(len(encs[i].ids) for i in idx))
        with ThreadPoolExecutor(min(self._lanes, len(runs))) as pool:
            done = pool.map(lambda idx: self._run([encs[i] for i in idx]), runs)
            for idx, rows in zip(runs, done, strict=True):
                result[idx] = rows
        return result

    def _batches(self, lengths: list[int]) -> list[list[int]]:
        """The texts (indices) of each ONNX run: similar lengths together pad less."""
        order = sorted(range(len(lengths)), key=lengths.__getitem__)
        return [order[s : s + self._batch_size] for s in range(0, len(order), self._batch_size)]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        try:
            return self._embed(texts, self.spec.document_prefix)
        finally:
            self._schedule_shrink()

    def _schedule_shrink(self) -> None:
        with self._timer_lock:
            if self._shrink_timer is not None:
                self._shrink_timer.cancel()
            self._shrink_timer = threading.Timer(IDLE_SHRINK_S, self._shrink)
            self._shrink_timer.daemon = True
            self._shrink_timer.start()

    def _shrink(self) -> None:
        """A one-token run that frees the arena's unused regions as it ends, then the C
        heap's free pages. A run still going keeps what it uses."""
        feeds = self._feeds(self._arrays(self._encode(["."], self.spec.document_prefix)))
        try:
            with self._run_slots:
                self._session.run([self.spec.output], feeds, _SHRINK)
        except Exception:  # noqa: BLE001 - a tidy-up: the memory stays until the next one
            return
        heap.give_back()

    def embed_query(self, text: str) -> np.ndarray:
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        vec = self._embed([text], self.spec.query_prefix)[0]
        vec.flags.writeable = False  # shared through the cache
        self._cache.put(text, vec)
        return vec


_WORD = re.compile(r"\w+")


class FakeEmbedder:
    """Deterministic stand-in: words hashed into buckets, so shared words mean similarity.

    For unit tests of logic around embeddings only; it knows nothing of meaning.
    """

    def __init__(self, dim: int = 64, max_tokens: int = 256) -> None:
        self.dim = dim
        self.max_tokens = max_tokens
        self.model_id = f"fake@{dim}"
        self.confidence = Confidence(0.6, 0.45)  # the fake's own cosine scale

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for word in _WORD.findall(text.lower())[: self.max_tokens] or [""]:
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
            v[h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        if not v.any():  # words cancelled out: still a unit vector
            v[0] = 1.0
        return _normalise(v)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text))

    def truncate_to_tokens(self, text: str, n: int) -> str:
        words = list(_WORD.finditer(text))
        return text if len(words) <= n else text[: words[n - 1].end()] if n > 0 else ""
