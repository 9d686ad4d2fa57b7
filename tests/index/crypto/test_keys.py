"""Where keys live (index/crypto/keys.py): the keyring when one works, else a 0600 file."""

import stat

import keyring
import pytest
from keyring.backend import KeyringBackend
from rewind.index.crypto import keys


class MemoryKeyring(KeyringBackend):
    """A keyring backend held in memory: the logic of using one, not a real keyring."""

    priority = 1

    def __init__(self):
        super().__init__()
        self.items: dict = {}

    def get_password(self, service, username):
        return self.items.get((service, username))

    def set_password(self, service, username, password):
        self.items[(service, username)] = password

    def delete_password(self, service, username):
        self.items.pop((service, username), None)


@pytest.fixture
def key_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("REWIND_KEY_DIR", str(tmp_path / "keys"))
    return tmp_path / "keys"


def test_key_file_when_no_keyring(key_dir, monkeypatch):
    monkeypatch.setenv("REWIND_KEYRING", "off")
    place = keys.create("abc123", b"k" * 32)
    path = key_dir / "abc123.key"
    assert place.kind == "file" and place.where == str(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_dir.stat().st_mode) == 0o700
    assert keys.load("abc123") == (b"k" * 32, place)
    keys.delete("abc123")
    assert keys.load("abc123") is None


def test_keyring_first_when_it_works(key_dir, monkeypatch):
    monkeypatch.setenv("REWIND_KEYRING", "on")
    ring = MemoryKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(ring)
    try:
        place = keys.create("abc123", b"s" * 32)
        assert place.kind == "keyring" and not (key_dir / "abc123.key").exists()
        assert keys.load("abc123")[0] == b"s" * 32
        assert "keyring" in keys.where_it_would_be("abc123")
        keys.delete("abc123")
        assert keys.load("abc123") is None and ring.items == {}
    finally:
        keyring.set_keyring(previous)


def test_bad_key_id_is_refused(key_dir):
    with pytest.raises(ValueError):
        keys.create("../../etc", b"k" * 32)
