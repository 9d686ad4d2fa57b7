"""mcp_access, mcp_set_access, mcp_log through the real host process (native/mcp_requests.py):
what the options page's "AI tools" section asks."""

from __future__ import annotations

import json

from rewind.mcp import activity
from rewind.mcp.access import AccessBook
from rewind.profile.audit import AuditLog
from support.host_process import HostProcess


def test_access_is_set_listed_and_logged(tmp_path):
    host = HostProcess(tmp_path)
    try:
        host.hello()
        first = host.ok("mcp_access")
        assert first["clients"] == []  # off until the person turns a client on
        assert {k["client"] for k in first["known"]} == {"claude-desktop", "claude-code",
                                                         "vscode", "cursor"}
        assert first["log_command"] == "rewind log --event mcp"
        assert first["log_file"].endswith("audit.log")

        reply = host.ok("mcp_set_access", client="Claude Desktop", enabled=True,
                        not_sites=["WWW.Bank.Example"], window_days=30)
        [row] = reply["clients"]
        assert row["client"] == "claude-desktop" and row["enabled"] and not row["llm"]
        assert row["not_sites"] == ["bank.example"]
        assert row["scope"].startswith("every site except bank.example; pages read in "
                                       "the last 30 days")
        assert row["read_today"] == "Claude Desktop has read nothing today."
        pasted = json.loads(row["config"]["text"])["mcpServers"]["rewind"]
        assert pasted["args"][-3:] == ["mcp", "--client", "claude-desktop"]
        # what `rewind mcp` reads is what was set
        assert AccessBook.load(host.data_dir).get("claude-desktop").not_sites == (
            "bank.example",)

        bad = host.call("mcp_set_access", client="claude-desktop", sites=["not a site"])
        assert not bad["ok"] and bad["error"]["code"] == "bad_request"
        assert "Nothing was changed" in bad["error"]["message"]
        assert AccessBook.load(host.data_dir).get("claude-desktop").sites == ()

        audit = AuditLog(host.data_dir)
        for i in range(12):
            activity.record(audit, "claude-desktop", "read_page", f"https://a.example/{i}",
                            [f"https://a.example/{i}"])
        activity.record(audit, "vscode", "search_history", "q", [], refused="not enabled")
        rows = {r["client"]: r for r in host.ok("mcp_access")["clients"]}
        assert rows["claude-desktop"]["read_today"] == "Claude Desktop read 12 pages today."
        assert rows["vscode"]["known"] is False and not rows["vscode"]["enabled"]
        assert rows["vscode"]["read_today"].startswith("VS Code asked 1 time today")

        log = host.ok("mcp_log", client="claude-desktop", limit=5)
        assert [c["query"] for c in log["calls"]] == [f"https://a.example/{i}"
                                                      for i in (11, 10, 9, 8, 7)]
        everyone = host.ok("mcp_log")["calls"]
        assert everyone[0]["client"] == "vscode" and everyone[0]["refused"] == "not enabled"

        gone = host.ok("mcp_set_access", client="claude-desktop", remove=True)
        assert "claude-desktop" not in AccessBook.load(host.data_dir).clients
        assert all(r["known"] is False for r in gone["clients"])
    finally:
        host.stop()
