"""The AI tools Rewind knows by name, and the configuration to paste into each.

Every configuration starts the installed `rewind` with `mcp --client ID`: the client's
name is in the command the person pasted, so the access they gave that name is the
access the tool gets. (A tool started without `--client` is known by the name it reports
when it connects, mapped here when it is one of these.) A profile other than the default
one is named with `--data-dir`.
This module must never read or change access (access.py does): it only writes text.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .. import config


@dataclass(frozen=True)
class Client:
    label: str
    reported: tuple[str, ...]  # names the tool gives itself when it connects (clientInfo)
    where: str  # where its configuration goes


KNOWN: dict[str, Client] = {
    "claude-desktop": Client(
        "Claude Desktop", ("claude-ai", "claude desktop"),
        "claude_desktop_config.json (Settings > Developer > Edit Config; macOS: "
        "~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\), then "
        "restart Claude Desktop"),
    "claude-code": Client(
        "Claude Code", ("claude-code",),
        "run this command once (or put the JSON in your project's .mcp.json)"),
    "vscode": Client(
        "VS Code", ("visual studio code", "vscode"),
        ".vscode/mcp.json in a workspace, or the user configuration (MCP: Open User "
        "Configuration)"),
    "cursor": Client("Cursor", ("cursor", "cursor-vscode"), "~/.cursor/mcp.json"),
}


def by_reported_name(name: str) -> str | None:
    low = name.strip().lower()
    if low in KNOWN:
        return low
    return next((cid for cid, c in KNOWN.items() if low in c.reported
                 or low == c.label.lower()), None)


def label(cid: str) -> str:
    known = KNOWN.get(cid)
    return known.label if known else cid


def rewind_command() -> str:
    """The installed `rewind` (beside this Python in its virtual environment)."""
    beside = Path(sys.executable).parent / ("rewind.exe" if sys.platform == "win32"
                                            else "rewind")
    if beside.exists():
        return str(beside)
    return shutil.which("rewind") or "rewind"


def server_args(cid: str, data_dir: Path | None = None) -> list[str]:
    """`rewind`'s arguments for this client (with the profile, unless the default one)."""
    args = ["mcp", "--client", cid]
    default = config.profiles_dir() / config.DEFAULT_PROFILE
    if data_dir is not None and Path(data_dir).expanduser().resolve() != default.resolve():
        args = ["--data-dir", str(Path(data_dir).expanduser().resolve()), *args]
    return args


def snippet(cid: str, data_dir: Path | None = None, command: str | None = None) -> dict:
    """{client, label, where, format, text}: what to paste where, for this client."""
    cmd = command or rewind_command()
    args = server_args(cid, data_dir)
    entry = {"command": cmd, "args": args}
    known = KNOWN.get(cid)
    if cid == "claude-code":
        fmt = "shell"
        text = " ".join(shlex.quote(a) for a in
                        ["claude", "mcp", "add", "--scope", "user", "rewind", "--", cmd, *args])
    elif cid == "vscode":
        fmt = "json"
        text = json.dumps({"servers": {"rewind": {"type": "stdio", **entry}}}, indent=2)
    else:  # Claude Desktop, Cursor and most others: the mcpServers object
        fmt = "json"
        text = json.dumps({"mcpServers": {"rewind": entry}}, indent=2)
    return {"client": cid, "label": label(cid), "format": fmt, "text": text,
            "where": known.where if known else "your tool's MCP server configuration "
            "(most take this mcpServers object)"}
