"""Model specs (models.json): what each model Rewind knows is, as records.

Specs are data: models.json names each model's files, their sha256 and size, and either
the PyPI package and wheel member the file is read from (the offline defaults: packages.py
installs them) or the address its publisher serves it at (download.py pulls it from there,
or from a mirror the person names). A language model's spec also says its licence, shape
and what bench/perf/ladder.py measured of it (catalog.py reckons its memory from them).

Checksums: a file's full sha256 is verified when it is installed and recorded, with its
size and mtime, in a marker file (`rewind-install.json`) in the model's directory. At run
time `installed.status()` only compares size and mtime with that record (no hashing of
100 MB-1 GB files on every start); `status(..., verify=True)` hashes again (doctor, tests). A file
whose sha256 models.json does not know is trusted on first use: the sha256 recorded when
it was first installed is what later checks compare with.

Every module of models/ reads these records; this one imports none of them. It never
looks at the model directory (installed.py reports what is present), and it
must never download anything, and never load a model (the embedder and answerer do).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import Code, RewindError

# Tests only: another models.json (stand-in models a local server can serve, their sha256
# pinned like the real ones'); a person never sets it.
TEST_CATALOG_ENV = "REWIND_TEST_MODEL_CATALOG"


@dataclass(frozen=True)
class Licence:
    name: str
    terms: str  # where its text is
    use: str = ""  # what it limits, in a phrase ("" when nothing worth saying)
    commercial: bool = True  # False: non-commercial use only (never recommended unasked)


@dataclass(frozen=True)
class Shape:
    """What a GGUF model's memory follows from (its published config)."""

    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int

    @property
    def kv_bytes_per_token(self) -> int:
        """K and V in f16, every layer. Sliding-window layers (Gemma 3) keep fewer
        tokens, so for them this is an upper bound."""
        return 2 * self.layers * self.kv_heads * self.head_dim * 2


@dataclass(frozen=True)
class Measured:
    """Speed and memory bench/perf/ladder.py measured on this project's 2-core machine."""

    prompt_tokens_per_s: float  # reading a ~700-token prompt with `threads` threads
    answer_tokens_per_s: float  # writing, one thread
    threads: int
    peak_rss_bytes: int  # above the process before loading
    how: str  # "model": the model itself; "stand-in": random weights of its shape


# How a file is made at install from another file of its model (made_files.py), and
# whether that other file stays afterwards (True) or is removed once used (only an input).
MAKERS: dict[str, bool] = {"e5_onnx": True, "gguf_q8_0": False}


@dataclass(frozen=True)
class FileSpec:
    name: str  # file name inside the model's directory
    sha256: str | None  # None: not known in advance (downloaded models)
    package: str | None = None  # pinned PyPI requirement whose wheel holds the file
    member: str | None = None  # path of the file inside that wheel
    download: str | None = None  # "<repo> <path>": where a mirror keeps it (download.py)
    bytes: int | None = None  # its size, when known in advance
    made_from: str | None = None  # made at install from this file of the model (made_files)
    made_by: str | None = None  # how: one of MAKERS
    url: str | None = None  # where its publisher serves it (`rewind models pull`'s default)


@dataclass(frozen=True)
class Confidence:
    """Cut-offs on one model's cosine scale: at or above `high` a match is "high",
    at or above `medium` "medium". They belong to the model (its spec) and nowhere else."""

    high: float
    medium: float
    # Whether the model's cosines mean anything for text in a script written without spaces
    # (Japanese, Chinese, Thai...). all-MiniLM-L6-v2 learnt English: its vocabulary has few
    # pieces for them, so a Japanese query's cosines are high and random (Japanese headings
    # on Debian Reference: semantic MRR@10 0.17 against keyword 0.68).
    unspaced_scripts: bool = True


@dataclass(frozen=True)
class EmbeddingSpec:
    name: str
    description: str
    dim: int
    max_tokens: int  # model limit, including prefix and special tokens
    output: str  # "sentence_embedding" (pooled in the graph) or "last_hidden_state"
    pooling: str  # "none" for sentence_embedding, "mean" for last_hidden_state
    query_prefix: str
    document_prefix: str
    matryoshka_dims: tuple[int, ...]
    pad_token: str
    pad_id: int
    confidence_high: float  # cosine at or above: "high" confidence
    confidence_medium: float
    files: tuple[FileSpec, ...]
    confidence_unspaced_scripts: bool = True  # see Confidence.unspaced_scripts

    @property
    def confidence(self) -> Confidence:
        return Confidence(self.confidence_high, self.confidence_medium,
                          self.confidence_unspaced_scripts)


@dataclass(frozen=True)
class LlmSpec:
    name: str
    description: str
    n_ctx: int  # the context window Rewind loads it with
    temperature: float
    max_answer_tokens: int
    files: tuple[FileSpec, ...]
    family: str = ""
    label: str = ""  # what a person calls it: "Qwen2.5 1.5B"
    parameters_b: float = 0.0  # billions
    quantisation: str = ""
    licence: Licence | None = None
    context_window: int = 0  # what it was trained for (n_ctx may be smaller: memory)
    shape: Shape | None = None
    measured: Measured | None = None  # bench/perf/ladder.py, on this project's machine
    # What leads its answers: "quote", the sources' own sentences that answer (its own
    # sentences follow only where they hold and add to them); "model", its own checked
    # sentences (the quote when none holds). Measured per model: docs/answers.md.
    answer_lead: str = "model"

    @property
    def file_bytes(self) -> int | None:
        """What the model takes on disk once installed, when its sizes are known."""
        sizes = [f.bytes for f in kept_files(self)]
        return None if None in sizes else sum(s or 0 for s in sizes)


Spec = EmbeddingSpec | LlmSpec


def kept_files(spec: Spec) -> tuple[FileSpec, ...]:
    """The files an installed model has: all of its files but the inputs removed after
    making others from them (MAKERS)."""
    inputs = {f.made_from for f in spec.files if f.made_from and not MAKERS.get(f.made_by or "")}
    return tuple(f for f in spec.files if f.name not in inputs)


@dataclass(frozen=True)
class Specs:
    embedding: dict[str, EmbeddingSpec]
    llm: dict[str, LlmSpec]

    def get(self, name: str) -> Spec:
        """The model of either kind called `name`; NOT_FOUND (naming the known ones) if none."""
        return _lookup({**self.embedding, **self.llm}, "", name)


def _files(name: str, raw: dict[str, dict[str, Any]]) -> tuple[FileSpec, ...]:
    files = tuple(
        FileSpec(name=fname, sha256=f.get("sha256"), package=f.get("package"),
                 member=f.get("member"), download=f.get("download"), bytes=f.get("bytes"),
                 made_from=f.get("made_from"), made_by=f.get("made_by"), url=f.get("url"))
        for fname, f in raw.items()
    )
    for f in files:
        # A packaged file is installed offline and must be checkable; anything else is pulled.
        if f.package and not (f.member and f.sha256):
            raise ValueError(f"models.json: {name}/{f.name} has a package but no member/sha256")
        if not (f.package or f.download or f.made_from):
            raise ValueError(f"models.json: {name}/{f.name} has neither package nor download")
        if f.made_from and f.made_by not in MAKERS:
            raise ValueError(f"models.json: {name}/{f.name} is made by {f.made_by!r}, not one "
                             f"of {', '.join(MAKERS)}")
        if f.download and not _published_at(f):
            raise ValueError(f"models.json: {name}/{f.name} needs an https url ending in its "
                             "download path")
    return files


def _published_at(f: FileSpec) -> bool:
    """Whether a downloadable file names the https address it is published at, and that
    address is the one its download entry describes (the same repo and path)."""
    repo, _, path = (f.download or "").partition(" ")
    url = f.url or ""
    return url.startswith("https://") and f"/{repo}/" in url and url.endswith(f"/{path}")


def load_specs(source: Path | None = None) -> Specs:
    """Parse models.json (the package's own unless `source` is given, or a test names one)."""
    source = source or os.environ.get(TEST_CATALOG_ENV) or None
    if source is None:
        text = resources.files(__package__).joinpath("models.json").read_text("utf-8")
    else:
        text = Path(source).read_text("utf-8")
    data = json.loads(text)
    embedding = {
        name: EmbeddingSpec(
            name=name,
            description=e["description"],
            dim=e["dim"],
            max_tokens=e["max_tokens"],
            output=e["output"],
            pooling=e["pooling"],
            query_prefix=e["query_prefix"],
            document_prefix=e["document_prefix"],
            matryoshka_dims=tuple(e["matryoshka_dims"]),
            pad_token=e["pad_token"],
            pad_id=e["pad_id"],
            confidence_high=e["confidence"]["high"],
            confidence_medium=e["confidence"]["medium"],
            confidence_unspaced_scripts=e["confidence"].get("unspaced_scripts", True),
            files=_files(name, e["files"]),
        )
        for name, e in data["embedding"].items()
    }
    llm = {
        name: LlmSpec(
            name=name,
            description=m["description"],
            n_ctx=m["n_ctx"],
            temperature=m["temperature"],
            max_answer_tokens=m["max_answer_tokens"],
            files=_files(name, m["files"]),
            family=m.get("family", ""),
            label=m.get("label", ""),
            parameters_b=m.get("parameters_b", 0.0),
            quantisation=m.get("quantisation", ""),
            licence=Licence(**m["licence"]) if "licence" in m else None,
            context_window=m.get("context_window", 0),
            shape=Shape(**m["shape"]) if "shape" in m else None,
            measured=Measured(**m["measured"]) if "measured" in m else None,
            answer_lead=m.get("answer_lead", "model"),
        )
        for name, m in data["llm"].items()
    }
    return Specs(embedding=embedding, llm=llm)


def _lookup(table: dict[str, Any], kind: str, name: str) -> Any:
    try:
        return table[name]
    except KeyError:
        known = ", ".join(sorted(table))
        kind = f"{kind} model" if kind else "model"
        raise RewindError(
            Code.NOT_FOUND,
            f"No {kind} named {name!r}.",
            f"Known {kind}s: {known} (`rewind models` lists them).",
        ) from None


def embedding_spec(name: str) -> EmbeddingSpec:
    return _lookup(load_specs().embedding, "embedding", name)


def llm_spec(name: str) -> LlmSpec:
    return _lookup(load_specs().llm, "LLM", name)


def model_path(spec: Spec, model_dir: Path) -> Path:
    return Path(model_dir) / spec.name
