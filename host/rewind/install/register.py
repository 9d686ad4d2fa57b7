"""Register the native host with every Chromium-family browser, from one table.

`install` writes a launcher (an absolute interpreter path, because browsers start
hosts with a minimal environment) and the host manifest `com.rewind.host` where
each browser looks for it: a NativeMessagingHosts folder on Linux and macOS, a
registry key under HKCU on Windows whose default value is the manifest's path.
`doctor_checks` says, per browser found, whether the host is registered and
whether the manifest allows this extension's ID.
This module must never touch a browser's profile data beyond its
NativeMessagingHosts folder, and never write the registry except on Windows.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path, PureWindowsPath
from typing import Any

from .. import config
from ..checks import Check
from ..errors import Code, RewindError
from ..native.identity import (
    HOST_NAME,
    origin,
    read_extension_id,
    shipped,
    valid_extension_id,
)
from .browsers import (
    BROWSERS,
    BY_KEY,
    Browser,
    Env,
    is_found,
    manifest_dir,
    registry_key,
    windows_registry_entries,
)

MANIFEST_FILE = f"{HOST_NAME}.json"
TEMPLATE = Path("manifests") / MANIFEST_FILE


# ---- what is written ---------------------------------------------------------------------


def launcher_path(env: Env) -> Path:
    assert env.app_dir is not None
    return env.app_dir / ("rewind-host.bat" if env.windows else "rewind-host")


def launcher_text(python: str, origins: list[str], pythonpath: str, windows: bool) -> str:
    """A script that starts the host with everything spelled out (browsers pass little env).

    Only the first argument (the caller's origin) is passed on: Chrome on Windows adds
    `--parent-window=<handle>`, which the host has no use for.
    """
    allowed = ",".join(origins)
    if windows:

        def bat(s: str) -> str:
            return s.replace("%", "%%")

        return (
            "@echo off\r\n"
            "rem Rewind's native messaging host, written by Rewind's set-up.\r\n"
            f'set "REWIND_ALLOWED_ORIGINS={bat(allowed)}"\r\n'
            f'set "PYTHONPATH={bat(pythonpath)}"\r\n'
            f'"{bat(python)}" -m rewind serve %1\r\n'
        )
    return (
        "#!/bin/sh\n"
        "# Rewind's native messaging host, written by Rewind's set-up (`rewind setup`).\n"
        "# Browsers start hosts with a minimal environment: everything is spelled out here.\n"
        f"REWIND_ALLOWED_ORIGINS={shlex.quote(allowed)}\n"
        "export REWIND_ALLOWED_ORIGINS\n"
        f"PYTHONPATH={shlex.quote(pythonpath)}\n"
        "export PYTHONPATH\n"
        f'exec {shlex.quote(python)} -m rewind serve "$1"\n'
    )


def manifest(launcher: str, origins: list[str], template: Path | None = None) -> dict[str, Any]:
    """The host manifest: manifests/com.rewind.host.json with path and origins filled in."""
    path = template or shipped(TEMPLATE)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RewindError(
            Code.NOT_FOUND,
            f"The host manifest template {path} is missing or broken ({exc}).",
            f"Reinstall Rewind ({config.setup_command()}).",
        ) from None
    if data.get("name") != HOST_NAME:
        raise RewindError(Code.BAD_INPUT, f"{path} is not the {HOST_NAME} manifest.")
    return {**data, "path": launcher, "allowed_origins": list(origins)}


@dataclass
class Report:
    launcher: Path
    written: list[tuple[str, str]] = field(default_factory=list)  # (browser, file or key)
    skipped: list[str] = field(default_factory=list)  # browsers not found

    def lines(self) -> list[str]:
        out = [f"launcher: {self.launcher}"]
        out += [f"{name}: {where}" for name, where in self.written]
        if self.skipped:
            out.append(
                "not found (install again after installing them): " + ", ".join(self.skipped)
            )
        return out


def _select(env: Env, browsers: list[str] | None) -> tuple[list[Browser], list[str]]:
    if browsers:
        unknown = [k for k in browsers if k not in BY_KEY]
        if unknown:
            raise RewindError(
                Code.BAD_REQUEST,
                f"Unknown browser(s): {', '.join(unknown)}.",
                f"Known: {', '.join(BY_KEY)}.",
            )
        return [BY_KEY[k] for k in browsers], []
    found = [b for b in BROWSERS if is_found(b, env)]
    return found, [b.name for b in BROWSERS if b not in found]


def _write(path: Path, text: str, mode: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8", newline="")
    if mode is not None:
        os.chmod(tmp, mode)
    os.replace(tmp, path)


def install(
    extension_id: str,
    *,
    python: str | None = None,
    env: Env | None = None,
    browsers: list[str] | None = None,
    user_data_dirs: list[Path] = (),
    template: Path | None = None,
) -> Report:
    """Write the launcher and register the host for the browsers found (or those named).

    `user_data_dirs`: browsers started with --user-data-dir=D read D/NativeMessagingHosts
    (and not the per-user folder), so tests and the demo register there too.
    """
    if not valid_extension_id(extension_id):
        raise RewindError(
            Code.BAD_REQUEST,
            f"{extension_id!r} is not an extension ID.",
            "It is 32 letters a-p: see extension/EXTENSION_ID.",
        )
    env = env or Env()
    origins = [origin(extension_id)]
    python = python or sys.executable
    if not (PureWindowsPath(python) if env.windows else Path(python)).is_absolute():
        python = os.path.abspath(python)
    launcher = launcher_path(env)
    pythonpath = str(Path(__file__).resolve().parents[2])
    mode = (
        None
        if env.windows
        else stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH
    )
    _write(launcher, launcher_text(python, origins, pythonpath, env.windows), mode)
    text = json.dumps(manifest(str(launcher), origins, template), indent=2) + "\n"
    chosen, skipped = _select(env, browsers)
    report = Report(launcher, skipped=skipped)
    if env.windows:
        manifest_path = launcher.with_name(MANIFEST_FILE)
        _write(manifest_path, text)
        entries = windows_registry_entries(str(manifest_path), chosen)
        env.registry_write(entries)
        report.written += [(b.name, key) for b, (key, _) in zip(chosen, entries, strict=True)]
    else:
        for b in chosen:
            path = manifest_dir(b, env) / MANIFEST_FILE
            _write(path, text)
            report.written.append((b.name, str(path)))
    for d in user_data_dirs:
        path = Path(d) / "NativeMessagingHosts" / MANIFEST_FILE
        _write(path, text)
        report.written.append((f"--user-data-dir {d}", str(path)))
    return report


def uninstall(
    *, env: Env | None = None, browsers: list[str] | None = None, user_data_dirs: list[Path] = ()
) -> list[str]:
    """Remove what install wrote (for every browser in the table unless named)."""
    env = env or Env()
    chosen = [BY_KEY[k] for k in browsers] if browsers else list(BROWSERS)
    removed: list[str] = []
    paths = [Path(d) / "NativeMessagingHosts" / MANIFEST_FILE for d in user_data_dirs]
    if env.windows:
        keys = [registry_key(b) for b in chosen]
        present = [k for k in keys if env.registry_read(k) is not None]
        env.registry_delete(present)
        removed += present
        paths.append(launcher_path(env).with_name(MANIFEST_FILE))
    else:
        paths += [manifest_dir(b, env) / MANIFEST_FILE for b in chosen]
    if not browsers:
        paths.append(launcher_path(env))
    for path in paths:
        if path.exists():
            path.unlink()
            removed.append(str(path))
    return removed


# ---- doctor ------------------------------------------------------------------------------


def _launcher_problem(launcher: str, env: Env) -> str | None:
    path = Path(launcher)
    if not path.is_absolute():
        return f"the manifest's path {launcher!r} is not absolute"
    if not path.is_file():
        return f"the launcher {launcher} is missing"
    if not env.windows and not os.access(path, os.X_OK):
        return f"the launcher {launcher} is not executable"
    m = re.search(r"^(?:exec )?(.+?) -m rewind serve", path.read_text(errors="replace"), re.M)
    if m:
        words = shlex.split(m.group(1), posix=not env.windows)
        python = words[-1].strip('"') if words else ""
        if python and not Path(python).exists():
            return f"the launcher's Python {python} is gone"
    return None


def _check_manifest(where: str, path: Path, expected: str | None, env: Env) -> tuple[bool, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False, f"not registered ({path} missing)"
    except (OSError, ValueError) as exc:
        return False, f"{path} is unreadable: {exc}"
    origins = data.get("allowed_origins") or []
    problem = _launcher_problem(str(data.get("path", "")), env)
    if problem:
        return False, f"registered at {where}, but {problem}"
    if expected is None:
        return True, f"registered at {where} for {', '.join(origins)} (extension ID unknown)"
    if expected not in origins:
        return False, (
            f"registered at {where}, but for {', '.join(origins) or 'no extension'}, not {expected}"
        )
    return True, f"registered at {where}; allowed origin matches {expected}"


def doctor_checks(
    extension_id: str | None = None, env: Env | None = None, user_data_dirs: list[Path] = ()
) -> list[Check]:
    """One check per browser found (or registered): registered, launcher ok, ID matches."""
    env = env or Env()
    if extension_id is None:
        try:
            extension_id = read_extension_id()
        except RewindError:
            extension_id = None
    expected = origin(extension_id) if extension_id else None
    checks: list[Check] = []
    for b in BROWSERS:
        if env.windows:
            value = env.registry_read(registry_key(b))
            if value is None and not is_found(b, env):
                continue
            if value is None:
                ok, detail = False, f"not registered ({registry_key(b)} missing)"
            else:
                ok, detail = _check_manifest(registry_key(b), Path(value), expected, env)
        else:
            path = manifest_dir(b, env) / MANIFEST_FILE
            if not path.exists() and not is_found(b, env):
                continue
            ok, detail = _check_manifest(str(path), path, expected, env)
        checks.append(Check(f"host for {b.name}", ok, detail, "" if ok else config.setup_command()))
    for d in user_data_dirs:
        path = Path(d) / "NativeMessagingHosts" / MANIFEST_FILE
        ok, detail = _check_manifest(str(path), path, expected, env)
        fix = "" if ok else config.setup_command()
        checks.append(Check(f"host for --user-data-dir {d}", ok, detail, fix))
    if not checks:
        checks.append(
            Check(
                "browsers",
                True,
                "no Chrome, Chromium, Edge, Brave or Vivaldi "
                "found: nothing to register (the CLI works without one)",
            )
        )
    return checks
