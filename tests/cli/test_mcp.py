"""`rewind mcp --setup`, `--print-config` and `rewind log --event mcp`, as a person runs them
(the server itself: tests/mcp/test_server.py)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from rewind.mcp import activity
from rewind.mcp.access import AccessBook
from rewind.profile.audit import AuditLog
from support.cli_runner import rewind


def test_setup_turns_a_client_on_with_its_scope_and_shows_what_to_paste(tmp_path: Path):
    data = tmp_path / "data"
    out = rewind(data, "mcp", "--setup", "Claude Desktop", "--sites", "python.org, docs.rs",
                 "--exclude", "bank.example", "--days", "14", "--llm")
    assert f"Claude Desktop (claude-desktop) may now read your history in {data}: only " \
           "docs.rs, python.org except bank.example; pages read in the last 14 days; " \
           "answers may use the local language model." in out.stdout
    pasted = json.loads(out.stdout[out.stdout.index("{"):])
    server = pasted["mcpServers"]["rewind"]
    assert Path(server["command"]).name == "rewind"
    assert server["args"] == ["--data-dir", str(data.resolve()), "mcp", "--client",
                              "claude-desktop"]
    a = AccessBook.load(data).get("claude-desktop")
    assert a.enabled and a.sites == ("docs.rs", "python.org") and a.window_days == 14
    # changed later: only what is given changes
    rewind(data, "mcp", "--setup", "claude-desktop", "--sites", "all", "--no-llm")
    a = AccessBook.load(data).get("claude-desktop")
    assert a.enabled and a.sites == () and a.not_sites == ("bank.example",) and not a.llm
    off = rewind(data, "mcp", "--setup", "claude-desktop", "--off")
    assert f"may not read your history in {data} (turned off)" in off.stdout
    assert not AccessBook.load(data).get("claude-desktop").enabled


def test_setup_alone_lists_clients_and_what_they_read_today(tmp_path: Path):
    data = tmp_path / "data"
    assert "No AI tool may read your history" in rewind(data, "mcp", "--setup").stdout
    rewind(data, "mcp", "--setup", "vscode", "--days", "0")
    activity.record(AuditLog(data), "vscode", "search_history", "q", ["https://a/1",
                                                                      "https://a/2"])
    out = rewind(data, "mcp", "--setup")
    assert "VS Code (vscode): on — every site; pages read at any time;" in out.stdout
    assert "VS Code read 2 pages today." in out.stdout
    listed = json.loads(rewind(data, "mcp", "--setup", "--json").stdout)
    assert listed["clients"][0]["today"]["pages"] == 2
    log = rewind(data, "log", "--event", "mcp")
    assert "search_history" in log.stdout and "https://a/1" in log.stdout


@pytest.mark.parametrize(("args", "words"), [
    (["--sites", "not a site"], "Nothing was changed: sites:"),
    (["--days", "-3"], "window_days"),
])
def test_bad_scope_changes_nothing_and_says_why(tmp_path: Path, args, words):
    data = tmp_path / "data"
    out = rewind(data, "mcp", "--setup", "cursor", *args, check=False)
    assert out.returncode == 1 and words in out.stderr
    assert not AccessBook.load(data).get("cursor").enabled


@pytest.mark.parametrize("client", ["claude-desktop", "claude-code", "vscode", "cursor"])
def test_print_config(tmp_path: Path, client):
    out = rewind(tmp_path / "data", "mcp", "--print-config", client)
    assert out.stderr.startswith("# ")  # where it goes, apart from what to paste
    rewind_bin = str(Path(sys.executable).parent / "rewind")
    if client == "claude-code":
        words = shlex.split(out.stdout)
        assert words[:6] == ["claude", "mcp", "add", "--scope", "user", "rewind"]
        assert words[6:] == ["--", rewind_bin, "--data-dir", str((tmp_path / "data")
                                                                  .resolve()), "mcp",
                             "--client", "claude-code"]
    else:
        data = json.loads(out.stdout)
        server = (data.get("servers") or data["mcpServers"])["rewind"]
        assert server["command"] == rewind_bin and server["args"][-2:] == ["--client",
                                                                            client]


def test_the_server_says_what_to_install_without_the_sdk(tmp_path: Path):
    """Without the `mcp` package (a lean install), a clear error, not a traceback."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "mcp").mkdir()
    (blocker / "mcp" / "__init__.py").write_text("raise ImportError('no mcp here')\n")
    out = rewind(tmp_path / "data", "mcp", "--client", "x", check=False,
                 env={"PYTHONPATH": str(blocker)})
    assert out.returncode == 1
    assert "needs the MCP SDK" in out.stderr and "rewind[mcp]" in out.stderr


def test_without_a_data_dir_the_browsers_profile_is_served(tmp_path: Path):
    """The extension's profile has an id of its own (p3f9…), not "default": with no
    --data-dir, setup and the printed configuration name the store that exists."""
    import os
    import subprocess

    from rewind import config
    from rewind.index.store.store import Store

    xdg = tmp_path / "xdg"
    env = {**os.environ, "XDG_DATA_HOME": str(xdg), "HOME": str(tmp_path / "home")}
    env.pop("REWIND_DATA_DIR", None)
    browser = xdg / "rewind" / "profiles" / "p0123456789abcdef"
    browser.mkdir(parents=True)
    Store(browser / "rewind.db").close()

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "rewind", *args], capture_output=True,
                              text=True, env=env, timeout=120, check=True)

    run("mcp", "--setup", "claude-desktop")
    assert AccessBook.load(browser).get("claude-desktop").enabled
    pasted = json.loads(run("mcp", "--print-config", "claude-desktop").stdout)
    assert pasted["mcpServers"]["rewind"]["args"][:2] == ["--data-dir", str(browser)]
    assert config.DEFAULT_PROFILE not in str(browser)
