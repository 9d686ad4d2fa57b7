"""Every path the project names exists: a moved file must fail here, not silently skip a
set-up step (build.py once checked for a register.py that had moved, and registered no
host while every other test passed).

Checked: file paths written in build.py, .ci/run, the README, PROTOCOL.md, docs/, the
extension's README and every source file (host, extension, tests, bench, demo); the
modules build.py and the docs run with `python -m`; and build.py's `ROOT / "..."` paths.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Written at run time or by a build, never in the checkout.
GENERATED = {".venv", "build", "dist", "node_modules", "vendor", "shipped"}
# A path names a file (an extension) or a folder (a trailing slash) under one of these.
_TOPS = ("host|extension|tests|bench|docs|manifests|demo|\\.ci|background|content|lib|panel"
         "|capture|index|search|answers|native|cli|control|install|profile|models")
PATH = re.compile(r"(?<![\w./:~-])((?:" + _TOPS + r")/[\w./-]*?(?:\.(?:py|js|mjs|md|json|html"
                  r"|css|toml|txt|sh)\b|/(?=[\s`)'\",;]|$)))")
MODULE = re.compile(r"""(?:-m\s+|"-m",\s*")((?:rewind|bench|demo)(?:\.\w+)+)""")
ROOT_PATH = re.compile(r"""ROOT((?:\s*/\s*"[^"{}]+")+)""")
# Where a relative path in a file may be rooted: the checkout, the host package (its
# docstrings name `capture/gate.py`), the extension (its `lib/dom.js`), the tests.
BASES = (ROOT, ROOT / "host" / "rewind", ROOT / "extension", ROOT / "tests")


def sources() -> list[Path]:
    docs = [ROOT / n for n in ("build.py", "README.md", "PROTOCOL.md", ".ci/run")]
    docs += [*ROOT.glob("docs/*.md"), ROOT / "extension" / "README.md"]
    code = [p for top in ("host", "bench", "demo", "tests") for p in (ROOT / top).rglob("*.py")]
    code += [p for ext in ("*.js", "*.mjs", "*.html") for p in (ROOT / "extension").rglob(ext)]
    here = Path(__file__).resolve()  # its own examples name missing paths on purpose
    return [p for p in [*docs, *code]
            if p != here and not GENERATED & set(p.relative_to(ROOT).parts)]


def exists(token: str) -> bool:
    if GENERATED & set(Path(token).parts):
        return True
    return any((base / token).exists() for base in BASES)


def test_every_named_path_exists():
    missing = [
        f"{src.relative_to(ROOT)}:{n}: {m.group(1)}"
        for src in sources()
        for n, line in enumerate(src.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        for m in PATH.finditer(line)
        if not exists(m.group(1))
    ]
    assert not missing, "paths named but not in the checkout:\n" + "\n".join(missing)


def test_every_module_run_with_dash_m_exists():
    missing = [
        f"{src.relative_to(ROOT)}: python -m {name}"
        for src in sources()
        for name in set(MODULE.findall(src.read_text(encoding="utf-8", errors="replace")))
        if importlib.util.find_spec(name) is None
    ]
    assert not missing, "\n".join(missing)


def test_build_py_paths_exist():
    text = (ROOT / "build.py").read_text(encoding="utf-8")
    named = [
        Path(*re.findall(r'"([^"]+)"', m.group(1)))
        for m in ROOT_PATH.finditer(text)
    ]
    assert named, "build.py names no ROOT / ... path: has the checker lost track of it?"
    missing = [str(p) for p in named if not exists(str(p))]
    assert not missing, f"build.py names paths that do not exist: {missing}"


def test_the_checker_catches_a_moved_file(tmp_path):
    """The regex finds the kind of reference that once broke set-up."""
    line = 'if not (ROOT / "host" / "rewind" / "register.py").exists(): see host/rewind/gone.py'
    assert [m.group(1) for m in PATH.finditer(line)] == ["host/rewind/gone.py"]
    assert Path(*re.findall(r'"([^"]+)"', ROOT_PATH.search(line).group(1))) == Path(
        "host/rewind/register.py")
    assert not exists("host/rewind/register.py")
    assert MODULE.findall('run([PY, "-m", "rewind.native.register", "install"])') == [
        "rewind.native.register"]
