"""`rewind mcp`: serve the history to an AI tool, set up its access, print its configuration.

    rewind mcp --client claude-desktop      the server (what the tool starts, over stdio)
    rewind mcp --setup claude-desktop --days 30 --sites docs.python.org --no-llm
    rewind mcp --setup                      every client's access, and what each read today
    rewind mcp --print-config claude-code   what to paste into the tool

This module must never hold logic the server needs: it parses, calls, prints (and prints
nothing to stdout while serving: the protocol owns it).
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from .. import config
from ..errors import Code, RewindError
from .common import Command, emit


def _client(name: str) -> str:
    from ..mcp.access import client_id

    return client_id(name)


def history_dir(args: argparse.Namespace) -> Path:
    """The profile to serve: --data-dir or $REWIND_DATA_DIR, else the default profile when
    it has a store, else the most recently used one that has (the browser's profile has
    its own id, as the extension adopts it: profile/listing.py)."""
    from ..profile import listing as profiles

    forced = profiles.forced_data_dir(args.data_dir)
    if forced is not None:
        return forced
    default = config.data_dir()
    if (default / profiles.DB_FILE).exists():
        return default
    found = profiles.list_profiles()
    return Path(found[0].data_dir) if found else default


def _site_list(value: str) -> list[str]:
    """'a.com, b.org' -> ['a.com', 'b.org']; '' or 'all' -> [] (every site / none)."""
    if value.strip().lower() in ("", "all", "none"):
        return []
    return [s.strip() for s in value.split(",") if s.strip()]


def _serve(args: argparse.Namespace, directory: Path) -> int:
    client = _client(args.client) if args.client else None
    made: list = []
    ready = threading.Event()

    def warm() -> None:
        """The store, indexes and embedding model, loaded while the SDK is imported (~1.3
        s: the longest part of a start) on the main thread."""
        try:
            from ..mcp.tools import Library

            made.append(Library(directory))
        finally:
            ready.set()
        made[0].warm()

    threading.Thread(target=warm, name="rewind-warm", daemon=True).start()
    try:
        from ..mcp import server
    except ImportError as exc:
        raise RewindError(Code.NOT_AVAILABLE,
                          f"`rewind mcp` needs the MCP SDK, which is not installed ({exc}).",
                          "Run `python3 build.py install` (or `pip install 'rewind[mcp]'`)."
                          ) from None
    ready.wait()
    if not made:
        raise RewindError(Code.INTERNAL, "The server could not start (see the error above).")
    server.serve(made[0], client)
    return 0


def _setup(args: argparse.Namespace, directory: Path) -> int:
    from ..mcp import activity, clients
    from ..mcp.access import AccessBook
    from ..profile.audit import AuditLog

    book = AccessBook.load(directory)
    if not args.setup:  # no client named: what every client may read, and read today
        read = activity.today(AuditLog(directory))
        rows = [{**a.to_dict(), "today": read.get(cid)} for cid, a in book.clients.items()]
        lines = [f"{a.label} ({cid}): {'on' if a.enabled else 'off'} — {a.describe()}. "
                 f"{activity.sentence(a.label, read.get(cid))}"
                 for cid, a in book.clients.items()]
        emit(args, {"clients": rows, "file": str(book.path)}, "\n".join(lines) or
             "No AI tool may read your history. Turn one on with "
             "`rewind mcp --setup CLIENT` (e.g. claude-desktop, claude-code, vscode).")
        return 0
    cid = _client(args.setup)
    if args.remove:
        gone = book.remove(cid)
        emit(args, {"removed": gone, "client": cid},
             f"{clients.label(cid)} may no longer read your history"
             + ("." if gone else " (it had no access)."))
        return 0
    fields: dict = {"enabled": not args.off}
    if args.label:
        fields["label"] = args.label
    if args.sites is not None:
        fields["sites"] = _site_list(args.sites)
    if args.exclude is not None:
        fields["not_sites"] = _site_list(args.exclude)
    if args.days is not None:
        fields["window_days"] = args.days
    if args.llm is not None:
        fields["llm"] = args.llm
    directory.mkdir(parents=True, exist_ok=True)
    try:
        access = book.set(cid, fields)
    except ValueError as exc:
        raise RewindError(Code.BAD_REQUEST, f"Nothing was changed: {exc}.") from None
    snip = clients.snippet(cid, directory)
    human = (f"{access.label} ({cid}) may {'now' if access.enabled else 'not'} read your "
             f"history in {directory}"
             + (f": {access.describe()}." if access.enabled else " (turned off).")
             + (f"\n\nTo connect it, put this in {snip['where']}:\n\n{snip['text']}"
                if access.enabled else ""))
    emit(args, {"access": access.to_dict(), "config": snip}, human)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    directory = history_dir(args)
    if args.print_config:
        from ..mcp import clients

        snip = clients.snippet(_client(args.print_config), directory)
        if args.json:
            emit(args, snip, "")
        else:  # the text alone on stdout (pipe it to a file), where it goes on stderr
            print(f"# {snip['label']}: {snip['where']}", file=sys.stderr)
            print(snip["text"])
        return 0
    if args.setup is not None:
        return _setup(args, directory)
    return _serve(args, directory)


def register(command: Command) -> None:
    sp = command("mcp", cmd_mcp, "let an AI tool (Claude Desktop, Claude Code, VS Code...) "
                 "read your history, scoped and logged: a Model Context Protocol server")
    sp.add_argument("--client", metavar="NAME",
                    help="who this server serves (its access applies): claude-desktop, "
                    "claude-code, vscode, cursor or any name given to --setup")
    sp.add_argument("--setup", nargs="?", const="", metavar="CLIENT",
                    help="turn a client's access on (with the scope below) and show its "
                    "configuration; alone: every client's access and what it read today")
    sp.add_argument("--print-config", metavar="CLIENT",
                    help="print the configuration to paste into this client")
    scope = sp.add_argument_group("scope (with --setup)")
    scope.add_argument("--sites", metavar="LIST",
                       help="only these sites, comma-separated (all: every site)")
    scope.add_argument("--exclude", metavar="LIST",
                       help="never these sites, comma-separated (none: no exclusion)")
    scope.add_argument("--days", type=int, metavar="N",
                       help="only pages read in the last N days (0: all time; default 30)")
    scope.add_argument("--llm", action=argparse.BooleanOptionalAction, default=None,
                       help="whether answers may use the local language model "
                       "(default: no, answers are made of the pages' own sentences)")
    scope.add_argument("--label", help="the client's name as the options page shows it")
    scope.add_argument("--off", action="store_true", help="turn the client's access off")
    scope.add_argument("--remove", action="store_true", help="forget the client altogether")
