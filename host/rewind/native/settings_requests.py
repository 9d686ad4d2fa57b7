"""The person's settings and recording rules (their table `REQUESTS` joins handlers.py's):
`get_settings` (the profile's values, the defaults and the schema the options page draws),
`set_settings` (a change to the user knobs of Settings, kept for the profile) and
`set_rules` (the sites and categories the person chose, and masking).

The settings a person may change are derived from Settings' knobs (config.user_schema), so
a new user knob is a field of set_settings with nothing to add here.
This module must never change a setting nobody asked for, nor open a path a request names.
"""

from __future__ import annotations

import functools
from functools import lru_cache

from .. import config
from ..errors import Code, RewindError
from ..profile import settings as profile_settings
from . import fields
from .context import Ctx, Reply, Requests
from .schema import MISSING, Bool, Custom, F, List, Obj, Str

REQUESTS = Requests()
# The person's own recording rules, as set_rules carries them (capture/policy.py's Rules).
RULE_KEYS = ("disabled_categories", "always_record", "paused_sites", "blocklist")


@lru_cache(maxsize=1)
def settings_schema() -> Obj:
    """The settings a person may change through set_settings: the user knobs of Settings.
    Absent: unchanged; null: back to the default."""
    return Obj({name: F(Custom(functools.partial(config.check_user_value, name)),
                        default=MISSING, nullable=True)
                for name in config.user_schema()})


@REQUESTS.handler("read", fields.NO_FIELDS)
def get_settings(ctx: Ctx) -> Reply:
    return {
        "settings": config.user_values(ctx.engine.settings),
        "defaults": config.user_values(ctx.session.settings),
        "schema": config.user_schema(),
    }


@REQUESTS.handler("write", lambda _s: Obj({"settings": F(settings_schema(), required=True)}))
def set_settings(ctx: Ctx) -> Reply:
    s = ctx.session
    given = {k: v for k, v in ctx.args["settings"].items() if v is not MISSING}
    with s.lock:
        s.engine.settings = profile_settings.update(s.settings, s.data_dir, given)
    if any(k.startswith("retention_") for k in given):
        s.engine.apply_retention()  # a new limit applies now, not at the 50th write
    return get_settings(ctx)


@REQUESTS.handler("write", Obj({
    "rules": F(Obj({key: F(List(Str(300), 500), default=[]) for key in RULE_KEYS}),
               required=True),
    "redact": F(Bool(), nullable=True),
}))
def set_rules(ctx: Ctx) -> Reply:
    """The person's own recording rules, from the extension: kept for the profile so that
    every way in (the CLI too) obeys them; `redact` is their choice of masking."""
    try:
        ctx.engine.set_rules(ctx.args["rules"], ctx.args["redact"])
    except ValueError as exc:
        raise RewindError(Code.BAD_REQUEST, str(exc),
                          "See PROTOCOL.md, set_rules, for the fields.") from None
    return {"rules": ctx.args["rules"], "redact": ctx.engine.gate().redact}
