"""`rewind setup`: what makes a computer ready for Rewind, step by step, each said as done.

Two steps, both idempotent: the offline default models (read out of their PyPI packages,
checksums verified; already installed ones are only checked) and the native host's
registration with every Chromium-family browser found. `build.py install` runs the same
steps through `rewind setup`, so a source checkout and a wheel set up the same way.
`teardown` undoes the registration and says where the data and models stay.
This module must never delete a person's data or models, and never report a step as done
that did not happen: each line says what was written, found or skipped.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import config
from ..errors import Code, RewindError
from ..models import installed, packages, specs
from ..native.identity import read_extension_id
from . import register
from .browsers import Env

Say = Callable[[str], object]
STEPS = ("models", "helper")


@dataclass
class SetupReport:
    """What set-up did, for `--json` and the tests: lines a person reads, and the facts."""

    lines: list[str] = field(default_factory=list)
    models: dict[str, str] = field(default_factory=dict)  # name -> installed | skipped: why
    registered: list[tuple[str, str]] = field(default_factory=list)  # (browser, where)
    launcher: str = ""
    removed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"lines": self.lines, "models": self.models,
                "registered": [{"browser": b, "where": w} for b, w in self.registered],
                "launcher": self.launcher, "removed": self.removed}


def offline_defaults() -> list[specs.Spec]:
    """The models every install gets: those whose files all come from PyPI packages."""
    known = specs.load_specs()
    every = [*known.embedding.values(), *known.llm.values()]
    return [s for s in every if s.files and all(f.package or f.made_from for f in s.files)]


def _has_llama() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


def install_models(say: Say, model_dir: Path, pip_args: tuple[str, ...] = ()) -> dict[str, str]:
    done: dict[str, str] = {}
    for spec in offline_defaults():
        if isinstance(spec, specs.LlmSpec) and not _has_llama():
            why = ("llama-cpp-python is not installed, so answers are made of your pages' "
                   "own sentences; install Rewind with its `llm` extra for a language model")
            say(f"  {spec.name}: skipped ({why})")
            done[spec.name] = f"skipped: {why}"
            continue
        if installed.status(spec, model_dir, verify=True).installed:
            say(f"  {spec.name}: already installed, checksums verified")
        else:
            packages.install_from_packages(spec, model_dir, pip_args=pip_args,
                                           progress=lambda line: say(f"  {line}"))
        done[spec.name] = "installed"
    say_unused(say, model_dir)
    return done


def say_unused(say: Say, model_dir: Path) -> None:
    """Name the model folders no model uses any more, and how to free them: deleting is the
    person's choice (this module never deletes models)."""
    for dest, size in installed.unused_folders(model_dir):
        say(f"  {dest.name}: no longer used by Rewind ({size / 1e6:,.0f} MB); delete {dest} "
            "to free the space")


def setup(
    *,
    say: Say = print,
    only: str | None = None,
    browsers: list[str] | None = None,
    user_data_dirs: list[Path] = (),
    extension_id: str | None = None,
    env: Env | None = None,
    model_dir: Path | None = None,
    pip_args: tuple[str, ...] = (),
) -> SetupReport:
    """Install the offline default models and register the host (or `only` one of the two
    STEPS); say each step's outcome."""
    report = SetupReport()

    def line(text: str) -> None:
        report.lines.append(text)
        say(text)

    todo = [only] if only else list(STEPS)
    if "models" in todo:
        where = model_dir or config.model_dir()
        line(f"[{todo.index('models') + 1}/{len(todo)}] models, in {where}")
        report.models = install_models(line, where, pip_args)
    if "helper" in todo:
        _register(line, report, todo, browsers, user_data_dirs, extension_id, env)
    return report


def _register(line: Say, report: SetupReport, todo: list[str], browsers: list[str] | None,
              user_data_dirs: list[Path], extension_id: str | None, env: Env | None) -> None:
    ext_id = extension_id or read_extension_id()
    if not ext_id:
        raise RewindError(Code.NOT_FOUND, "The extension's ID is unknown (extension/EXTENSION_ID "
                          "is missing), so the helper cannot be registered for it.",
                          "Pass --extension-id, or reinstall Rewind.")
    line(f"[{todo.index('helper') + 1}/{len(todo)}] the helper (native messaging host) for "
         f"extension {ext_id}")
    reg = register.install(ext_id, env=env, browsers=browsers, user_data_dirs=user_data_dirs)
    report.launcher = str(reg.launcher)
    report.registered = list(reg.written)
    line(f"  launcher: {reg.launcher}")
    for browser, path in reg.written:
        line(f"  registered for {browser}: {path}")
    if not reg.written:
        line("  no Chrome, Chromium, Edge, Brave or Vivaldi found: nothing registered "
             f"(install one, then run `{config.setup_command()}` again)")
    elif reg.skipped:
        line(f"  not found, so not registered: {', '.join(reg.skipped)} "
             f"(run `{config.setup_command()}` again after installing one)")


def teardown(*, say: Say = print, browsers: list[str] | None = None,
             user_data_dirs: list[Path] = (), env: Env | None = None) -> SetupReport:
    """Remove the host's registration and launcher; data and models stay where they are."""
    report = SetupReport()
    report.removed = register.uninstall(env=env, browsers=browsers, user_data_dirs=user_data_dirs)
    lines = [f"removed {p}" for p in report.removed] or [
        "nothing to remove: the helper was not registered"]
    lines.append(f"kept: your data in {config.profiles_dir()} and models in "
                 f"{config.model_dir()} (delete them yourself to remove them)")
    for text in lines:
        report.lines.append(text)
        say(text)
    return report
