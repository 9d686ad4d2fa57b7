"""The model directory: which of a model's files are installed, and in what state.

Each file's sha256 is checked in full once, at install, and the check kept beside it
(`rewind-install.json`); a start compares sizes and mtimes only, `verify=True` hashes
again (specs.py: Checksums).
This module reports what is present. It must never download anything (packages.py and
download.py install), and never load a model (the embedder and answerer do).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from .. import config
from ..errors import Code, RewindError
from . import catalog
from .specs import EmbeddingSpec, FileSpec, LlmSpec, Spec, kept_files, load_specs, model_path

MARKER = "rewind-install.json"  # per-model record of files verified at install
INSTALL_HINT = f"run `{config.setup_command()}`"


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
        FileStatus(f.name, _file_state(dest, f, marker, verify), dest / f.name)
        for f in kept_files(spec)
    )
    return ModelStatus(spec=spec, path=dest, files=files)


def unused_folders(model_dir: Path) -> list[tuple[Path, int]]:
    """Folders Rewind installed (they hold its MARKER) that no model in the catalog names any
    more, e.g. an answering model an upgrade replaced; with their sizes in bytes. Reported,
    never deleted here: the person decides."""
    specs = load_specs()
    known = {*specs.embedding, *specs.llm}
    found = []
    for folder in sorted(Path(model_dir).glob(f"*/{MARKER}")):
        dest = folder.parent
        if dest.name not in known:
            size = sum(f.stat().st_size for f in dest.rglob("*") if f.is_file())
            found.append((dest, size))
    return found


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
