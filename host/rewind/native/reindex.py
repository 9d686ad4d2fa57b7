"""The `reindex` request: start, pause, resume or cancel the embedding job, or ask how it
goes; with `follow`, progress frames until the job ends, pauses or fails.

The job itself runs on its own thread (profile/reembedding.py), never on a lane: this request
only changes its record and reads its progress, so it runs on the read lane. A person
switches models here (the options page) and the popup shows the progress.
This module must never embed anything itself, nor open a path a request names.
"""

from __future__ import annotations

import time
from typing import Any

from .. import config
from ..errors import Code, RewindError
from .context import Ctx, Reply, Requests
from .framing import encode
from .replies import part_reply
from .schema import Bool, F, Int, Obj, Str

PROGRESS_EVERY_S = 0.5
FOLLOW_MAX_S = 6 * 3600.0  # a follower is cancelled by its port long before this
ACTIONS = ("status", "start", "pause", "resume", "cancel")
REQUESTS = Requests()


def embedding_models() -> list[dict[str, Any]]:
    """Installed embedding models and the dimensions each can give."""
    from ..models import installed

    try:
        rows = installed.describe(config.model_dir())
    except RewindError:
        return []
    return [{"name": r["name"], "dims": r["dims"], "description": r["description"]}
            for r in rows if r["kind"] == "embedding" and r["installed"]]


def _one_job(a: dict[str, Any]) -> str | None:
    if a["action"] == "start" and a["model"] is None:
        return "start needs a model"
    if a["action"] != "start" and (a["model"] is not None or a["dim"] is not None):
        return "model and dim go with start only"
    return None


@REQUESTS.handler("read", Obj(
    {
        "action": F(Str(16, choices=ACTIONS), default="status"),
        "model": F(Str(100, min_chars=1), nullable=True),
        "dim": F(Int(1, 65_536), nullable=True),
        "follow": F(Bool(), default=False),
    },
    check=_one_job,
))
def reindex(ctx: Ctx) -> Reply:
    from ..profile.reembedding import model_id_for

    a = ctx.args
    job = ctx.session.reembed
    if job is None:
        raise RewindError(Code.BAD_REQUEST, "Send hello first: it says which profile to use.")
    action = a["action"]
    if action == "start":
        model_id = model_id_for(a["model"], a["dim"])
        if not any(m["name"] == a["model"] for m in embedding_models()):
            raise RewindError(Code.MODEL_MISSING, f"{a['model']} is not installed.",
                              f"Install it first: `rewind models pull {a['model']}`.")
        status = job.start(model_id)
    elif action == "pause":
        status = job.pause()
    elif action == "resume":
        status = job.resume()
    elif action == "cancel":
        status = job.cancel()
    else:
        status = job.status()
    if a["follow"]:
        status = _follow(ctx, status)
    return {"reembed": status, "embedding_model": ctx.engine.model_id(),
            "models": embedding_models()}


def _follow(ctx: Ctx, status: dict | None) -> dict | None:
    """Progress frames every PROGRESS_EVERY_S while the job runs; its last status."""
    job = ctx.session.reembed
    end = time.monotonic() + FOLLOW_MAX_S
    while status is not None and status["state"] in ("running", "filling") \
            and time.monotonic() < end:
        ctx.check_cancelled()
        ctx.send_frames([encode(part_reply(ctx.req.id, progress=status), ctx.max_frame)])
        time.sleep(PROGRESS_EVERY_S)
        status = job.status()
    return status
