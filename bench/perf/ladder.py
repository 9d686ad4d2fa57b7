"""The model ladder on this machine: speed and memory of each catalog model's shape.

The larger models cannot be downloaded here (no model hub), so their answers were never run.
What can be measured is what their *shape* costs: for each catalog model a stand-in GGUF
with the same layers, widths, heads, vocabulary and quantisation (Q4_K_M) but random weights
is written (the `gguf` package: pyproject.toml's `bench` optional dependencies, which
`build.py bench` installs) and quantised by llama.cpp itself; its speed reading a prompt and
writing, and its peak memory, do not depend on the weights' values. The stand-ins use
llama.cpp's "llama" architecture: Qwen2's biases and Gemma 3's extra norms and sliding
windows are left out (a few percent of the work; Gemma's sliding windows need less KV cache
than the estimate). The offline default is measured itself. Each model is measured in its
own process, with one thread, in CPU time: the 2 cores here are shared with other work, and
under that load wall-clock times measure the scheduler (llama.cpp's threads wait for each
other at every step), while the CPU time a token costs one thread does not depend on it.
Each model's CPU-time speed is kept as a ratio to the offline default's, measured in the
same way on the same prompt length, times the default's wall-clock speed on an idle machine
with the host's threads (REFERENCE_IDLE): reading the prompt is compute-bound, so a model
that costs k times the CPU per token reads k times slower with the same threads. Peak RSS is
above the process before loading. The figures go to docs/benchmarks.md; the per-model
numbers are copied into models.json "measured" by hand (`--json` prints them).

    .venv/bin/python -m bench.perf.ladder [--models NAME ...] [--runs 1] [--keep] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from rewind import config
from rewind.config import Settings
from rewind.models import catalog, recommend, specs
from rewind.models.specs import LlmSpec

from bench.common.data import default_cache
from bench.common.report import load_average, machine, table, today, update_section

REFERENCE = "smollm2-135m-instruct-q8_0"
# The offline default on an idle 2-core machine: ~310 prompt tokens/s with 2 threads
# (config.py, answer_token_budget) and ~100 answer tokens/s with one
# (shared/notes/offline-models.md).
REFERENCE_IDLE = {"prompt_tokens_per_s": 310.0, "answer_tokens_per_s": 100.0}
# Feed-forward widths (the shape in models.json has what memory needs, not this).
FFN = {
    "smollm2-135m-instruct-q8_0": 1536, "gemma-3-1b-it-q4_k_m": 6912,
    "llama-3.2-1b-instruct-q4_k_m": 8192, "qwen2.5-1.5b-instruct-q4_k_m": 8960,
    "qwen2.5-3b-instruct-q4_k_m": 11008, "llama-3.2-3b-instruct-q4_k_m": 8192,
    "gemma-3-4b-it-q4_k_m": 10240,
}
HIDDEN = {
    "smollm2-135m-instruct-q8_0": (576, 9), "gemma-3-1b-it-q4_k_m": (1152, 4),
    "llama-3.2-1b-instruct-q4_k_m": (2048, 32), "qwen2.5-1.5b-instruct-q4_k_m": (1536, 12),
    "qwen2.5-3b-instruct-q4_k_m": (2048, 16), "llama-3.2-3b-instruct-q4_k_m": (3072, 24),
    "gemma-3-4b-it-q4_k_m": (2560, 8),
}  # (hidden size, attention heads)


def gguf_module():
    """The `gguf` package (a bench tool, not a dependency of the host: the `bench` extra)."""
    try:
        import gguf
    except ImportError as exc:
        raise SystemExit("the `gguf` package is missing: `python3 build.py bench ladder` "
                         "installs it (or .venv/bin/pip install -e '.[bench]')") from exc
    return gguf


def write_stand_in(spec: LlmSpec, tokenizer_from: Path, out: Path) -> None:
    """A Q4_K_M GGUF with `spec`'s shape and random weights (F16 first, then quantised)."""
    import llama_cpp

    gguf = gguf_module()
    assert spec.shape is not None
    sh = spec.shape
    hidden, heads = HIDDEN[spec.name]
    ffn = FFN[spec.name]
    src = gguf.GGUFReader(str(tokenizer_from))

    def field(key: str):
        f = src.fields[key]
        return f.contents()

    f16 = out.with_suffix(".f16.tmp")
    w = gguf.GGUFWriter(str(f16), "llama")
    w.add_name(f"stand-in of {spec.name}")
    w.add_block_count(sh.layers)
    w.add_context_length(max(spec.n_ctx, 8192))
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(sh.kv_heads)
    w.add_key_length(sh.head_dim)
    w.add_value_length(sh.head_dim)
    w.add_rope_dimension_count(sh.head_dim)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_vocab_size(sh.vocab)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    tokens = list(field("tokenizer.ggml.tokens"))
    tokens += [f"<|stand-in {i}|>" for i in range(sh.vocab - len(tokens))]
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(field("tokenizer.ggml.pre"))
    w.add_token_list(tokens)
    w.add_token_types([1] * len(tokens))
    w.add_token_merges(list(field("tokenizer.ggml.merges")))
    w.add_bos_token_id(int(field("tokenizer.ggml.bos_token_id")))
    w.add_eos_token_id(int(field("tokenizer.ggml.eos_token_id")))
    w.add_chat_template(field("tokenizer.chat_template"))
    rng = np.random.default_rng(0)
    block = (rng.standard_normal(1 << 22, dtype=np.float32) * 0.02).astype(np.float16)

    def rand(*shape: int) -> np.ndarray:
        return np.resize(block, shape)  # values do not change the cost

    q, kv = heads * sh.head_dim, sh.kv_heads * sh.head_dim
    w.add_tensor("token_embd.weight", rand(sh.vocab, hidden))  # tied: also the output
    w.add_tensor("output_norm.weight", np.ones(hidden, dtype=np.float32))
    for i in range(sh.layers):
        p = f"blk.{i}."
        w.add_tensor(p + "attn_norm.weight", np.ones(hidden, dtype=np.float32))
        w.add_tensor(p + "attn_q.weight", rand(q, hidden))
        w.add_tensor(p + "attn_k.weight", rand(kv, hidden))
        w.add_tensor(p + "attn_v.weight", rand(kv, hidden))
        w.add_tensor(p + "attn_output.weight", rand(hidden, q))
        w.add_tensor(p + "ffn_norm.weight", np.ones(hidden, dtype=np.float32))
        w.add_tensor(p + "ffn_gate.weight", rand(ffn, hidden))
        w.add_tensor(p + "ffn_up.weight", rand(ffn, hidden))
        w.add_tensor(p + "ffn_down.weight", rand(hidden, ffn))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_K_M
    params.nthread = 2
    tmp = out.with_suffix(".q.tmp")
    rc = llama_cpp.llama_model_quantize(str(f16).encode(), str(tmp).encode(), params)
    f16.unlink()
    if rc != 0:
        raise RuntimeError(f"quantising the stand-in of {spec.name} failed ({rc})")
    tmp.rename(out)  # only a whole stand-in is reused by a later run


def _status_mib(key: str) -> float:
    """VmRSS (now) or VmHWM (peak) of this process. Not getrusage: its peak survives exec,
    so a child would report the parent's."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def measure_child(path: str, n_ctx: int, prompt_tokens: int, runs: int) -> dict:
    """In its own process: load as answers/llm.py does (one thread), and the CPU time
    reading a prompt and writing 32 tokens take."""
    import llama_cpp

    before = _status_mib("VmRSS")
    llm = llama_cpp.Llama(model_path=path, n_ctx=n_ctx, n_threads=1, n_threads_batch=1,
                          seed=0, verbose=False)
    rng = np.random.default_rng(1)
    vocab = llm.n_vocab()
    llm.eval([int(t) for t in rng.integers(1000, min(vocab, 40000), 32)])  # warm up
    prompt_rates, write_rates = [], []
    for _ in range(runs):
        toks = [int(t) for t in rng.integers(1000, min(vocab, 40000), prompt_tokens)]
        llm.reset()
        t0 = time.process_time()
        llm.eval(toks)
        t1 = time.process_time()
        for _ in range(32):  # writing: one token at a time, as an answer is written
            llm.eval([toks[0]])
        t2 = time.process_time()
        prompt_rates.append(prompt_tokens / (t1 - t0))
        write_rates.append(32 / (t2 - t1))
    peak = _status_mib("VmHWM")
    return {"prompt_tokens_per_s": statistics.median(prompt_rates),  # per CPU second
            "answer_tokens_per_s": statistics.median(write_rates),
            "threads": Settings().llm_batch_threads,
            "peak_rss_bytes": int((peak - before) * 2**20)}


def measure(spec: LlmSpec, path: Path, runs: int, prompt: int | None = None) -> dict:
    s = Settings()
    prompt = prompt or s.answer_budget(spec.n_ctx) + recommend.PROMPT_OVERHEAD
    # The child runs from the checkout's root, where `python -c` finds the `bench` package.
    code = ("import json, sys; from bench.perf.ladder import "
            "measure_child; print(json.dumps(measure_child(sys.argv[1], int(sys.argv[2]), "
            "int(sys.argv[3]), int(sys.argv[4]))))")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code, str(path),
                          str(spec.n_ctx), str(prompt), str(runs)],
                         capture_output=True, text=True, check=True, cwd=root)
    return json.loads(out.stdout.strip().splitlines()[-1]) | {"prompt_tokens": prompt}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="*", help="catalog names (default: all)")
    ap.add_argument("--runs", type=int, default=1, help="timed prompts per model")
    ap.add_argument("--keep", action="store_true", help="keep the stand-in GGUFs")
    ap.add_argument("--json", action="store_true", help="print the measurements as JSON")
    ap.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    ap.add_argument("--report-from", type=Path,
                    help="write the report from a saved --json run instead of measuring")
    args = ap.parse_args()
    llms = specs.load_specs().llm
    if args.report_from:
        print(update_section("ladder", report(llms, json.loads(args.report_from.read_text()))))
        return
    names = args.models or list(llms)
    cache = default_cache() / "ladder"
    cache.mkdir(parents=True, exist_ok=True)
    ref_path = specs.model_path(llms[REFERENCE], config.model_dir()) / "model.gguf"
    results: dict[str, dict] = {}
    for name in names:
        spec = llms[name]
        if name == REFERENCE:
            path, how = ref_path, "model"
        else:
            path, how = cache / f"{name}.stand-in.gguf", "stand-in"
            if not path.exists():
                t0 = time.perf_counter()
                write_stand_in(spec, ref_path, path)
                print(f"{name}: stand-in written in {time.perf_counter() - t0:.0f} s "
                      f"({path.stat().st_size / 1e9:.2f} GB; the real file: "
                      f"{(spec.file_bytes or 0) / 1e9:.2f} GB)", file=sys.stderr)
        prompt = Settings().answer_budget(spec.n_ctx) + recommend.PROMPT_OVERHEAD
        before = measure(llms[REFERENCE], ref_path, args.runs, prompt)
        m = measure(spec, path, args.runs) | {"how": how, "bytes": path.stat().st_size,
                                              "load": round(load_average(), 1)}
        after = measure(llms[REFERENCE], ref_path, args.runs, prompt)
        for key in ("prompt_tokens_per_s", "answer_tokens_per_s"):  # vs the default, then
            ratio = m[key] / statistics.mean((before[key], after[key]))  # at idle speed
            m[key + "_cpu"], m[key] = m[key], ratio * REFERENCE_IDLE[key]
        results[name] = m
        print(f"{name}: {json.dumps(m)}", file=sys.stderr)
        if how == "stand-in" and not args.keep:
            path.unlink()
    if args.json:
        print(json.dumps(results, indent=1))
    if not args.no_write:
        print(update_section("ladder", report(llms, results)))


def report(llms: dict[str, LlmSpec], results: dict[str, dict]) -> str:
    rows = []
    for name, m in results.items():
        spec = llms[name]
        est = catalog.estimated_bytes(spec) or 0
        rows.append((
            name, "the model" if m["how"] == "model" else "stand-in",
            f"{m['bytes'] / 1e9:.2f} / {(spec.file_bytes or 0) / 1e9:.2f}",
            m["prompt_tokens"], f"{m['prompt_tokens_per_s']:.0f}",
            f"{m['prompt_tokens'] / m['prompt_tokens_per_s']:.1f}",
            f"{m['answer_tokens_per_s']:.1f}",
            f"{m['peak_rss_bytes'] / 2**30:.2f}", f"{est / 2**30:.2f}",
            f"{100 / m['prompt_tokens_per_s_cpu']:.1f}"))
    s = Settings()
    loads = [m["load"] for m in results.values()]
    picks = []
    specs_list = list(llms.values())
    for gb, cores in ((4, 2), (8, 1), (8, 2), (8, 8), (16, 2), (32, 1), (32, 2), (32, 8)):
        mach = recommend.Machine(gb * 2**30, None, cores)
        r = recommend.recommend(mach, s, specs=specs_list)
        picks.append((f"{gb} GiB, {cores} core{'s' if cores > 1 else ''}", r.choice.spec.name,
                      f"{(r.choice.memory_bytes or 0) / 2**30:.1f}",
                      f"{r.choice.first_words_s:.1f}" if r.choice.first_words_s else "?",
                      r.choice.speed))
    return "\n".join([
        "## The model ladder: what each answering model's shape costs here",
        "",
        f"{today()} · {machine()} · `bench/perf/ladder.py` · load average {min(loads):.1f}–"
        f"{max(loads):.1f} during the runs (other work shared the 2 cores)",
        "",
        "Only the offline default is a real model. Every other row is a **stand-in**: a GGUF "
        "with the catalog model's layers, widths, heads and vocabulary, quantised to Q4_K_M by "
        "llama.cpp, with random weights (llama.cpp's \"llama\" architecture: Qwen2's biases "
        "and Gemma 3's extra norms are left out). Speed and memory do not depend on the "
        "weights' values; the answers do, and **the larger models' answers were not run "
        "here**. Prompt: the answer budget for the model's context "
        f"(Settings.answer_budget) + {recommend.PROMPT_OVERHEAD} tokens of system prompt and "
        "question; then 32 tokens written; after a 32-token warm-up. Timed in CPU time with "
        "one thread (the cores were shared: wall-clock times would measure the scheduler), "
        "as a ratio to the offline default timed the same way just before and after, times "
        "its idle wall-clock speed with the host's threads "
        f"({REFERENCE_IDLE['prompt_tokens_per_s']:g} prompt tokens/s with {s.llm_batch_threads}, "
        f"{REFERENCE_IDLE['answer_tokens_per_s']:g} answer tokens/s with {s.llm_threads}). "
        "Peak memory: the process's peak RSS above what it used before loading (llama.cpp "
        "also keeps a repacked copy of most weights for the CPU's vector units, which the "
        "estimate leaves out; for Gemma 3 the stand-in's full attention in every layer makes "
        "the KV cache an upper bound: the real model keeps 1,024 tokens in five layers of "
        "six); estimate: "
        "`catalog.estimated_bytes` (weights + f16 KV cache at n_ctx + the larger of a "
        "512-token batch's logits and its attention scores over n_ctx).",
        "",
        table(("model", "measured", "GB file (stand-in / real)", "prompt tokens",
               "prompt tokens/s", "first words s", "answer tokens/s", "peak GiB",
               "estimate GiB", "CPU s / 100 prompt tokens"), rows),
        "",
        "`rewind models recommend` on a few machines (with the figures above, copied into "
        "models.json; the host reads prompts with llm_batch_threads = 2 threads whatever "
        "the cores, so more cores than 2 change nothing; a model licensed for non-commercial use "
        "only is not recommended):",
        "",
        table(("machine", "recommended", "memory GiB", "first words s", "speed"), picks),
    ])


if __name__ == "__main__":
    main()
