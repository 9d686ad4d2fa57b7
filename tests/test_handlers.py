"""Host settings persistence (handlers.py): what set_settings saves and hello loads."""

from __future__ import annotations

import json

from rewind.config import Settings
from rewind.native import handlers, protocol


def test_saved_settings_round_trip(tmp_path):
    handlers.save_host_settings(tmp_path, {"rrf_alpha": 0.4, "default_limit": 7})
    assert handlers.load_host_settings(tmp_path, Settings()) == {
        "rrf_alpha": 0.4,
        "default_limit": 7,
    }
    assert not list(tmp_path.glob("*.tmp"))


def test_a_stale_or_bad_entry_is_skipped_alone(tmp_path):
    (tmp_path / handlers.HOST_SETTINGS_FILE).write_text(
        json.dumps({"rrf_alpha": 0.4, "a_setting_from_an_old_host": 1, "default_limit": "ten"})
    )
    assert handlers.load_host_settings(tmp_path, Settings()) == {"rrf_alpha": 0.4}


def test_a_damaged_file_is_ignored(tmp_path):
    (tmp_path / handlers.HOST_SETTINGS_FILE).write_text("{not json")
    assert handlers.load_host_settings(tmp_path, Settings()) == {}
    (tmp_path / handlers.HOST_SETTINGS_FILE).write_text("[1]")
    assert handlers.load_host_settings(tmp_path, Settings()) == {}
    assert handlers.load_host_settings(tmp_path / "absent", Settings()) == {}


def test_current_settings_names_every_settable_key():
    s = Settings()
    assert set(handlers.current_settings(s)) == set(protocol.settings_schema(s).fields)


def test_every_request_type_has_one_handler_in_a_known_lane():
    assert set(handlers.HANDLERS) == set(protocol.schemas(Settings()))
    assert {h.lane for h in handlers.HANDLERS.values()} == {"inline", "write", "read", "slow"}
    writes = {t for t, h in handlers.HANDLERS.items() if h.lane == "write"}
    assert writes == {"index_page", "record_visit", "forget", "clear", "set_settings"}
