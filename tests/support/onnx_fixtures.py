"""Tiny ONNX embedding models and tokenizers built in tests, and the real model's dir.

The tiny graphs look up a random embedding table (last_hidden_state) and, when asked,
add a pooled-and-projected `sentence_embedding` output, so a test can tell which output
the embedder used and compute the expected vectors with numpy. A RecordingSession, put in
an embedder's place by `record`, keeps what each run was fed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from rewind import config
from rewind.models import installed, specs
from rewind.models.specs import EmbeddingSpec, FileSpec

if TYPE_CHECKING:
    from rewind.models.embedder import OnnxEmbedder
from tokenizers import Tokenizer, models, pre_tokenizers, processors

WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "in", "park", "stock", "market"]
WORDS += ["fell", "today", "query", "text"]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
VOCAB = {tok: i for i, tok in enumerate(SPECIALS + WORDS)}
OPSET = 17  # what onnxruntime 1.31 runs; onnx's own default is newer


def write_tokenizer(path: Path) -> Tokenizer:
    """A WordLevel tokenizer that, like upstream files, pads and truncates to 128."""
    tok = Tokenizer(models.WordLevel(VOCAB, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[(t, VOCAB[t]) for t in ("[CLS]", "[SEP]")]
    )
    tok.enable_truncation(128)
    tok.enable_padding(length=128, pad_id=0, pad_token="[PAD]")
    tok.save(str(path))
    return tok


@dataclass
class TinyWeights:
    table: np.ndarray  # (vocab, dim): last_hidden_state = table[input_ids] (+ positions)
    positions: np.ndarray  # (max_len, dim), added when the model declares position_ids
    projection: np.ndarray  # (dim, dim): sentence_embedding = masked sum @ projection


def write_tiny_model(
    path: Path,
    dim: int = 8,
    inputs: tuple[str, ...] = ("input_ids", "attention_mask"),
    outputs: tuple[str, ...] = ("last_hidden_state",),
    seed: int = 0,
) -> TinyWeights:
    rng = np.random.default_rng(seed)
    w = TinyWeights(
        table=rng.normal(size=(len(VOCAB), dim)).astype(np.float32),
        positions=rng.normal(size=(64, dim)).astype(np.float32),
        projection=rng.normal(size=(dim, dim)).astype(np.float32),
    )
    inits = [
        numpy_helper.from_array(w.table, "table"),
        numpy_helper.from_array(w.positions, "positions"),
        numpy_helper.from_array(w.projection, "projection"),
        numpy_helper.from_array(np.array([1], np.int64), "axis1"),
        numpy_helper.from_array(np.array([2], np.int64), "axis2"),
    ]
    nodes = [helper.make_node("Gather", ["table", "input_ids"], ["tokens"])]
    hidden = "tokens"
    if "position_ids" in inputs:
        nodes += [
            helper.make_node("Gather", ["positions", "position_ids"], ["pos"]),
            helper.make_node("Add", ["tokens", "pos"], ["hidden"]),
        ]
        hidden = "hidden"
    if "token_type_ids" in inputs:  # declared and used (a no-op): ORT needs it fed
        nodes += [
            helper.make_node("Cast", ["token_type_ids"], ["tt_f"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["tt_f", "axis2"], ["tt3"]),
            helper.make_node("Mul", ["tt3", "tokens"], ["tt_zero"]),
            helper.make_node("Sub", [hidden, "tt_zero"], ["hidden_tt"]),
        ]
        hidden = "hidden_tt"
    nodes.append(helper.make_node("Identity", [hidden], ["last_hidden_state"]))
    if "sentence_embedding" in outputs:
        mask = "attention_mask" if "attention_mask" in inputs else None
        if mask:
            nodes += [
                helper.make_node("Cast", [mask], ["mask_f"], to=TensorProto.FLOAT),
                helper.make_node("Unsqueeze", ["mask_f", "axis2"], ["mask3"]),
                helper.make_node("Mul", ["last_hidden_state", "mask3"], ["masked"]),
            ]
        pooled_in = "masked" if mask else "last_hidden_state"
        nodes += [
            helper.make_node("ReduceSum", [pooled_in, "axis1"], ["pooled"], keepdims=0),
            helper.make_node("MatMul", ["pooled", "projection"], ["sentence_embedding"]),
        ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["b", "s"]) for n in inputs],
        [
            helper.make_tensor_value_info(
                n, TensorProto.FLOAT, ["b", "s", dim] if n == "last_hidden_state" else ["b", dim]
            )
            for n in outputs
        ],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return w


def tiny_spec(
    name: str = "tiny",
    output: str = "last_hidden_state",
    dim: int = 8,
    matryoshka_dims: tuple[int, ...] = (8, 4),
    query_prefix: str = "",
    document_prefix: str = "",
    max_tokens: int = 16,
) -> EmbeddingSpec:
    return EmbeddingSpec(
        name=name,
        description="tiny test model",
        dim=dim,
        max_tokens=max_tokens,
        output=output,
        pooling="none" if output == "sentence_embedding" else "mean",
        query_prefix=query_prefix,
        document_prefix=document_prefix,
        matryoshka_dims=matryoshka_dims,
        pad_token="[PAD]",
        pad_id=0,
        confidence_high=0.6,
        confidence_medium=0.4,
        files=(
            FileSpec("model.onnx", None, download="test model.onnx"),
            FileSpec("tokenizer.json", None, download="test tokenizer.json"),
        ),
    )


def make_tiny_model_dir(model_dir: Path, spec: EmbeddingSpec, **model_kwargs) -> TinyWeights:
    """Write model_dir/<spec.name>/{model.onnx,tokenizer.json}; return the weights."""
    dest = specs.model_path(spec, model_dir)
    dest.mkdir(parents=True, exist_ok=True)
    write_tokenizer(dest / "tokenizer.json")
    return write_tiny_model(dest / "model.onnx", dim=spec.dim, **model_kwargs)


def real_model_dir(name: str) -> Path:
    """$REWIND_MODEL_DIR if it holds the named model's files, else skip the test
    (fail under REWIND_REQUIRE_MODELS=1, as conftest does: CI must not pass by skipping)."""
    spec = specs.load_specs().get(name)
    model_dir = config.model_dir()
    st = installed.status(spec, model_dir)
    if st.missing:
        why = (
            f"{name} is not installed in {model_dir} ({', '.join(st.missing)} missing): "
            "run `python3 build.py install` or set REWIND_MODEL_DIR"
        )
        if os.environ.get("REWIND_REQUIRE_MODELS") == "1":
            pytest.fail(f"{why} (REWIND_REQUIRE_MODELS=1)")
        pytest.skip(why)
    return model_dir


class RecordingSession:
    """Wraps an InferenceSession and keeps the feeds of every run (and, apart, the run
    options of runs that had some: the idle shrink's)."""

    def __init__(self, session) -> None:
        self.session = session
        self.feeds: list[dict[str, np.ndarray]] = []
        self.options: list = []

    def run(self, names, feeds, options=None):
        if options is not None:
            self.options.append(options)
            return self.session.run(names, feeds, options)
        self.feeds.append(feeds)
        return self.session.run(names, feeds)


def record(emb: OnnxEmbedder) -> RecordingSession:
    """Put a RecordingSession in place of `emb`'s session and return it."""
    rec = RecordingSession(emb._session)
    emb._session = rec  # type: ignore[assignment]
    return rec
