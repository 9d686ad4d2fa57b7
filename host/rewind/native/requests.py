"""The request table: one schema per request type, parsing a frame into a checked Request.

Every limit comes from Settings (PROTOCOL.md's tables are generated from the same
place, tests/native/test_requests.py checks they agree), and the settings a person may
change are derived from Settings' knobs.
This module must never act on a request (handlers.py does) or do I/O.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .. import config
from ..config import DEFAULT_PROFILE, Settings, valid_profile
from ..errors import Code, RewindError
from .framing import ID_HINT_BYTES, MAX_SAFE_INT, Id, id_hint, valid_id
from .schema import (
    MISSING,
    BadField,
    Bool,
    Custom,
    F,
    IdSpec,
    Int,
    List,
    Num,
    Obj,
    Str,
    _type_name,
    check_fields,
)

PROTOCOL_VERSION = 1
# The person's own recording rules, as set_rules carries them (capture/policy.py's Rules).
RULE_KEYS = ("disabled_categories", "always_record", "paused_sites", "blocklist")

MODES = ("hybrid", "semantic", "keyword")
REINDEX_ACTIONS = ("status", "start", "pause", "resume", "cancel")
_EPOCH = Num(0, 1e11)  # seconds since 1970; up to the year 5138
_DWELL = Num(0, 1e7)  # seconds (~115 days)


def _one_forget_form(a: dict[str, Any]) -> str | None:
    forms = [
        a["url"] is not None,
        a["domain"] is not None,
        a["since"] is not None or a["until"] is not None,
    ]
    if sum(forms) != 1:
        return "give exactly one of: url, domain, or since/until"
    if a["since"] is not None and a["until"] is not None and a["since"] > a["until"]:
        return "since is after until"
    return None


def _range_ok(a: dict[str, Any]) -> str | None:
    if a.get("since") is not None and a.get("until") is not None and a["since"] > a["until"]:
        return "since is after until"
    return None


@lru_cache(maxsize=1)
def settings_schema() -> Obj:
    """The settings a person may change through set_settings: the user knobs of Settings.
    Absent: unchanged; null: back to the default."""
    return Obj({name: F(Custom(functools.partial(config.check_user_value, name)),
                        default=MISSING, nullable=True)
                for name in config.user_schema()})


@lru_cache(maxsize=8)
def schemas(s: Settings) -> dict[str, Obj]:
    """Request schemas, built from the limits in `s` (one table, read by PROTOCOL.md)."""
    query = Str(s.max_query_chars, min_chars=1)
    passage = Obj(
        {
            "text": F(Str(s.max_request_passage_chars), required=True),
            "position": F(Int(-1, 1_000_000), default=None),
            "quality": F(Num(0.0, 1.0), default=0.5),
        }
    )
    signals = Obj(  # what the page says of itself (capture/page_signals.py)
        {
            "lang": F(Str(16), default=""),
            "app": F(List(Str(100), 6), default=[]),
            "manifest": F(Bool(), default=False),
            "controls": F(List(Str(100), 200), default=[]),
            "editors": F(Int(0, 1000), default=0),
        }
    )
    page = Obj(
        {
            "url": F(Str(s.max_url_chars, min_chars=1), required=True),
            "title": F(Str(s.max_title_chars), default=""),
            "passages": F(List(passage, s.max_passages_per_page), nullable=True),
            "text": F(Str(s.max_page_text_chars), nullable=True),
            "content_hash": F(Str(128), nullable=True),
            "visited_at": F(_EPOCH, nullable=True),
            "dwell_s": F(_DWELL, default=0.0),
            "read": F(Bool(), default=True),
            "signals": F(signals, nullable=True),
        },
        check=lambda p: (
            None
            if (p["passages"] is not None or p["text"] is not None)
            else "a page needs passages or text"
        ),
    )
    visit = Obj(
        {
            "url": F(Str(s.max_url_chars, min_chars=1), required=True),
            "title": F(Str(s.max_title_chars), default=""),
            "first_visit": F(_EPOCH, required=True),
            "last_visit": F(_EPOCH, required=True),
            "visit_count": F(Int(1, 10_000_000), default=1),
        }
    )
    domain = Str(253, min_chars=1)
    return {
        "hello": Obj(
            {
                "protocol": F(Int(1, 1000), default=PROTOCOL_VERSION),
                "profile": F(Str(64, min_chars=1), default=DEFAULT_PROFILE),
                "client": F(Str(200), nullable=True),  # e.g. "rewind-extension/0.1.0", logged
            },
            check=lambda a: (
                None
                if valid_profile(a["profile"])
                else "profile must be 1-64 characters of A-Z, a-z, 0-9, _ and -"
            ),
        ),
        "index_page": Obj({"page": F(page, required=True)}),
        "import_history": Obj({"visits": F(List(visit, s.max_history_visits), required=True)}),
        "record_visit": Obj(
            {
                "url": F(Str(s.max_url_chars, min_chars=1), required=True),
                "visited_at": F(_EPOCH, nullable=True),
                "dwell_s": F(_DWELL, default=0.0),
            }
        ),
        "search": Obj(
            {
                "query": F(query, required=True),
                "mode": F(Str(16, choices=MODES), default=None),
                "limit": F(Int(1, s.max_limit), default=None),
                "since": F(_EPOCH, nullable=True),
                "until": F(_EPOCH, nullable=True),
                "domain": F(domain, nullable=True),
            },
            check=_range_ok,
        ),
        "ask": Obj(
            {
                "question": F(query, required=True),
                "page_text": F(Str(s.max_context_chars), nullable=True),
                "page_url": F(Str(s.max_url_chars), nullable=True),
                "page_title": F(Str(s.max_title_chars), nullable=True),
                "thread_id": F(Str(32, min_chars=1), nullable=True),
            }
        ),
        "cancel": Obj({"target_id": F(IdSpec(), required=True)}),
        "build_context": Obj(
            {
                "query": F(query, required=True),
                "raw_context": F(Str(s.max_context_chars), nullable=True),
                "token_budget": F(Int(1, s.max_token_budget), required=True),
            }
        ),
        "stats": Obj({}),
        "list_profiles": Obj({}),
        "page_info": Obj({"url": F(Str(s.max_url_chars, min_chars=1), required=True)}),
        "list_pages": Obj(
            {
                "offset": F(Int(0, MAX_SAFE_INT), default=0),
                "limit": F(Int(1, s.max_list_limit), default=50),
            }
        ),
        "export": Obj({}),
        "backup": Obj({"passphrase": F(Str(1000), nullable=True)}),
        "import_chunk": Obj(
            {
                "upload": F(Str(64, min_chars=1), required=True),
                "offset": F(Int(0, MAX_SAFE_INT), required=True),
                "data": F(Str(s.max_import_chunk_bytes), required=True),
            }
        ),
        "import_backup": Obj(
            {
                "upload": F(Str(64, min_chars=1), required=True),
                "passphrase": F(Str(1000), nullable=True),
            }
        ),
        "forget": Obj(
            {
                "url": F(Str(s.max_url_chars, min_chars=1), nullable=True),
                "domain": F(domain, nullable=True),
                "since": F(_EPOCH, nullable=True),
                "until": F(_EPOCH, nullable=True),
            },
            check=_one_forget_form,
        ),
        "clear": Obj({"confirm": F(Bool(must_be=True), required=True)}),
        "list_held": Obj({}),
        "decide_held": Obj({"held_id": F(Str(64, min_chars=1), required=True),
                            "keep": F(Bool(), required=True)}),
        "get_settings": Obj({}),
        "set_rules": Obj(
            {
                "rules": F(Obj({key: F(List(Str(300), 500), default=[])
                                for key in RULE_KEYS}), required=True),
                "redact": F(Bool(), nullable=True),
            }
        ),
        "set_settings": Obj({"settings": F(settings_schema(), required=True)}),
        "answer_models": Obj({}),
        "pull_model": Obj(
            {
                "model": F(Str(100, min_chars=1), required=True),
                "use": F(Bool(), default=True),
            }
        ),
        "reindex": Obj(
            {
                "action": F(Str(16, choices=REINDEX_ACTIONS), default="status"),
                "model": F(Str(100, min_chars=1), nullable=True),
                "dim": F(Int(1, 65_536), nullable=True),
                "follow": F(Bool(), default=False),
            },
            check=lambda a: (
                "start needs a model" if a["action"] == "start" and a["model"] is None
                else "model and dim go with start only"
                if a["action"] != "start" and (a["model"] is not None or a["dim"] is not None)
                else None
            ),
        ),
        # AI tools' access (native/mcp_requests.py; the MCP server is `rewind mcp`)
        "mcp_access": Obj({}),
        "mcp_set_access": Obj(
            {
                "client": F(Str(60, min_chars=1), required=True),
                "label": F(Str(60, min_chars=1), nullable=True),
                "enabled": F(Bool(), nullable=True),
                "sites": F(List(domain, 200), nullable=True),
                "not_sites": F(List(domain, 200), nullable=True),
                "window_days": F(Int(0, 36_500), nullable=True),
                "llm": F(Bool(), nullable=True),
                "remove": F(Bool(), default=False),
            }
        ),
        "mcp_log": Obj(
            {
                "client": F(Str(60, min_chars=1), nullable=True),
                "limit": F(Int(1, s.max_list_limit), default=100),
            }
        ),
    }


@dataclass
class Request:
    id: Id
    type: str
    args: dict[str, Any] = field(default_factory=dict)


class ProtocolError(RewindError):
    """A request that cannot be served; `req_id` is as much of its id as could be read."""

    def __init__(self, code: Code, message: str, hint: str = "", req_id: Id = None) -> None:
        super().__init__(code, message, hint)
        self.req_id = req_id


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode(payload: bytes) -> Any:
    """JSON from a frame's payload; ProtocolError(BAD_JSON) if it is not UTF-8 JSON."""
    try:
        text = payload.decode("utf-8")
        return json.loads(text, parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = "it is empty" if not payload else f"{type(exc).__name__}: {exc}"[:300]
        hint = id_hint(payload[:ID_HINT_BYTES])
        raise ProtocolError(
            Code.BAD_JSON,
            f"The frame is not UTF-8 JSON ({reason}).",
            "Send one JSON object per frame.",
            hint,
        ) from None
    except Exception as exc:  # hostile input must never crash the reader
        raise ProtocolError(
            Code.BAD_JSON,
            f"The frame is not JSON ({type(exc).__name__}).",
            "Send one JSON object per frame.",
        ) from None


def parse_request(payload: bytes, settings: Settings) -> Request:
    """A checked Request from a frame, or ProtocolError naming the first problem."""
    obj = decode(payload)
    if not isinstance(obj, dict):
        raise ProtocolError(
            Code.BAD_JSON,
            f"A request is a JSON object, not {_type_name(obj)}.",
            'Send {"id": ..., "type": ..., ...}.',
        )
    raw_id = obj.get("id")
    if "id" not in obj or not valid_id(raw_id):
        raise ProtocolError(
            Code.BAD_REQUEST,
            "id: missing or not a request id (an integer 0..2^53-1 or a "
            "string of 1-64 printable ASCII characters).",
            "Give every request a unique id; its replies carry it.",
        )
    req_type = obj.get("type")
    if not isinstance(req_type, str):
        raise ProtocolError(
            Code.BAD_REQUEST,
            "type: missing or not a string.",
            "See PROTOCOL.md for the request types.",
            raw_id,
        )
    table = schemas(settings)
    spec = table.get(req_type)
    if spec is None:
        shown = req_type if len(req_type) <= 40 else req_type[:40] + "…"
        raise ProtocolError(
            Code.UNKNOWN_TYPE,
            f"Unknown request type {shown!r}.",
            f"Known types: {', '.join(table)}.",
            raw_id,
        )
    try:
        args = check_fields(spec, obj, ignore=("id", "type"))
    except BadField as exc:
        raise ProtocolError(
            Code.BAD_REQUEST,
            f"{req_type}: {exc}.",
            "See PROTOCOL.md for the fields of each request.",
            raw_id,
        ) from None
    return Request(raw_id, req_type, args)


