"""Registration (register.py) into a temporary HOME and user-data dir, per OS.

Linux and macOS write real files under a temporary home; Windows is checked as the
list of registry keys/values the installer writes (applied through a dict here, with
winreg only on Windows). The launcher is run for real with an empty environment.
"""

from __future__ import annotations

import json
import stat
import struct
import subprocess
import sys
from pathlib import Path, PureWindowsPath

import pytest
from rewind.errors import RewindError
from rewind.install import browsers, register
from rewind.install.browsers import BROWSERS, Env
from rewind.install.register import MANIFEST_FILE

EXT_ID = "abcdefghijklmnopabcdefghijklmnop"
OTHER_ID = "ponmlkjihgfedcbaponmlkjihgfedcba"
ORIGIN = f"chrome-extension://{EXT_ID}/"


class FakeRegistry(dict):
    """HKCU as a dict, for the Windows install logic (the keys are what is checked)."""

    def write(self, entries):
        self.update(entries)

    def delete(self, keys):
        for k in keys:
            self.pop(k, None)


def linux_env(tmp_path: Path, commands=()) -> Env:
    return Env(
        platform="linux",
        home=tmp_path / "home",
        app_dir=tmp_path / "app",
        which=lambda c: f"/usr/bin/{c}" if c in commands else None,
    )


def read_manifest(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_one_table_names_five_browsers():
    assert [b.key for b in BROWSERS] == ["chrome", "chromium", "edge", "brave", "vivaldi"]


def test_linux_install_writes_manifests_where_each_browser_looks(tmp_path):
    env = linux_env(tmp_path, commands=("chromium",))
    (env.home / ".config" / "google-chrome").mkdir(parents=True)
    (env.home / ".config" / "BraveSoftware" / "Brave-Browser").mkdir(parents=True)
    report = register.install(EXT_ID, python="/opt/venv/bin/python", env=env)

    expected = {
        "Google Chrome": env.home / ".config/google-chrome/NativeMessagingHosts",
        "Chromium": env.home / ".config/chromium/NativeMessagingHosts",
        "Brave": env.home / ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
    }
    assert dict(report.written) == {k: str(v / MANIFEST_FILE) for k, v in expected.items()}
    assert sorted(report.skipped) == ["Microsoft Edge", "Vivaldi"]
    assert not (env.home / ".config" / "microsoft-edge").exists()
    launcher = tmp_path / "app" / "rewind-host"
    for folder in expected.values():
        m = read_manifest(folder / MANIFEST_FILE)
        assert m == {
            "name": "com.rewind.host",
            "description": m["description"],
            "path": str(launcher),
            "type": "stdio",
            "allowed_origins": [ORIGIN],
        }
        assert Path(m["path"]).is_absolute()
    text = launcher.read_text()
    assert text.startswith("#!/bin/sh\n")
    assert f"REWIND_ALLOWED_ORIGINS={ORIGIN}\n" in text
    assert 'exec /opt/venv/bin/python -m rewind serve "$1"\n' in text
    assert launcher.stat().st_mode & stat.S_IXUSR


def test_named_browsers_and_custom_user_data_dir(tmp_path):
    env = linux_env(tmp_path)
    profile = tmp_path / "chromium-profile"
    report = register.install(EXT_ID, env=env, browsers=["edge"], user_data_dirs=[profile])
    edge = env.home / ".config/microsoft-edge/NativeMessagingHosts" / MANIFEST_FILE
    custom = profile / "NativeMessagingHosts" / MANIFEST_FILE
    assert [w for _, w in report.written] == [str(edge), str(custom)]
    assert read_manifest(custom)["allowed_origins"] == [ORIGIN]
    with pytest.raises(RewindError):
        register.install(EXT_ID, env=env, browsers=["netscape"])
    with pytest.raises(RewindError):
        register.install("not-an-id", env=env)


def test_macos_paths(tmp_path):
    apps = tmp_path / "Applications"
    (apps / "Vivaldi.app").mkdir(parents=True)
    env = Env(
        platform="darwin", home=tmp_path / "home", app_dir=tmp_path / "app", applications=(apps,)
    )
    (env.home / "Library/Application Support/Microsoft Edge").mkdir(parents=True)
    report = register.install(EXT_ID, python="/usr/bin/python3", env=env)
    support = env.home / "Library" / "Application Support"
    assert dict(report.written) == {
        "Microsoft Edge": str(support / "Microsoft Edge/NativeMessagingHosts" / MANIFEST_FILE),
        "Vivaldi": str(support / "Vivaldi/NativeMessagingHosts" / MANIFEST_FILE),
    }
    assert (
        browsers.manifest_dir(browsers.BY_KEY["chrome"], env)
        == support / "Google" / "Chrome" / "NativeMessagingHosts"
    )
    assert (
        browsers.manifest_dir(browsers.BY_KEY["brave"], env)
        == support / "BraveSoftware" / "Brave-Browser" / "NativeMessagingHosts"
    )


def test_windows_registry_entries_are_a_pure_list():
    manifest = r"C:\Users\maya\AppData\Local\rewind\host\com.rewind.host.json"
    assert browsers.windows_registry_entries(manifest, list(BROWSERS)) == [
        (r"HKCU\Software\Google\Chrome\NativeMessagingHosts\com.rewind.host", manifest),
        (r"HKCU\Software\Chromium\NativeMessagingHosts\com.rewind.host", manifest),
        (r"HKCU\Software\Microsoft\Edge\NativeMessagingHosts\com.rewind.host", manifest),
        (
            r"HKCU\Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\com.rewind.host",
            manifest,
        ),
        (r"HKCU\Software\Vivaldi\NativeMessagingHosts\com.rewind.host", manifest),
    ]


def test_windows_install_writes_keys_manifest_and_bat(tmp_path):
    reg = FakeRegistry()
    local = tmp_path / "Local"
    (local / "Google" / "Chrome" / "User Data").mkdir(parents=True)
    env = Env(
        platform="win32",
        home=tmp_path,
        local_app_data=local,
        app_dir=tmp_path / "app",
        registry_write=reg.write,
        registry_delete=reg.delete,
        registry_read=reg.get,
    )
    assert (
        browsers.user_data_root(browsers.BY_KEY["edge"], env)
        == PureWindowsPath(str(local)) / "Microsoft" / "Edge" / "User Data"
    )
    python = r"C:\Program Files\Rewind\.venv\Scripts\python.exe"
    report = register.install(EXT_ID, python=python, env=env, browsers=["chrome", "edge"])
    manifest = tmp_path / "app" / MANIFEST_FILE
    assert reg == {
        r"HKCU\Software\Google\Chrome\NativeMessagingHosts\com.rewind.host": str(manifest),
        r"HKCU\Software\Microsoft\Edge\NativeMessagingHosts\com.rewind.host": str(manifest),
    }
    assert [w for _, w in report.written] == list(reg)
    m = read_manifest(manifest)
    assert m["path"] == str(tmp_path / "app" / "rewind-host.bat")
    assert m["allowed_origins"] == [ORIGIN]
    bat = (tmp_path / "app" / "rewind-host.bat").read_bytes().decode()
    assert bat.startswith("@echo off\r\n")
    assert f'set "REWIND_ALLOWED_ORIGINS={ORIGIN}"\r\n' in bat
    assert f'"{python}" -m rewind serve %1\r\n' in bat  # not Chrome's --parent-window

    checks = {c.name: c for c in register.doctor_checks(EXT_ID, env)}
    assert set(checks) == {"host for Google Chrome", "host for Microsoft Edge"}
    removed = register.uninstall(env=env)
    assert reg == {} and len(removed) == 4  # two keys, the manifest, the launcher


def test_found_by_default_everything_when_asked(tmp_path):
    env = linux_env(tmp_path)
    assert register.install(EXT_ID, env=env).written == []  # no browser found: nothing
    all_keys = [b.key for b in BROWSERS]
    assert len(register.install(EXT_ID, env=env, browsers=all_keys).written) == 5


def test_doctor_reports_registration_and_id(tmp_path):
    env = linux_env(tmp_path, commands=("chromium",))
    (env.home / ".config" / "vivaldi").mkdir(parents=True)
    before = register.doctor_checks(EXT_ID, env)
    assert {c.name: c.ok for c in before} == {"host for Chromium": False, "host for Vivaldi": False}
    assert all("not registered" in c.detail and c.fix for c in before)

    register.install(EXT_ID, python=sys.executable, env=env)
    after = register.doctor_checks(EXT_ID, env)
    assert all(c.ok for c in after) and len(after) == 2
    assert all("matches" in c.detail for c in after)

    wrong = register.doctor_checks(OTHER_ID, env)
    assert not any(c.ok for c in wrong)
    assert all(OTHER_ID in c.detail and EXT_ID in c.detail for c in wrong)

    (tmp_path / "app" / "rewind-host").unlink()
    gone = register.doctor_checks(EXT_ID, env)
    assert not any(c.ok for c in gone) and all("missing" in c.detail for c in gone)


def test_doctor_notices_a_vanished_interpreter(tmp_path):
    env = linux_env(tmp_path, commands=("chromium",))
    register.install(EXT_ID, python=str(tmp_path / "old-venv" / "python"), env=env)
    [check] = register.doctor_checks(EXT_ID, env)
    assert not check.ok and "Python" in check.detail


def test_uninstall_removes_what_install_wrote(tmp_path):
    env = linux_env(tmp_path, commands=("chromium", "google-chrome"))
    profile = tmp_path / "profile"
    report = register.install(EXT_ID, env=env, user_data_dirs=[profile])
    removed = register.uninstall(env=env, user_data_dirs=[profile])
    assert sorted(removed) == sorted([w for _, w in report.written] + [str(report.launcher)])
    assert not any(Path(p).exists() for p in removed)


def test_the_launcher_starts_the_host_with_an_empty_environment(tmp_path):
    """What a GUI browser does: exec the manifest's path with the origin, no PATH, no venv."""
    env = linux_env(tmp_path, commands=("chromium",))
    register.install(EXT_ID, python=sys.executable, env=env)
    m = read_manifest(env.home / ".config/chromium/NativeMessagingHosts" / MANIFEST_FILE)
    request = json.dumps({"id": 1, "type": "hello", "profile": "p1"}).encode()
    proc = subprocess.run(  # Chrome on Windows adds --parent-window: the launcher drops it
        [m["path"], ORIGIN, "--parent-window=0"],
        input=struct.pack("=I", len(request)) + request,
        capture_output=True,
        timeout=60,
        cwd=tmp_path,
        env={
            "REWIND_DATA_DIR": str(tmp_path / "data"),
            "REWIND_MODEL_DIR": str(tmp_path / "models"),
        },
    )
    assert proc.returncode == 0, proc.stderr.decode()
    (n,) = struct.unpack("=I", proc.stdout[:4])
    reply = json.loads(proc.stdout[4 : 4 + n])
    assert reply["ok"] is True and reply["profile"] == "p1"
    # The launcher names only this extension.
    refused = subprocess.run(
        [m["path"], f"chrome-extension://{OTHER_ID}/"],
        input=b"",
        capture_output=True,
        timeout=60,
        env={},
    )
    assert refused.returncode == 1 and b"forbidden" in refused.stdout
