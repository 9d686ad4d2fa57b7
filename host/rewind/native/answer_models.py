"""The answering model from the options page: which one answers now, which one suits this
computer (`answer_models`), and downloading one with progress frames (`pull_model`).

`answer_models` reads (the read lane): the model answers use now, the recommended one
with what it gains and costs (models/recommend.py), and the language models installed.
`pull_model` downloads a model from where it is published (or the host's
$REWIND_MODEL_MIRROR) on a lane of its own, so that a download of minutes never holds up
a question; it sends a progress frame at most every PROGRESS_EVERY_S, stops at the next
chunk when cancelled (the part file stays: asking again resumes), and, for a language
model with `use`, makes it the profile's answering model (the setting `llm_model`; the
next question loads it).
This module must never download a model nobody asked for, nor open a path a request names.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..errors import RewindError
from ..profile import settings as profile_settings
from . import fields
from .context import Ctx, Requests
from .framing import encode
from .replies import part_reply
from .schema import Bool, F, Obj, Str

if TYPE_CHECKING:
    from ..profile.engine import Rewind

PROGRESS_EVERY_S = 0.25
REQUESTS = Requests()


def _model_row(e: Any) -> dict[str, Any]:
    """One model as the options page shows it (an Estimate of models/recommend.py)."""
    spec = e.spec
    lic = spec.licence
    return {
        "name": spec.name, "label": spec.label or spec.name, "description": spec.description,
        "parameters_b": spec.parameters_b, "file_bytes": spec.file_bytes,
        "memory_bytes": e.memory_bytes,
        "first_words_s": None if e.first_words_s is None else round(e.first_words_s, 1),
        "speed": e.speed, "installed": e.installed,
        "licence": {"name": lic.name, "use": lic.use} if lic else None,
    }


def status(engine: Rewind) -> dict[str, Any]:
    """What `answer_models` replies: the model answers use now and the recommended one."""
    from ..answers import llm
    from ..models import recommend, sources

    s = engine.settings
    problem = None
    try:
        spec = llm.choose_spec(s, engine.model_dir)
    except RewindError as exc:
        spec, problem = None, str(exc)
    r = recommend.recommend(recommend.this_machine(), s, engine.model_dir)
    return {
        "answer_model": spec.name if spec else None,
        "answer_label": (spec.label or spec.name) if spec else None,
        "problem": problem,
        "setting": s.llm_model,
        "recommended": _model_row(r.choice),
        "reason": r.reason, "gains": r.gains, "costs": r.costs, "notes": r.notes,
        "max_wait_s": r.max_wait_s,
        "installed": [_model_row(e) for e in r.options if e.installed],
        "source": sources.source_note(sources.mirror_setting(None)) or "published",
    }


@REQUESTS.handler("read", fields.NO_FIELDS)
def answer_models(ctx: Ctx) -> dict[str, Any]:
    return status(ctx.engine)


@REQUESTS.handler("download", Obj({"model": F(Str(100, min_chars=1), required=True),
                                    "use": F(Bool(), default=True)}))
def pull_model(ctx: Ctx) -> dict[str, Any]:
    from ..models import download, sources, specs

    spec = specs.load_specs().get(ctx.args["model"])
    total = spec.file_bytes if isinstance(spec, specs.LlmSpec) else None
    finished: dict[str, int] = {}  # bytes of each file done so far
    last = [0.0]

    def progress(name: str, done: int, size: int | None) -> None:
        ctx.check_cancelled()  # raises: the download stops, its part file stays
        finished[name] = done
        now = time.monotonic()
        if now - last[0] < PROGRESS_EVERY_S and not (size and done >= size):
            return
        last[0] = now
        frame = part_reply(ctx.req.id, progress={
            "model": spec.name, "file": name, "done": done, "total": size,
            "all_done": sum(finished.values()), "all_total": total})
        ctx.send_frames([encode(frame, ctx.max_frame)])

    mirror = sources.mirror_setting(None)  # the host's $REWIND_MODEL_MIRROR, if any
    pulled = download.pull(spec, ctx.engine.model_dir, mirror, progress=progress)
    ctx.check_cancelled()
    if ctx.args["use"] and isinstance(spec, specs.LlmSpec):
        s = ctx.session
        with s.lock:
            s.engine.settings = profile_settings.update(s.settings, s.data_dir,
                                                        {"llm_model": spec.name})
    return {
        "model": spec.name,
        "files": [{"file": p.name, "bytes": p.bytes, "sha256": p.sha256 or None,
                   "checked_against": p.against or None, "already_installed": p.skipped}
                  for p in pulled],
        **status(ctx.engine),
    }
