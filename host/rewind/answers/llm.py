"""The local language model: the `Llm` interface, a GGUF chat model run with
llama-cpp-python behind it, its tokenizer, and a scripted stand-in for unit tests.

`GgufLlm` loads one model once (the host lets it go when unused: native/resting.py),
checks that it has a chat template (a base model has none and never stops), streams a chat answer
token by token and stops within a token of `cancel` being set (prompt processing is
aborted through llama.cpp's abort callback, so a long prompt stops quickly too).
llama.cpp keeps the previous prompt's KV cache, so a follow-up over the same sources
only processes what changed. `GgufTokenizer` counts tokens exactly as the model sees
them; `tokenizer()` gives one without loading the weights (vocab only), for budgets.
This module must never download anything, never set OMP_WAIT_POLICY (4x slower on
2 cores here), and never build a prompt itself (prompt.py does, and keeps page text
from reaching the model as special tokens).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from .. import config
from ..capture.chunker import approx_tokens
from ..config import Settings
from ..errors import Code, RewindError
from ..models import installed, specs
from ..models.specs import LlmSpec

INSTALL_HINT = f"Install it with `{config.setup_command()}` (the offline default)."


class Tokenizer(Protocol):
    """Counts tokens the way the answering model sees text."""

    name: str

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, n: int) -> str: ...


def _import_llama() -> Any:
    try:
        import llama_cpp
    except ImportError:
        raise RewindError(
            Code.NOT_AVAILABLE,
            "Answering with a language model needs llama-cpp-python, which is not installed.",
            f"Run `{config.setup_command()}` (or `pip install 'rewind[llm]'`); until then "
            "answers are extracts of your pages.",
        ) from None
    return llama_cpp


def installed_specs(model_dir: Path) -> list[LlmSpec]:
    """LLMs of models.json whose files are present and not known to be damaged."""
    out = []
    for spec in specs.load_specs().llm.values():
        if installed.status(spec, model_dir).installed:
            out.append(spec)
    return out


def choose_spec(settings: Settings, model_dir: Path) -> LlmSpec | None:
    """The LLM to answer with: `settings.llm_model` if set, else the largest one installed.

    "Largest" by file size: a model a person pulled (`rewind models pull`) is used over
    the small offline default without any setting. None when no LLM is installed.
    """
    if settings.llm_model:
        spec = specs.llm_spec(settings.llm_model)
        st = installed.status(spec, model_dir)
        if not st.installed:
            raise RewindError(
                Code.MODEL_MISSING if not st.mismatched else Code.MODEL_INVALID,
                f"The language model {spec.name} is {st.summary}.",
                st.hint,
            )
        return spec
    found = installed_specs(model_dir)
    if not found:
        return None

    def size(spec: LlmSpec) -> int:
        folder = specs.model_path(spec, model_dir)
        return sum((folder / f.name).stat().st_size for f in specs.kept_files(spec))

    return max(found, key=size)


def gguf_path(spec: LlmSpec, model_dir: Path) -> Path:
    st = installed.require_installed(spec, model_dir)
    names = [f.name for f in specs.kept_files(spec) if f.name.endswith(".gguf")]
    if not names:
        raise RewindError(
            Code.MODEL_INVALID,
            f"{spec.name} names no .gguf file in models.json.",
            "Report this as a bug.",
        )
    return st.path / names[0]


class GgufTokenizer:
    """Exact token counts with a GGUF model's own vocabulary (no BOS: callers add prompts)."""

    def __init__(self, llama: Any, name: str) -> None:
        self._llama = llama
        self.name = name
        self._lock = threading.Lock()

    def ids(self, text: str) -> list[int]:
        with self._lock:
            return self._llama.tokenize(
                text.encode("utf-8", "replace"), add_bos=False, special=False
            )

    def count(self, text: str) -> int:
        return len(self.ids(text)) if text else 0

    def truncate(self, text: str, n: int) -> str:
        """The longest prefix of `text` (cut at a token) that counts at most `n` tokens."""
        if n <= 0 or not text:
            return ""
        ids = self.ids(text)
        if len(ids) <= n:
            return text
        keep = n
        while keep > 0:
            with self._lock:
                raw = self._llama.detokenize(ids[:keep])
            piece = raw.decode("utf-8", "ignore")
            # Detokenising and tokenising again need not give the same count: check.
            if self.count(piece) <= n:
                return piece
            keep -= max(1, (self.count(piece) - n))
        return ""


class EmbedderTokenizer:
    """Counts with the embedding model's tokenizer: build_context when no LLM is installed."""

    def __init__(self, embedder: Any) -> None:
        self._emb = embedder
        self.name = f"{embedder.model_id} (no language model installed)"

    def count(self, text: str) -> int:
        return self._emb.count_tokens(text) if text else 0

    def truncate(self, text: str, n: int) -> str:
        return self._emb.truncate_to_tokens(text, n) if n > 0 else ""


class WordTokenizer:
    """~1.3 tokens a word: the last resort when no model at all is installed."""

    name = "approximate (no model installed)"

    def count(self, text: str) -> int:
        return approx_tokens(text) if text.strip() else 0

    def truncate(self, text: str, n: int) -> str:
        out = text.split()
        while out and self.count(" ".join(out)) > n:
            out = out[: max(0, min(len(out) - 1, int((n - 2) / 1.3)))]
        return " ".join(out)


def tokenizer(spec: LlmSpec, model_dir: Path) -> GgufTokenizer:
    """The model's tokenizer alone (vocab_only: ~0.2 s, a few MB), for build_context."""
    llama_cpp = _import_llama()
    path = gguf_path(spec, model_dir)
    try:
        # The vocabulary without a context: Llama(vocab_only=True) also creates a context,
        # which logs a warning to stderr on every CLI call. (llama-cpp-python is pinned.)
        from llama_cpp._internals import LlamaModel

        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        model: Any = LlamaModel(path_model=str(path), params=params, verbose=False)
    except (ImportError, AttributeError, TypeError):
        model = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    except ValueError as exc:
        raise RewindError(Code.MODEL_INVALID, f"{spec.name}: {exc}.", INSTALL_HINT) from None
    return GgufTokenizer(model, spec.name)


class Llm(Protocol):
    """A loaded chat model.

    Contract: `stream(messages, max_tokens=, cancel=)` yields the answer's text pieces,
    stops (quietly) within a token of `cancel` being set, and sets `finish_reason` to
    "stop" or "length" when the model is done; the same messages give the same text
    (seeded sampling). `tokenizer` counts tokens exactly as the model sees them; `n_ctx`
    is its context window. One chat at a time: callers wait for each other.
    """

    name: str
    spec: LlmSpec
    tokenizer: Tokenizer
    finish_reason: str | None

    @property
    def n_ctx(self) -> int: ...

    def stream(self, messages: Sequence[dict[str, str]], *, max_tokens: int,
               cancel: threading.Event | None = None) -> Iterator[str]: ...

    def close(self) -> None: ...


class GgufLlm:
    """One loaded GGUF chat model; `stream` answers one chat at a time."""

    def __init__(self, spec: LlmSpec, model_dir: Path, settings: Settings) -> None:
        llama_cpp = _import_llama()
        self.spec = spec
        self.name = spec.name
        self.settings = settings
        path = gguf_path(spec, model_dir)
        try:
            self._llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=spec.n_ctx,
                n_threads=settings.llm_threads,
                n_threads_batch=settings.llm_batch_threads,
                seed=settings.llm_seed,
                flash_attn=settings.llm_flash_attn,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise RewindError(
                Code.MODEL_INVALID,
                f"The language model {spec.name} could not be loaded ({exc}).",
                f"Check {path}; reinstall it. {INSTALL_HINT}",
            ) from None
        template = self._llama.metadata.get("tokenizer.chat_template")
        if not template:
            self.close()
            raise RewindError(
                Code.MODEL_INVALID,
                f"{spec.name} has no chat template: it is a base model, not an instruction "
                "model, and would never stop answering.",
                'Use an instruction-tuned ("-Instruct") GGUF.',
            )
        self.tokenizer = GgufTokenizer(self._llama, spec.name)
        self._lock = threading.Lock()
        self._cancel: threading.Event | None = None
        self.finish_reason: str | None = None  # of the last `stream`
        # ctypes callback: keep a reference for as long as the context lives.
        self._abort_cb = llama_cpp.ggml_abort_callback(self._should_abort)
        llama_cpp.llama_set_abort_callback(self._llama._ctx.ctx, self._abort_cb, None)

    def _should_abort(self, _data: Any) -> bool:
        cancel = self._cancel
        return bool(cancel is not None and cancel.is_set())

    @property
    def n_ctx(self) -> int:
        return self.spec.n_ctx

    def stream(
        self,
        messages: Sequence[dict[str, str]],
        *,
        max_tokens: int,
        cancel: threading.Event | None = None,
    ) -> Iterator[str]:
        """Yields the answer's text pieces; stops early (quietly) when `cancel` is set."""
        with self._lock:
            self._cancel = cancel
            self.finish_reason = None  # "stop" | "length" once the model is done
            try:
                pieces = self._llama.create_chat_completion(
                    list(messages),
                    stream=True,
                    max_tokens=max_tokens,
                    temperature=self.spec.temperature,
                    seed=self.settings.llm_seed,
                    repeat_penalty=self.settings.llm_repeat_penalty,
                )
                try:
                    for part in pieces:
                        if cancel is not None and cancel.is_set():
                            return
                        choice = part["choices"][0]
                        self.finish_reason = choice.get("finish_reason") or self.finish_reason
                        text = choice["delta"].get("content")
                        if text:
                            yield text
                finally:
                    with contextlib.suppress(Exception):
                        pieces.close()
            except RuntimeError as exc:
                # llama_decode returns 2 when the abort callback stopped it: a cancel.
                if cancel is not None and cancel.is_set():
                    return
                raise RewindError(
                    Code.INTERNAL,
                    f"The language model failed while answering ({exc}).",
                    "Try again; if it keeps failing, report it with the host log.",
                ) from None
            finally:
                self._cancel = None

    def close(self) -> None:
        llama = getattr(self, "_llama", None)
        if llama is not None:
            with contextlib.suppress(Exception):
                llama.close()
            self._llama = None


class ScriptedLlm:
    """An `Llm` that says its replies in turn (the last one again once they run out), word
    by word, and records what it was asked: for unit tests of the logic around the model
    (never for its quality). `fail=True` makes `stream` raise as a broken model would."""

    def __init__(self, *replies: str, fail: bool = False, n_ctx: int = 4096) -> None:
        self.name = "scripted"
        self.spec = LlmSpec("scripted", "a scripted stand-in", n_ctx, 0.0, 400, ())
        self.tokenizer: Tokenizer = WordTokenizer()
        self.replies = list(replies)
        self.fail = fail
        self.finish_reason: str | None = "stop"
        self.prompts: list[list[dict[str, str]]] = []
        self.calls: list[tuple[list[dict[str, str]], int]] = []  # (messages, max_tokens)
        self.said = ""  # everything streamed so far
        self.closed = False  # the last stream was closed (the model is free again)

    @property
    def n_ctx(self) -> int:
        return self.spec.n_ctx

    def stream(self, messages: Sequence[dict[str, str]], *, max_tokens: int,
               cancel: threading.Event | None = None) -> Iterator[str]:
        self.prompts.append(list(messages))
        self.calls.append((list(messages), max_tokens))
        if self.fail:
            raise RewindError(Code.INTERNAL, "The language model failed.", "")
        text = self.replies.pop(0) if len(self.replies) > 1 else "".join(self.replies)
        self.closed = False
        try:
            for piece in re.split(r"(?<=\s)", text):
                if cancel is not None and cancel.is_set():
                    return
                self.said += piece
                yield piece
        finally:
            self.closed = True

    def close(self) -> None:
        self.closed = True
