"""A profile's saved settings (profile/settings.py): what set_settings saves and hello loads."""

from __future__ import annotations

import json

from rewind import config
from rewind.config import Settings
from rewind.native.settings_requests import settings_schema
from rewind.profile import settings as profile_settings


def test_saved_settings_round_trip(tmp_path):
    profile_settings.save(tmp_path, {"rrf_alpha": 0.4, "default_limit": 7})
    assert profile_settings.load(tmp_path) == {
        "rrf_alpha": 0.4,
        "default_limit": 7,
    }
    assert not list(tmp_path.glob("*.tmp"))


def test_a_stale_or_bad_entry_is_skipped_alone(tmp_path):
    (tmp_path / profile_settings.FILE).write_text(
        json.dumps({"rrf_alpha": 0.4, "a_setting_from_an_old_host": 1, "default_limit": "ten"})
    )
    assert profile_settings.load(tmp_path) == {"rrf_alpha": 0.4}


def test_a_damaged_file_is_ignored(tmp_path):
    (tmp_path / profile_settings.FILE).write_text("{not json")
    assert profile_settings.load(tmp_path) == {}
    (tmp_path / profile_settings.FILE).write_text("[1]")
    assert profile_settings.load(tmp_path) == {}
    assert profile_settings.load(tmp_path / "absent") == {}


def test_current_settings_names_every_settable_key():
    s = Settings()
    assert set(config.user_values(s)) == set(settings_schema().fields)


def test_update_saves_over_the_saved_and_null_returns_to_the_default(tmp_path):
    s = profile_settings.update(Settings(), tmp_path, {"default_limit": 7, "mmr_lambda": 0.5})
    assert (s.default_limit, s.mmr_lambda) == (7, 0.5)
    s = profile_settings.update(Settings(), tmp_path, {"default_limit": None})
    assert (s.default_limit, s.mmr_lambda) == (Settings().default_limit, 0.5)
    assert profile_settings.apply(Settings(), tmp_path) == s
