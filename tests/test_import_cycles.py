"""The host's import graph has no cycles: every import counts (module level, inside a
function, under TYPE_CHECKING), read with ast, so a cycle hidden behind a lazy import
fails here although Python would run it.

No cycle is left (the last two went with the rooms of issue 20); ALLOWED stays as the
place to name one with its reason, and it only shrinks: a new cycle fails. Beside cycles,
the rooms' layers: a package imports nothing of the ones above it (LAYERS), nothing below
the profile imports it, it imports nothing above it, and the embedding job sits on the
engine.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

HOST = Path(__file__).resolve().parents[1] / "host"
PACKAGE = "rewind"

# Cycles that remain, each as its set of modules, with why it is not fixed yet.
ALLOWED: dict[frozenset[str], str] = {
}


# Package -> the packages of the host it must never import (anything, however lazily).
# index/: crypto below the store, the store below the derived indexes, and all of index/
# below the models (which pieces passages and so reads the store's records) and the stages.
STAGES = ("rewind.search", "rewind.answers", "rewind.capture", "rewind.native", "rewind.cli",
          "rewind.mcp", "rewind.control", "rewind.install", "rewind.profile")
LAYERS: dict[str, tuple[str, ...]] = {
    "rewind.index.crypto": ("rewind.index.store", "rewind.index.derived", "rewind.models",
                            *STAGES),
    "rewind.index.store": ("rewind.index.derived", "rewind.models", *STAGES),
    "rewind.index.derived": ("rewind.models", *STAGES),
    "rewind.models": STAGES,
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(HOST).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in (HOST / PACKAGE).rglob("*.py")}


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """Every module of the package `name` imports, wherever the import statement is."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _resolve(alias.name, known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:  # `from . import models`: the submodule itself
                sub = f"{target}.{alias.name}"
                if sub in known:
                    yield sub
                    break
            else:
                yield from _resolve(target, known)


def _resolve(target: str, known: dict[str, Path]) -> Iterator[str]:
    parts = target.split(".")
    while parts:  # the most specific module of the package that the name reaches
        if ".".join(parts) in known:
            yield ".".join(parts)
            return
        parts.pop()


def graph() -> dict[str, set[str]]:
    known = modules()
    return {n: {m for m in imports(n, p, known) if m != n} for n, p in known.items()}


def cycles(g: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected sets of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    counter = 0
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(g.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = set()
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        members.add(m)
                        if m == node:
                            break
                    if len(members) > 1:
                        found.append(frozenset(members))
    return found


def test_the_graph_is_read():
    g = graph()
    assert "rewind.native.handlers" in g["rewind.native.host"]
    assert "rewind.native.context" in g["rewind.native.reindex"]
    # A function-level import counts: handlers.hello imports the engine lazily.
    assert "rewind.profile.engine" in g["rewind.native.handlers"]


def test_no_import_cycles_but_the_listed_ones():
    found = set(cycles(graph()))
    new = [sorted(c) for c in found - ALLOWED.keys()]
    assert not new, f"import cycles: {new}"
    gone = [sorted(c) for c in ALLOWED.keys() - found]
    assert not gone, f"these cycles are gone: take them off ALLOWED: {gone}"


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_each_room_imports_nothing_above_it():
    g = graph()
    wrong = sorted(
        f"{m} imports {dep}"
        for room, above in LAYERS.items()
        for m, deps in g.items() if _within(m, room)
        for dep in deps if any(_within(dep, a) for a in above)
    )
    assert not wrong, "a room imports one above it:\n" + "\n".join(wrong)
    assert any(_within(m, "rewind.index.store") for m in g), "the rooms have moved: update LAYERS"


# The rooms below the profile (and the foundation floor under everything) never import it;
# the profile never imports a door, answers or the doctor above it.
FOUNDATION = ("config", "errors", "text", "humanize", "logistic", "faults", "clock",
              "search_modes")
BELOW_PROFILE = ("index", "models", "capture", "search", *FOUNDATION)
ABOVE_PROFILE = ("native", "cli", "mcp", "answers", "control", "install", "checks")


def _in(module: str, rooms: tuple[str, ...]) -> bool:
    return any(module == f"{PACKAGE}.{r}" or module.startswith(f"{PACKAGE}.{r}.")
               for r in rooms)


def test_the_profile_room_keeps_its_layer():
    g = graph()
    profile = {n for n in g if _in(n, ("profile",))}
    assert "rewind.profile.engine" in profile
    up = sorted((n, m) for n in profile for m in g[n] if _in(m, ABOVE_PROFILE))
    assert not up, f"the profile imports a room above it: {up}"
    down = sorted((n, m) for n in g if _in(n, BELOW_PROFILE) for m in g[n] if m in profile)
    assert not down, f"a room below the profile imports it: {down}"
    floor = sorted((n, m) for n in g if _in(n, FOUNDATION) for m in g[n]
                   if not _in(m, FOUNDATION))
    assert not floor, f"the foundation imports a room: {floor}"


def test_the_embedding_job_sits_above_the_engine():
    """The engine never starts the job (reembedding.py takes an engine): whoever holds
    both, the host's session or the CLI, starts it."""
    g = graph()
    job = "rewind.profile.reembedding"
    assert not [n for n in g if job in g[n] and _in(n, ("profile",))]
    assert "rewind.profile.engine" not in g[job]  # it takes a JobEngine, not the class


def test_the_cycle_finder_finds_a_cycle():
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(g) == [frozenset("abc")]
    assert cycles({"a": {"b"}, "b": set()}) == []
