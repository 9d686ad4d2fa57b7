"""`warm`: the side panel opened, so the models a search and a question need are loaded
now, before the person types, rather than by the first of each (the helper lets them go
when unused: resting.py). Its table `REQUESTS` joins handlers.py's.

The extension sends it when the side panel opens, never when its worker wakes.
This module must never answer or search: it only loads.
"""

from __future__ import annotations

import time

from . import fields
from .ask_requests import answerer
from .context import Ctx, Reply, Requests

REQUESTS = Requests()


@REQUESTS.handler("slow", fields.NO_FIELDS)
def warm(ctx: Ctx) -> Reply:
    """Load the embedding and answering models (their idle time starts again); on the slow
    lane, so a question sent meanwhile waits for the model rather than loading it twice."""
    t0 = time.perf_counter()
    emb = ctx.engine.embedder()
    ctx.check_cancelled()
    ans = answerer(ctx)
    with ans.in_use():
        model = ans.llm()
    return {"embedder": emb is not None, "answer_model": model.name if model else None,
            "took_ms": round((time.perf_counter() - t0) * 1000, 1)}
