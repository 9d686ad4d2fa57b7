"""bench/ is a package of tools: every module imports as `bench.<group>.<name>` without
editing `sys.path`, nothing sits loose at its top, `build.py bench --list` finds every
runnable benchmark, and `build.py fit` names every shipped file a fitter writes."""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
GROUPS = ("common", "perf", "quality", "labs")
# Run only in the peers' own environment (bench/perf/requirements-peers.txt: matplotlib).
PEERS_ENV_ONLY = {"bench.common.plot"}


def _build():
    spec = importlib.util.spec_from_file_location("build_py", ROOT / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _modules() -> list[Path]:
    return sorted(p for g in GROUPS for p in (BENCH / g).glob("*.py") if p.name != "__init__.py")


def test_nothing_loose_at_the_top_of_bench():
    loose = [p.name for p in BENCH.glob("*.py") if p.name != "__init__.py"]
    assert not loose, f"put these in bench/{{{','.join(GROUPS)}}}/: {loose}"
    assert sorted(p.name for p in BENCH.iterdir() if p.is_dir() and p.name != "__pycache__"
                  ) == sorted([*GROUPS, "sets"])


def test_no_sys_path_edits_and_no_e402():
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        assert "noqa: E402" not in text, rel
        assert not re.findall(r"sys\.path\b", text), rel  # a bench tool: pyproject's `bench`


def test_every_bench_module_imports_as_a_package():
    code = ("import importlib, sys; [importlib.import_module(m) for m in sys.argv[1:]]; "
            "print('ok')")
    names = [".".join(p.relative_to(ROOT).with_suffix("").parts) for p in _modules()]
    names = [n for n in names if n not in PEERS_ENV_ONLY]
    # A fresh interpreter from the checkout's root, as `python -m bench.<group>.<name>` runs them.
    got = subprocess.run([sys.executable, "-c", code, *names], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert got.returncode == 0, got.stderr[-2000:]


def test_bench_list_names_every_runnable_benchmark():
    build = _build()
    listed = build.benchmarks()
    runnable = {f"{p.parent.name}.{p.stem}" for p in _modules()
                if p.parent.name != "common" and not p.name.startswith("_")
                and 'if __name__ == "__main__":' in p.read_text(encoding="utf-8")}
    assert set(listed) == runnable
    assert all(listed.values()), "a benchmark without a docstring to list"
    for default in build.DEFAULT_BENCH:
        assert default in listed
    assert build.bench_name("latency", listed) == "perf.latency"
    assert build.bench_name("bench/quality/answers.py", listed) == "quality.answers"


def test_build_py_lists_the_benchmarks_with_the_standard_library_alone():
    """build.py runs with the system Python before .venv exists, and imports
    bench/common/catalog.py: -S leaves out every site-packages, so only the standard
    library is there, as on a fresh machine."""
    got = subprocess.run([sys.executable, "-S", "-E", str(ROOT / "build.py"), "bench", "--list"],
                         cwd=ROOT.parent, capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr[-2000:]
    assert "quality.answers" in got.stdout and "sections of docs/benchmarks.md" in got.stdout


def test_fit_names_the_shipped_files_its_fitters_write():
    build = _build()
    for module, _extra, shipped in build.FITTERS:
        source = (BENCH / module.replace(".", "/")).with_suffix(".py").read_text("utf-8")
        rel = shipped.relative_to(ROOT / "host" / "rewind")
        assert shipped.exists(), shipped
        assert '"' + '" / "'.join(rel.parts) + '"' in source, (module, rel)
    assert build.fit_summary("a\nb\n", "a\nb\n") == "unchanged"
    assert build.fit_summary('{"x": 1}\n', '{"x": 2}\n').startswith(
        '1 lines added, 1 removed')


def test_bench_tools_are_a_pinned_optional_dependency_group_build_py_installs():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"][
        "optional-dependencies"]
    assert extras["bench"] and all("==" in pin for pin in extras["bench"]), extras["bench"]
    source = (ROOT / "build.py").read_text("utf-8")
    bench = source[source.index("def cmd_bench"):source.index("def cmd_fit")]
    installed = re.search(r'install_python\("([^"]+)"\)', bench)
    assert installed and "bench" in installed.group(1).split(",")
