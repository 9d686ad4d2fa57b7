"""mcp/access.py, activity.py, clients.py: who may read, what the log keeps, what to paste."""

from __future__ import annotations

import json
import os
import shlex
import time
from pathlib import Path

import pytest
from rewind.errors import Code, RewindError
from rewind.mcp import activity, clients
from rewind.mcp.access import (
    FILE,
    AccessBook,
    AccessWatch,
    ClientAccess,
    client_id,
    not_enabled,
)
from rewind.profile.audit import AuditLog

# ---- access -----------------------------------------------------------------------------


def test_off_until_turned_on(tmp_path: Path):
    book = AccessBook.load(tmp_path)
    a = book.get("claude-desktop")
    assert not a.enabled and a.label == "Claude Desktop"
    assert not AccessBook.load(tmp_path).get("anything").enabled


def test_set_saves_and_a_new_load_reads_it(tmp_path: Path):
    book = AccessBook.load(tmp_path)
    book.set("claude-desktop", {"enabled": True, "sites": ["WWW.Python.org", "docs.rs"],
                                "not_sites": ["bank.example"], "window_days": 7,
                                "llm": True})
    again = AccessBook.load(tmp_path).get("claude-desktop")
    assert again.enabled and again.llm and again.window_days == 7
    assert again.sites == ("docs.rs", "python.org") and again.not_sites == ("bank.example",)
    assert oct(os.stat(tmp_path / FILE).st_mode & 0o777) == "0o600"
    scope = again.scope(now=1_000_000.0)
    assert scope.since == 1_000_000.0 - 7 * 86400 and scope.sites == again.sites
    assert "only docs.rs, python.org except bank.example" in again.describe()


@pytest.mark.parametrize(("fields", "words"), [
    ({"sites": ["not a site"]}, "sites"),
    ({"not_sites": "bank.example"}, "not_sites"),
    ({"window_days": -1}, "window_days"),
    ({"window_days": 1.5}, "window_days"),
    ({"window_days": True}, "window_days"),
    ({"enabled": "yes"}, "enabled"),
    ({"llm": 1}, "llm"),
    ({"label": ""}, "label"),
    ({"admin": True}, "unknown field"),
])
def test_bad_fields_change_nothing(tmp_path: Path, fields, words):
    book = AccessBook.load(tmp_path)
    book.set("vscode", {"enabled": True, "window_days": 3})
    with pytest.raises(ValueError, match=words):
        book.set("vscode", {"enabled": False, **fields})
    assert AccessBook.load(tmp_path).get("vscode") == book.get("vscode")
    assert book.get("vscode").enabled


def test_a_damaged_file_or_entry_enables_nothing(tmp_path: Path):
    (tmp_path / FILE).write_text("{not json")
    assert not AccessBook.load(tmp_path).get("claude-desktop").enabled
    (tmp_path / FILE).write_text(json.dumps({"clients": {
        "claude-desktop": {"enabled": True, "sites": ["https://evil/"]},
        "BAD ID": {"enabled": True},
        "vscode": {"enabled": True, "window_days": 0}}}))
    book = AccessBook.load(tmp_path)
    assert not book.get("claude-desktop").enabled  # its entry is bad: all of it ignored
    assert "BAD ID" not in book.clients
    assert book.get("vscode").enabled and book.get("vscode").scope().since is None


def test_the_watch_reads_a_change_at_the_next_call(tmp_path: Path):
    watch = AccessWatch(tmp_path)
    assert not watch.book().get("cursor").enabled
    AccessBook.load(tmp_path).set("cursor", {"enabled": True})
    assert watch.book().get("cursor").enabled
    AccessBook.load(tmp_path).set("cursor", {"enabled": False})
    assert not watch.book().get("cursor").enabled


def test_client_names():
    assert client_id("Claude Desktop") == "claude-desktop"
    assert client_id("claude-ai") == "claude-desktop"  # the name Claude Desktop reports
    assert client_id("Visual Studio Code") == "vscode"
    assert client_id("My Agent 2") == "my-agent-2"
    with pytest.raises(RewindError):
        client_id("!!!")


def test_not_enabled_says_what_to_do():
    err = not_enabled(ClientAccess("vscode", "VS Code"))
    assert err.code == Code.FORBIDDEN
    assert "VS Code" in str(err) and "rewind mcp --setup vscode" in str(err)
    assert "Nothing was read" in str(err)


def test_remove(tmp_path: Path):
    book = AccessBook.load(tmp_path)
    book.set("x", {"enabled": True})
    assert book.remove("x") and not book.remove("x")
    assert "x" not in AccessBook.load(tmp_path).clients


# ---- activity -----------------------------------------------------------------------------


def test_today_counts_distinct_pages_per_client(tmp_path: Path):
    audit = AuditLog(tmp_path)
    activity.record(audit, "claude-desktop", "search_history", "hnsw", ["u1", "u2", "u1"])
    activity.record(audit, "claude-desktop", "read_page", "u2", ["u2"])
    activity.record(audit, "claude-desktop", "search_history", "x", [], refused="not enabled")
    activity.record(audit, "vscode", "search_history", "y" * 1000, ["u3"])
    today = activity.today(audit)
    assert today["claude-desktop"] == {"calls": 3, "refused": 1, "pages": 2,
                                       "last_at": pytest.approx(time.time(), abs=5)}
    assert activity.sentence("Claude Desktop", today["claude-desktop"]) == \
        "Claude Desktop read 2 pages today (1 call refused)."
    assert activity.sentence("VS Code", today["vscode"]) == "VS Code read 1 page today."
    assert activity.sentence("Cursor", None) == "Cursor has read nothing today."
    lines = activity.calls(audit, "vscode")
    assert len(lines) == 1 and len(lines[0]["query"]) == activity.MAX_QUERY_CHARS


def test_yesterday_is_not_today(tmp_path: Path):
    audit = AuditLog(tmp_path)
    line = {"at": activity.midnight() - 60, "event": "mcp", "client": "c", "tool": "t",
            "pages": 1, "urls": ["u"]}
    audit.path.write_text(json.dumps(line) + "\n")
    assert activity.today(audit) == {}


def test_forgetting_a_page_removes_the_calls_that_named_it(fake_engine):
    from rewind.capture.ingest import PageInput

    url = fake_engine.index_page(PageInput(url="https://a.example/p", title="A page",
                                           text="words enough to be a passage here")).url
    other = "https://b.example/q"
    activity.record(fake_engine.audit, "c", "search_history", "a page", [url, other])
    activity.record(fake_engine.audit, "c", "read_page", url, [])  # asked by URL
    activity.record(fake_engine.audit, "c", "search_history", "b", [other])
    fake_engine.forget_url(url)
    left = activity.calls(fake_engine.audit)
    assert [e["query"] for e in left] == ["b"]
    fake_engine.clear()
    assert activity.calls(fake_engine.audit) == []


# ---- clients ----------------------------------------------------------------------------


@pytest.mark.parametrize("cid", ["claude-desktop", "vscode", "cursor", "my-agent"])
def test_json_snippets_start_rewind_mcp_for_the_client(cid, tmp_path: Path):
    snip = clients.snippet(cid, tmp_path / "profile", command="/opt/rewind/bin/rewind")
    data = json.loads(snip["text"])
    server = (data.get("mcpServers") or data["servers"])["rewind"]
    assert server["command"] == "/opt/rewind/bin/rewind"
    assert server["args"] == ["--data-dir", str((tmp_path / "profile").resolve()), "mcp",
                              "--client", cid]
    if cid == "vscode":
        assert server["type"] == "stdio"


def test_claude_code_is_a_command_and_the_default_profile_needs_no_data_dir(monkeypatch,
                                                                            tmp_path):
    from rewind import config

    monkeypatch.setattr(config, "profiles_dir", lambda: tmp_path / "profiles")
    default = tmp_path / "profiles" / config.DEFAULT_PROFILE
    snip = clients.snippet("claude-code", default, command="/usr/bin/rewind")
    assert snip["format"] == "shell"
    assert shlex.split(snip["text"]) == ["claude", "mcp", "add", "--scope", "user", "rewind",
                                         "--", "/usr/bin/rewind", "mcp", "--client",
                                         "claude-code"]
