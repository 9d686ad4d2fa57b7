"""Who the host answers (native/identity.py): the extension's ID and allowed origins."""

import pytest
from rewind.errors import RewindError
from rewind.native import identity

EXT_ID = "abcdefghijklmnopabcdefghijklmnop"


def test_read_extension_id(tmp_path):
    assert identity.read_extension_id(tmp_path) is None
    (tmp_path / "extension").mkdir()
    (tmp_path / "extension" / "EXTENSION_ID").write_text(EXT_ID + "\n")
    assert identity.read_extension_id(tmp_path) == EXT_ID
    (tmp_path / "extension" / "EXTENSION_ID").write_text("../../etc/passwd")
    with pytest.raises(RewindError):
        identity.read_extension_id(tmp_path)


def test_allowed_origins_come_from_the_launcher_else_the_checkout(monkeypatch):
    monkeypatch.setenv(identity.ORIGINS_ENV, "chrome-extension://a/, chrome-extension://b/")
    assert identity.allowed_origins() == ["chrome-extension://a/", "chrome-extension://b/"]
    monkeypatch.delenv(identity.ORIGINS_ENV)
    assert identity.allowed_origins() == [identity.origin(identity.read_extension_id())]
