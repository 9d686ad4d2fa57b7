"""`rewind doctor`: each part of an installation checked, named, with the fix for it.

A `Check` is one line of the report. `profile_checks` looks at one profile's store,
its derived indexes and the models they need; the native host's registration is checked
by install/register.py's `doctor_checks`; `helper_memory_check` says how much memory the
running helpers hold (a figure, never a failure). The CLI prints them all.
This module must never repair anything: it says what is wrong and which command fixes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import config
from .errors import RewindError
from .index.derived import integrity
from .models import installed, specs

if TYPE_CHECKING:
    from .profile.engine import Rewind


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""

    def to_dict(self) -> dict:
        return self.__dict__.copy()


def language_model_check(engine: Rewind) -> Check:
    """The model answers would use. None installed is not a failure (answers are then
    extracts of the pages); a named one missing, or a damaged one, is."""
    from .answers import llm  # llama-cpp-python itself is not imported for this

    try:
        spec = llm.choose_spec(engine.settings, engine.model_dir)
    except RewindError as exc:
        return Check("language model", False, exc.message, exc.hint)
    if spec is None:
        return Check("language model", True, "none installed: answers are extracts of "
                     f"your pages ({llm.INSTALL_HINT})")
    st = installed.status(spec, engine.model_dir, verify=True)
    return Check(f"model {spec.name}", st.installed, st.summary, st.hint)


def profile_checks(engine: Rewind) -> list[Check]:
    """The store's integrity, the models, and the derived indexes against the store."""
    checks: list[Check] = []
    problems = engine.integrity()
    checks.append(Check("store", not problems,
                        "SQLite integrity ok" if not problems else "; ".join(problems),
                        "" if not problems else "`rewind doctor --repair` copies what can be "
                        "read into a new store; or restore a backup (`rewind import`)."))
    if problems:  # what derives from a damaged store cannot be judged against it
        return checks
    model_id = engine.model_id()
    name = model_id.partition("@")[0]
    try:
        st = installed.status(specs.embedding_spec(name), engine.model_dir, verify=True)
        checks.append(Check(f"model {name}", st.installed, st.summary, st.hint))
    except RewindError as exc:
        checks.append(Check(f"model {name}", False, exc.message, exc.hint))
    checks.append(language_model_check(engine))

    enc = engine.at_rest
    want = engine.settings.encrypt_at_rest
    checks.append(Check(
        "encryption", enc.encrypted or not want,
        f"titles, passages and vectors sealed; key in {enc.key_place}" if enc.encrypted
        else "not encrypted" + (" (encrypt_at_rest is off)" if not want else ""),
        "" if enc.encrypted or not want else
        "The next Rewind that opens it for writing (the browser's host, `rewind index`) "
        "encrypts it."))
    for repaired in engine.writer.repaired:  # found damaged when this command opened the store
        checks.append(Check("repaired", True, f"rebuilt from the store just now: {repaired}"))
    text = engine.text_index_state()
    same = text.stored == text.indexed and not text.damage
    lag = f" (text index at change {text.applied} of {text.seq})" if text.applied < text.seq else ""
    checks.append(Check(
        "text index", same and text.applied >= text.seq,
        f"damaged: {integrity.summary(text.damage)}" if text.damage else
        f"{len(text.indexed)} passages indexed, {len(text.stored)} stored{lag}",
        "" if same else "Run `rewind reindex` (it rebuilds from the store)."))
    if engine.writer.behind:
        checks.append(Check("disk", False, engine.writer.behind,
                            "Free some space: the text index catches up by itself then."))
    vec = engine.vector_state()
    if vec is None:
        checks.append(Check("vectors", False, f"embedder unavailable: "
                            f"{engine.embedder_problem}", f"Run `{config.setup_command()}`."))
    else:
        ok = vec.vector_ids <= text.stored and vec.missing == 0
        checks.append(Check(
            "vectors", ok, f"{len(vec.vector_ids)} vectors of {model_id}, {vec.missing} "
            "passages without one", "" if ok else "Run `rewind reindex` to embed them."))
    return checks


def helper_memory_check() -> Check:
    """The resident memory of the running helpers (the browser's hosts), or of this command
    when none runs: a figure to read, never a failure."""
    from . import memory

    def mb(x: float | None) -> str:
        return "unknown" if x is None else f"{x:,.0f} MB"

    found = memory.running_helpers()
    if found:
        each = "; ".join(f"pid {h.pid}: {mb(h.resident_mb)} resident" for h in found)
        return Check("helper memory", True, f"{each} (unused models are let go after "
                     "answer_model_idle_s and embedder_idle_s seconds)")
    return Check("helper memory", True, "no helper running (the browser starts it when it "
                 f"connects); this command: {mb(memory.resident_mb())} resident")
