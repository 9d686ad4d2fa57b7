"""Shared by the protocol tests: frame builders, a counting reader, a valid example of
every request type, and JSON strategies for the fuzzers."""

from __future__ import annotations

import io
import json
import struct

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from rewind.config import Settings
from rewind.native import requests
from rewind.native.handlers import schemas
from rewind.native.requests import ProtocolError

S = Settings()
MIB = 1_048_576


def hdr(n: int) -> bytes:
    return struct.pack("=I", n)


def frame_of(obj) -> bytes:
    data = json.dumps(obj).encode()
    return hdr(len(data)) + data


class CountingReader:
    """A stream that says how much of it was read (an oversized frame must not be)."""

    def __init__(self, data: bytes) -> None:
        self.buf = io.BytesIO(data)
        self.read_bytes = 0

    def read(self, n: int) -> bytes:
        got = self.buf.read(n)
        self.read_bytes += len(got)
        return got


def parse(obj) -> requests.Request:
    return requests.parse_request(json.dumps(obj).encode(), schemas(S))


def refused(obj) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        parse(obj)
    return info.value


VALID = {
    "hello": {"protocol": 1, "profile": "work-1"},
    "index_page": {
        "page": {
            "url": "https://example.org/a",
            "title": "A",
            "content_hash": "abc",
            "passages": [{"text": "some words here to index", "position": 0, "quality": 0.7}],
            "visited_at": 1.7e9,
            "dwell_s": 12.5,
            "signals": {"lang": "de", "app": ["Nextcloud"], "manifest": True,
                        "controls": ["Dateien", "Abmelden", "href:logout"], "editors": 0},
        }
    },
    "import_history": {"visits": [{"url": "https://example.org/a", "title": "A",
                                   "first_visit": 1.6e9, "last_visit": 1.7e9,
                                   "visit_count": 3}]},
    "record_visit": {"url": "https://example.org/a", "visited_at": 1.7e9, "dwell_s": 3},
    "search": {
        "query": "pruning graph",
        "mode": "keyword",
        "limit": 5,
        "since": 0,
        "until": 2e9,
        "domain": "example.org",
    },
    "ask": {"question": "what?", "page_text": "current tab"},
    "cancel": {"target_id": 4},
    "build_context": {"query": "q", "raw_context": "r", "token_budget": 800},
    "stats": {},
    "warm": {},
    "set_rules": {"rules": {"blocklist": ["intranet"], "always_record": ["a.example"]},
                  "redact": True},
    "list_profiles": {},
    "page_info": {"url": "https://example.org/a"},
    "list_pages": {"offset": 0, "limit": 20},
    "export": {},
    "backup": {"passphrase": "a passphrase"},
    "reindex": {"action": "start", "model": "all-minilm-l6-v2-int8", "dim": 256},
    "answer_models": {},
    "pull_model": {"model": "qwen2.5-1.5b-instruct-q4_k_m", "use": True},
    "import_chunk": {"upload": "up-1", "offset": 0, "data": "UkVXSU5EQks="},
    "import_backup": {"upload": "up-1"},
    "forget": {"domain": "example.org"},
    "clear": {"confirm": True},
    "list_held": {},
    "decide_held": {"held_id": "3f2a9c01d4e5b6a7", "keep": False},
    "get_settings": {},
    "set_settings": {"settings": {"rrf_alpha": 0.5, "default_limit": None}},
    "mcp_access": {},
    "mcp_set_access": {"client": "claude-desktop", "enabled": True, "sites": ["example.org"],
                       "window_days": 30, "llm": False},
    "mcp_log": {"client": "claude-desktop", "limit": 20},
}

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False),
    st.text(max_size=30),
)
json_value = st.recursive(
    json_leaf,
    lambda kids: st.one_of(
        st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=10), kids, max_size=4)
    ),
    max_leaves=12,
)
