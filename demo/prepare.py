"""What the harness needs before a browser starts: Chromium, the built extension, and the
real host registered for a throwaway profile.

Job: find Chromium ($REWIND_CHROMIUM or Debian's), build the extension into a folder
(extension/build.mjs), register the host for one `--user-data-dir` only and take that
registration away again; HarnessError says what to install or run when something is missing.
Never: write to the person's own browser profiles or host registration.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from rewind.install import browsers, register
from rewind.native import identity

ROOT = Path(__file__).resolve().parents[1]
EXTENSION_SRC = ROOT / "extension"
CHROMIUM_NAMES = ("chromium", "chromium-browser")  # Debian, Ubuntu


class HarnessError(RuntimeError):
    """Something needed is missing or broke; the message says what to install or run."""



def find_chromium() -> str | None:
    """$REWIND_CHROMIUM, else Debian's `chromium` on PATH (Playwright cannot fetch its own)."""
    forced = os.environ.get("REWIND_CHROMIUM")
    if forced:
        return forced if Path(forced).exists() else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def extension_id() -> str:
    ext_id = identity.read_extension_id()
    if not ext_id:
        raise HarnessError("extension/EXTENSION_ID is missing: run this from a Rewind checkout.")
    return ext_id


def build_extension(out: Path) -> Path:
    """The loadable extension in `out` (extension/build.mjs: sources + pinned Readability)."""
    node = shutil.which("node")
    if not node:
        raise HarnessError("Node.js is missing: install Node.js 20+ to build the extension.")
    if not (EXTENSION_SRC / "node_modules" / "@mozilla" / "readability").is_dir():
        raise HarnessError(
            "The extension's npm packages are missing: run `python3 build.py build` "
            "(it runs npm ci in extension/)."
        )
    done = subprocess.run(
        [node, str(EXTENSION_SRC / "build.mjs"), str(out)],
        cwd=EXTENSION_SRC,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise HarnessError(f"node build.mjs failed: {done.stderr.strip()[-800:]}")
    return out


def register_host(user_data_dir: Path, host_dir: Path) -> Path:
    """Register the real host for a browser started with --user-data-dir=`user_data_dir`.

    The launcher is written in `host_dir`; the registration Env has an empty home and
    finds no browser, so nothing is written for the person's own browsers.
    """
    env = browsers.Env(
        home=host_dir / "home", app_dir=host_dir, which=lambda _name: None, applications=()
    )
    report = register.install(
        extension_id(), python=sys.executable, env=env, user_data_dirs=[user_data_dir]
    )
    others = [name for name, _ in report.written if not name.startswith("--user-data-dir")]
    if others:  # the Env above must keep registration inside the throwaway folders
        raise HarnessError(f"registration also wrote for {others}; refusing to go on")
    return register.launcher_path(env)


def unregister_host(user_data_dir: Path) -> None:
    (user_data_dir / "NativeMessagingHosts" / register.MANIFEST_FILE).unlink(missing_ok=True)
