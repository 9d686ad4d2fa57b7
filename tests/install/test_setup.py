"""Set-up the way a person runs it, against a temporary HOME: `rewind setup` (what
build.py calls), the README's `python3 build.py install` / `uninstall`, and a wheel built by
`build.py dist` installed outside the checkout. Each checks the manifest where the browser
reads it, the launcher (it answers hello as the browser would start it) and `rewind doctor`.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from rewind import config
from rewind.install import steps
from rewind.install.browsers import Env
from rewind.install.register import MANIFEST_FILE
from rewind.native.identity import read_extension_id
from support.requirement import missing

ROOT = Path(__file__).resolve().parents[2]
EXT_ID = read_extension_id()
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="writes under a Linux HOME")


def home_env(home: Path, **extra: str) -> dict[str, str]:
    """A person's environment with a fresh HOME (nothing of this machine's set-up in it);
    models come from the real model folder, so set-up verifies them instead of fetching."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.pop("REWIND_DATA_DIR", None)
    return {**env, "HOME": str(home), "REWIND_MODEL_DIR": str(config.model_dir()), **extra}


def browser_home(tmp_path: Path) -> tuple[Path, Path]:
    """A HOME where Google Chrome has been used (its user data folder exists), whatever
    this machine has installed; returns (home, where Chrome reads the manifest)."""
    home = tmp_path / "home"
    (home / ".config" / "google-chrome").mkdir(parents=True)
    return home, home / ".config" / "google-chrome" / "NativeMessagingHosts" / MANIFEST_FILE


def hello_through(launcher: str, env: dict[str, str]) -> dict:
    """Start the launcher as the browser does (origin as argv[1]) and say hello."""
    request = json.dumps({"id": 1, "type": "hello", "profile": "setup-test"}).encode()
    proc = subprocess.run([launcher, f"chrome-extension://{EXT_ID}/"],
                          input=struct.pack("=I", len(request)) + request,
                          capture_output=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr.decode()
    (n,) = struct.unpack("=I", proc.stdout[:4])
    return json.loads(proc.stdout[4:4 + n])


def doctor(python: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([python, "-m", "rewind", "doctor"], capture_output=True, text=True,
                          timeout=300, env=env)


def test_setup_steps_say_what_they_wrote(tmp_path, model_dir):
    home, manifest = browser_home(tmp_path)
    env = Env(platform="linux", home=home, app_dir=tmp_path / "app", which=lambda _c: None)
    lines: list[str] = []
    report = steps.setup(say=lines.append, env=env, model_dir=model_dir)
    assert report.models == {s.name: "installed" for s in steps.offline_defaults()}
    assert report.registered == [("Google Chrome", str(manifest))]
    assert any(str(manifest) in line for line in lines)
    assert json.loads(manifest.read_text())["allowed_origins"] == [f"chrome-extension://{EXT_ID}/"]
    again = steps.setup(say=lambda _l: None, env=env, model_dir=model_dir)  # idempotent
    assert again.registered == report.registered
    assert all("already installed" in "\n".join(again.lines) for _ in again.models)
    gone = steps.teardown(say=lines.append, env=env)
    assert str(manifest) in gone.removed and not manifest.exists()
    assert not (tmp_path / "app" / "rewind-host").exists()
    nothing = steps.teardown(say=lines.append, env=env)
    assert nothing.removed == [] and "nothing to remove" in nothing.lines[0]


@pytest.mark.slow
def test_rewind_setup_registers_a_working_helper(tmp_path, model_dir):
    home, manifest = browser_home(tmp_path)
    env = home_env(home, REWIND_DATA_DIR=str(tmp_path / "data"))
    setup = subprocess.run([sys.executable, "-m", "rewind", "setup"], capture_output=True,
                           text=True, timeout=600, env=env)
    assert setup.returncode == 0, setup.stderr
    assert f"registered for Google Chrome: {manifest}" in setup.stdout
    m = json.loads(manifest.read_text())
    launcher = Path(m["path"])
    assert launcher.is_relative_to(home) and os.access(launcher, os.X_OK)
    assert hello_through(str(launcher), {"HOME": str(home)})["ok"] is True
    checked = doctor(sys.executable, env)
    assert checked.returncode == 0, checked.stdout
    assert f"host for Google Chrome: registered at {manifest}" in checked.stdout
    removed = subprocess.run([sys.executable, "-m", "rewind", "setup", "--uninstall"],
                             capture_output=True, text=True, timeout=120, env=env)
    assert removed.returncode == 0 and f"removed {manifest}" in removed.stdout
    assert not manifest.exists() and not launcher.exists()
    broken = doctor(sys.executable, env)  # Chrome is still there, the helper is not
    assert broken.returncode == 1
    assert "host for Google Chrome: not registered" in broken.stdout
    assert f"fix: {config.setup_command()}" in broken.stdout


@pytest.mark.slow
def test_readme_build_py_install_then_uninstall(tmp_path, model_dir):
    """The README's words: fresh HOME -> `python3 build.py install` -> the manifest is where
    Chromium reads it and `rewind doctor` passes; `build.py uninstall` -> it is gone."""
    if not shutil.which("chromium"):
        missing("Chromium is not installed (build.py test installs it)")
    home = tmp_path / "home"
    home.mkdir()
    env = home_env(home, REWIND_DATA_DIR=str(tmp_path / "data"))
    install = subprocess.run(["python3", "build.py", "install"], cwd=ROOT, capture_output=True,
                             text=True, timeout=1800, env=env)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    manifest = home / ".config" / "chromium" / "NativeMessagingHosts" / MANIFEST_FILE
    assert f"registered for Chromium: {manifest}" in install.stdout
    assert json.loads(manifest.read_text())["allowed_origins"] == [f"chrome-extension://{EXT_ID}/"]
    venv_python = str(ROOT / ".venv" / "bin" / "python")
    checked = doctor(venv_python, env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "host for Chromium: registered" in checked.stdout
    uninstall = subprocess.run(["python3", "build.py", "uninstall"], cwd=ROOT,
                               capture_output=True, text=True, timeout=300, env=env)
    assert uninstall.returncode == 0, uninstall.stderr
    assert f"removed {manifest}" in uninstall.stdout and not manifest.exists()


@pytest.mark.slow
def test_wheel_installs_and_sets_up_without_the_checkout(tmp_path, model_dir):
    """`build.py dist`'s wheel in a new virtual environment, run from elsewhere: `rewind
    setup` registers a launcher of that environment, for the extension's ID, and it works."""
    dist = subprocess.run(["python3", "build.py", "dist"], cwd=ROOT, capture_output=True,
                          text=True, timeout=1800)
    assert dist.returncode == 0, dist.stdout[-3000:] + dist.stderr[-3000:]
    wheel = next((ROOT / "dist").glob("rewind-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "rewind/install/shipped/EXTENSION_ID" in names
    assert "rewind/install/shipped/com.rewind.host.json" in names
    assert any(n.startswith("rewind/models/models.json") for n in names)
    assert list((ROOT / "dist").glob("rewind-extension-*.zip"))

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    vpy = venv / "bin" / "python"
    # Its dependencies are this environment's (no second llama.cpp compile); the package
    # itself is the wheel's copy, which comes first on the path.
    site = Path(subprocess.run([vpy, "-c", "import sysconfig; print(sysconfig.get_paths()"
                                "['purelib'])"], capture_output=True, text=True,
                               check=True).stdout.strip())
    (site / "zz-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([vpy, "-m", "pip", "install", "--quiet", "--no-deps", wheel], check=True)

    home, manifest = browser_home(tmp_path)
    env = home_env(home, REWIND_DATA_DIR=str(tmp_path / "data"))
    env.pop("PYTHONPATH", None)
    rewind = venv / "bin" / "rewind"
    where = subprocess.run([vpy, "-c", "import rewind; print(rewind.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, check=True)
    assert where.stdout.startswith(str(venv)), where.stdout  # not the checkout's package
    setup = subprocess.run([rewind, "setup"], capture_output=True, text=True, timeout=600,
                           cwd=tmp_path, env=env)
    assert setup.returncode == 0, setup.stderr
    launcher = json.loads(manifest.read_text())["path"]
    assert str(vpy) in Path(launcher).read_text()
    assert hello_through(launcher, {"HOME": str(home)})["ok"] is True
    checked = subprocess.run([rewind, "doctor"], capture_output=True, text=True, timeout=300,
                             cwd=tmp_path, env=env)
    assert checked.returncode == 0, checked.stdout
    missing_helper = subprocess.run([rewind, "setup", "--uninstall"], capture_output=True,
                                    text=True, cwd=tmp_path, env=env)
    assert missing_helper.returncode == 0 and not manifest.exists()
    broken = subprocess.run([rewind, "doctor"], capture_output=True, text=True, timeout=300,
                            cwd=tmp_path, env=env)
    assert "fix: rewind setup" in broken.stdout  # no checkout here: the wheel's command
