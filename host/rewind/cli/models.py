"""`rewind models`: what is installed, and pulling a model from a mirror.

This module must never download anything the person did not ask for.
"""

from __future__ import annotations

import argparse

from .. import config
from ..errors import Code, RewindError
from ..index import models
from .common import Command, emit


def cmd_models(args: argparse.Namespace) -> int:
    if args.action == "pull":
        return cmd_models_pull(args)
    if args.name:
        raise RewindError(Code.BAD_REQUEST, f"`rewind models list` takes no name ({args.name}).",
                          "Use `rewind models pull NAME` to download one.")
    rows = models.describe(config.model_dir(), verify=args.verify)
    human = "\n".join(
        f"{'installed' if r['installed'] else 'missing  '}  {r['kind']:9} {r['name']:28} "
        f"{r['description']}" for r in rows)
    emit(args, rows, human + f"\n(model directory: {config.model_dir()})")
    return 0


def cmd_models_pull(args: argparse.Namespace) -> int:
    from ..index import download

    if not args.name:
        raise RewindError(Code.BAD_REQUEST, "Which model? `rewind models pull NAME`.",
                          "`rewind models` lists the names.")
    spec = models.load_specs().get(args.name)
    mirror = download.mirror_setting(args.mirror)
    pulled = download.pull(spec, config.model_dir(), mirror, progress=download.Bar())
    rows = [{"file": p.name, "path": str(p.path), "bytes": p.bytes, "sha256": p.sha256 or None,
             "checked_against_known_sha256": p.verified, "already_installed": p.skipped}
            for p in pulled]
    human = "\n".join(
        f"{'kept     ' if p.skipped else 'installed'}  {p.path}  ({p.bytes / 1e6:,.1f} MB"
        + ("" if p.skipped or p.verified else f", sha256 {p.sha256} recorded: models.json has "
           "none to check it against") + ")" for p in pulled)
    emit(args, {"model": spec.name, "files": rows}, human)
    return 0


def register(command: Command) -> None:
    sp = command("models", cmd_models, "list models (`models pull NAME` downloads one)")
    sp.add_argument("action", nargs="?", choices=("list", "pull"), default="list")
    sp.add_argument("name", nargs="?", help="the model to pull")
    sp.add_argument("--verify", action="store_true", help="check every file's sha256")
    sp.add_argument("--mirror", help="where to download from (or $REWIND_MODEL_MIRROR); "
                    "a URL template with {repo} and {path}, see docs/answers.md")
