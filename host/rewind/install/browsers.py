"""Where each Chromium-family browser looks for native messaging hosts, from one table.

One row per browser (Chrome, Chromium, Edge, Brave, Vivaldi): its user data folder on
Linux, macOS and Windows, its registry key, and how to tell it is installed. Every path
and key is derived from the row; `Env` says which machine we are on (tests fake it).
This module must never write anything: register.py installs.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath, PureWindowsPath

from .. import config
from ..native.identity import HOST_NAME


@dataclass(frozen=True)
class Browser:
    key: str
    name: str
    linux: str  # user data dir under ~/.config
    mac: str  # user data dir under ~/Library/Application Support
    windows_key: str  # registry key under HKCU
    windows_data: str  # user data dir under %LOCALAPPDATA%
    linux_commands: tuple[str, ...]  # any of these on PATH means it is installed
    mac_app: str  # under /Applications or ~/Applications


# One row per browser: every path and key below is derived from this table.
BROWSERS: tuple[Browser, ...] = (
    Browser(
        "chrome",
        "Google Chrome",
        "google-chrome",
        "Google/Chrome",
        r"Software\Google\Chrome",
        r"Google\Chrome\User Data",
        ("google-chrome", "google-chrome-stable"),
        "Google Chrome.app",
    ),
    Browser(
        "chromium",
        "Chromium",
        "chromium",
        "Chromium",
        r"Software\Chromium",
        r"Chromium\User Data",
        ("chromium", "chromium-browser"),
        "Chromium.app",
    ),
    Browser(
        "edge",
        "Microsoft Edge",
        "microsoft-edge",
        "Microsoft Edge",
        r"Software\Microsoft\Edge",
        r"Microsoft\Edge\User Data",
        ("microsoft-edge", "microsoft-edge-stable"),
        "Microsoft Edge.app",
    ),
    Browser(
        "brave",
        "Brave",
        "BraveSoftware/Brave-Browser",
        "BraveSoftware/Brave-Browser",
        r"Software\BraveSoftware\Brave-Browser",
        r"BraveSoftware\Brave-Browser\User Data",
        ("brave-browser", "brave"),
        "Brave Browser.app",
    ),
    Browser(
        "vivaldi",
        "Vivaldi",
        "vivaldi",
        "Vivaldi",
        r"Software\Vivaldi",
        r"Vivaldi\User Data",
        ("vivaldi", "vivaldi-stable"),
        "Vivaldi.app",
    ),
)
BY_KEY = {b.key: b for b in BROWSERS}


def _winreg_write(entries: list[tuple[str, str]]) -> None:
    import winreg  # only exists on Windows

    for key, value in entries:
        with winreg.CreateKeyEx(
            winreg.HKEY_CURRENT_USER, key.removeprefix("HKCU\\"), 0, winreg.KEY_WRITE
        ) as k:
            winreg.SetValueEx(k, "", 0, winreg.REG_SZ, value)


def _winreg_delete(keys: list[str]) -> None:
    import winreg

    for key in keys:
        with contextlib.suppress(FileNotFoundError):
            winreg.DeleteKey(winreg.HKEY_CURRENT_USER, key.removeprefix("HKCU\\"))


def _winreg_read(key: str) -> str | None:
    import winreg

    try:
        with winreg.OpenKey(winreg.HKEY_CURRENT_USER, key.removeprefix("HKCU\\")) as k:
            return winreg.QueryValue(k, None)
    except FileNotFoundError:
        return None


@dataclass
class Env:
    """Where things are on this machine; tests build one around a temporary HOME."""

    platform: str = field(default_factory=lambda: sys.platform)
    home: Path = field(default_factory=Path.home)
    local_app_data: Path | None = None  # Windows %LOCALAPPDATA%
    app_dir: Path | None = None  # launcher (+ the Windows manifest) live here
    which: Callable[[str], str | None] = shutil.which
    applications: tuple[Path, ...] = (Path("/Applications"),)
    registry_write: Callable[[list[tuple[str, str]]], None] = _winreg_write
    registry_delete: Callable[[list[str]], None] = _winreg_delete
    registry_read: Callable[[str], str | None] = _winreg_read

    def __post_init__(self) -> None:
        if self.local_app_data is None:
            env = os.environ.get("LOCALAPPDATA")
            self.local_app_data = Path(env) if env else self.home / "AppData" / "Local"
        if self.app_dir is None:
            self.app_dir = config.app_data_dir() / "host"

    @property
    def windows(self) -> bool:
        return self.platform == "win32"


# ---- where each browser looks ------------------------------------------------------------


def user_data_root(b: Browser, env: Env) -> PurePath:
    if env.windows:
        return PureWindowsPath(str(env.local_app_data)) / PureWindowsPath(b.windows_data)
    if env.platform == "darwin":
        return env.home / "Library" / "Application Support" / b.mac
    return env.home / ".config" / b.linux


def manifest_dir(b: Browser, env: Env) -> Path:
    """The per-user NativeMessagingHosts folder (Linux, macOS)."""
    return Path(user_data_root(b, env)) / "NativeMessagingHosts"


def registry_key(b: Browser) -> str:
    return rf"HKCU\{b.windows_key}\NativeMessagingHosts\{HOST_NAME}"


def is_found(b: Browser, env: Env) -> bool:
    """Installed or used: its user data dir exists, or (Linux) its command, (macOS) its app."""
    if Path(user_data_root(b, env)).is_dir():
        return True
    if env.platform == "darwin":
        return any((d / b.mac_app).exists() for d in (*env.applications, env.home / "Applications"))
    if not env.windows:
        return any(env.which(c) for c in b.linux_commands)
    return False


def windows_registry_entries(manifest_path: str, browsers: list[Browser]) -> list[tuple[str, str]]:
    """What install writes on Windows: (key under HKCU, its default value) per browser."""
    return [(registry_key(b), manifest_path) for b in browsers]
