"""The handler table (native/handlers.py) and its helpers, without a process."""

from __future__ import annotations

import json
import sys
from dataclasses import replace

from rewind import config
from rewind.config import Settings
from rewind.native import handlers, requests
from rewind.native.ask_requests import Coalescer
from rewind.native.context import Ctx, Session


def test_every_request_type_has_one_handler_in_a_known_lane():
    assert set(handlers.HANDLERS) == set(handlers.schemas(Settings()))
    assert {h.lane for h in handlers.HANDLERS.values()} == {"inline", "write", "read", "slow",
                                                           "download"}
    assert [t for t, h in handlers.HANDLERS.items() if h.lane == "download"] == ["pull_model"]
    writes = {t for t, h in handlers.HANDLERS.items() if h.lane == "write"}
    assert writes == {"index_page", "import_history", "record_visit", "forget", "clear",
                      "list_held", "decide_held", "set_settings", "set_rules", "import_chunk",
                      "mcp_set_access"}


def test_every_handler_is_a_function_of_its_own_module():
    """Dispatch calls the function the table names (no wrappers that look one up by a
    string), and each request group's table is its own (no type in two groups)."""
    for name, h in handlers.HANDLERS.items():
        module = sys.modules[h.fn.__module__]
        assert module.__name__.startswith("rewind.native."), name
        assert getattr(module, h.fn.__name__) is h.fn, name
    assert sum(len(g) for g in handlers._GROUPS) == len(handlers.HANDLERS)


def test_coalescer_sends_the_first_piece_at_once_and_the_rest_batched():
    sent: list[str] = []
    c = Coalescer(sent.append, interval=60.0)
    for piece in ("a", "b", "c"):
        c(piece)
    assert sent == ["a"]
    c.flush()
    assert sent == ["a", "bc"]


# ---- hello's capture limits, list_profiles, page_info -----------------------------------


def _ctx(session: Session, type_: str, **args) -> Ctx:
    req = requests.parse_request(
        json.dumps({"id": 1, "type": type_, **args}).encode(),
        handlers.schemas(session.settings)
    )
    return Ctx(req, session, send_frames=lambda _frames: None)


def test_hello_tells_the_extension_the_chunking_limits(tmp_path, monkeypatch):
    monkeypatch.setenv("REWIND_MODEL_DIR", str(tmp_path / "no-models"))
    s = replace(Settings(), max_passage_chars=1234, max_passages_per_page=12)
    session = Session(settings=s, data_dir_override=tmp_path / "data")
    try:
        reply = handlers.hello(_ctx(session, "hello", profile="p1"))
    finally:
        session.close()
    assert reply["capture"] == {
        "max_passage_words": 200,
        "min_passage_words": 5,
        "max_passages_per_page": 12,
        "max_passage_chars": 1234,
        "max_title_chars": 1000,
        "extract_budget_ms": 4000,
        "extract_slice_ms": 8,
    }


def _store_with_pages(data_dir, n: int, indexed_at: float) -> None:
    from rewind.index.store.records import PageRecord, PassageRecord
    from rewind.index.store.store import Store

    store = Store(data_dir / "rewind.db")
    for i in range(n):
        page = PageRecord(f"https://a.example/{i}", "a.example", f"P{i}", f"h{i}", "browser",
                          1.0, 1.0, 1, 0.0, indexed_at=indexed_at + i)
        store.upsert_page(page, [PassageRecord("five words of text here", 1, (0, 23))],
                          None, None)
    store.close()


def test_list_profiles_finds_stores_newest_first_and_creates_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("REWIND_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    root = config.app_data_dir() / "profiles"
    _store_with_pages(root / "old", 2, indexed_at=1000.0)
    _store_with_pages(root / "recent", 3, indexed_at=5000.0)
    (root / "empty-folder").mkdir()
    (root / "not a profile").mkdir()
    for wal in root.glob("*/rewind.db-*"):
        wal.unlink()  # as a cleanly closed store leaves it
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))

    reply = handlers.list_profiles(_ctx(Session(), "list_profiles"))

    assert reply["forced_data_dir"] is None
    got = [(p["profile"], p["pages"], p["last_indexed"]) for p in reply["profiles"]]
    assert got == [("recent", 3, 5002.0), ("old", 2, 1001.0)]
    assert reply["profiles"][0]["data_dir"] == str(root / "recent")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_list_profiles_with_no_data_yet_and_with_a_forced_data_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("REWIND_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    reply = handlers.list_profiles(_ctx(Session(), "list_profiles"))
    assert reply == {"profiles": [], "forced_data_dir": None}
    assert not (tmp_path / "xdg").exists()

    session = Session(data_dir_override=tmp_path / "forced")
    reply = handlers.list_profiles(_ctx(session, "list_profiles"))
    assert reply == {"profiles": [], "forced_data_dir": str(tmp_path / "forced")}


def test_a_damaged_store_is_listed_with_its_problem(tmp_path, monkeypatch):
    monkeypatch.delenv("REWIND_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    broken = config.app_data_dir() / "profiles" / "broken"
    broken.mkdir(parents=True)
    (broken / "rewind.db").write_bytes(b"not a database at all" * 100)
    [info] = handlers.list_profiles(_ctx(Session(), "list_profiles"))["profiles"]
    assert info["profile"] == "broken" and info["pages"] is None
    assert "could not be read" in info["problem"]


def test_page_info_finds_a_page_by_its_normalised_url(fake_engine):
    from rewind.capture.ingest import PageInput, PassageInput

    fake_engine.index_page(PageInput(
        url="https://a.example/read?utm_source=x", title="Read",
        passages=[PassageInput("a passage of more than five words", 1)], visited_at=1.7e9))
    session = Session(engine=fake_engine)
    got = handlers.page_info(_ctx(session, "page_info", url="https://a.example/read#part"))
    assert got["page"]["url"] == "https://a.example/read"
    assert got["page"]["title"] == "Read" and got["page"]["last_visit"] == 1.7e9
    none = handlers.page_info(_ctx(session, "page_info", url="https://a.example/other"))
    assert none == {"page": None}
