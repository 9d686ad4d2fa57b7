"""The handler table (native/handlers.py) and its helpers, without a process."""

from __future__ import annotations

from rewind.config import Settings
from rewind.native import handlers, requests
from rewind.native.handlers import Coalescer


def test_every_request_type_has_one_handler_in_a_known_lane():
    assert set(handlers.HANDLERS) == set(requests.schemas(Settings()))
    assert {h.lane for h in handlers.HANDLERS.values()} == {"inline", "write", "read", "slow"}
    writes = {t for t, h in handlers.HANDLERS.items() if h.lane == "write"}
    assert writes == {"index_page", "record_visit", "forget", "clear", "set_settings"}


def test_coalescer_sends_the_first_piece_at_once_and_the_rest_batched():
    sent: list[str] = []
    c = Coalescer(sent.append, interval=60.0)
    for piece in ("a", "b", "c"):
        c(piece)
    assert sent == ["a"]
    c.flush()
    assert sent == ["a", "bc"]
