"""Commands over what is kept: forget, export, import, log, reset.

This module must never hold logic the host needs: it parses, calls, prints.
"""

from __future__ import annotations

import argparse
import errno
import getpass
import os
import sys
import time
from datetime import datetime
from pathlib import Path

import filelock

from .. import config
from ..errors import Code, RewindError, disk_full
from .common import Command, Progress, emit, open_engine, parse_when


def _confirm(question: str, yes: bool) -> None:
    if yes:
        return
    if not sys.stdin.isatty():
        raise RewindError(Code.BAD_REQUEST, f"{question} Refused: no terminal to ask on.",
                          "Add --yes to confirm.")
    answer = input(f"{question} Type yes to go on: ").strip().lower()
    if answer != "yes":
        raise RewindError(Code.BAD_REQUEST, "Nothing was changed.")


def cmd_forget(args: argparse.Namespace) -> int:
    forms = [args.url is not None, args.domain is not None,
             args.since is not None or args.until is not None, args.all]
    if sum(forms) != 1:
        raise RewindError(Code.BAD_REQUEST, "Say what to forget: one of --url, --domain, "
                          "--since/--until or --all.")
    if args.all:
        _confirm("Forget everything Rewind remembers? This cannot be undone.", args.yes)
    with open_engine(args, writer=True) as eng:
        if args.url is not None:
            n, what = eng.forget_url(args.url), args.url
        elif args.domain is not None:
            n, what = eng.forget_domain(args.domain), f"everything from {args.domain}"
        elif args.all:
            n, what = eng.clear(), "everything"
        else:
            n, what = eng.forget_range(args.since, args.until), "that time"
    emit(args, {"removed": n}, f"Forgot {what}: {n} page{'s' if n != 1 else ''} removed "
         "from the store, the text index and the vectors.")
    return 0


def _passphrase(args: argparse.Namespace, new: bool) -> str | None:
    if getattr(args, "passphrase_file", None):
        text = Path(args.passphrase_file).read_text(encoding="utf-8").rstrip("\n")
        if not text:
            raise RewindError(Code.BAD_REQUEST, f"{args.passphrase_file} is empty.")
        return text
    if not getattr(args, "encrypt", False):
        return None
    if not sys.stdin.isatty():
        raise RewindError(Code.BAD_REQUEST, "No terminal to ask for the passphrase on.",
                          "Use --passphrase-file PATH.")
    first = getpass.getpass("Passphrase for the backup: ")
    if new and getpass.getpass("The same again: ") != first:
        raise RewindError(Code.BAD_REQUEST, "The two passphrases differ. Nothing was written.")
    if not first:
        raise RewindError(Code.BAD_REQUEST, "An empty passphrase protects nothing.")
    return first


def cmd_export(args: argparse.Namespace) -> int:
    from ..control import dump

    target = Path(args.file).expanduser()
    if args.json and (args.encrypt or args.passphrase_file):
        raise RewindError(Code.BAD_REQUEST, "The portable JSON export is never encrypted.",
                          "Leave out --json for a full backup, which can be.")
    passphrase = None if args.json else _passphrase(args, new=True)
    tmp = target.with_name(target.name + ".part")
    counts: dict = {}
    with open_engine(args, writer=False) as eng:
        try:
            if args.json:
                with open(tmp, "w", encoding="utf-8") as fh:
                    counts["pages"] = dump.export_json(eng, fh, Progress("exporting"))
            else:
                with open(tmp, "wb") as fh:
                    for chunk in dump.backup_bytes(eng, passphrase, Progress("backing up"),
                                                   counts):
                        fh.write(chunk)
                    fh.flush()
                    os.fsync(fh.fileno())
            os.replace(tmp, target)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
            # the backup's disk, not the history's: a write() error names no file
            raise disk_full(target.parent, "the backup was not written (no part of it is "
                            "left there)", "Free some space there, or write the backup to "
                            "another disk. Your history is untouched.") from None
        finally:
            tmp.unlink(missing_ok=True)
        eng.audit.write("exported", file=target.name, kind="export" if args.json else "backup",
                        pages=counts.get("pages", 0), encrypted=bool(passphrase))
    size = target.stat().st_size
    print(f"Wrote {counts.get('pages', 0)} pages to {target} ({size / 1e6:.1f} MB"
          + (", encrypted with your passphrase" if passphrase else "") + ").")
    return 0


def _encrypted(path: Path) -> bool:
    from ..control import backup

    try:
        with open(path, "rb") as fh:
            return backup.kind_of(fh.read(16)) == "backup" and (
                fh.seek(0) == 0 and backup.read_header(fh)[0].encrypted)
    except (OSError, RewindError):
        return False  # restore says what is wrong with it


def cmd_import(args: argparse.Namespace) -> int:
    from ..control import restore

    path = Path(args.file).expanduser()
    passphrase = _passphrase(args, new=False)
    if passphrase is None and sys.stdin.isatty() and _encrypted(path):
        passphrase = getpass.getpass("Passphrase of the backup: ")
    with open_engine(args, writer=True) as eng:
        result = restore.restore(eng, path, passphrase, Progress("importing"))
    emit(args, result.to_dict(),
         f"Imported {path.name}: {result.pages} pages — {result.new} new, {result.merged} "
         f"merged, {result.unchanged} already here, {result.skipped} not recorded (your "
         f"rules){f', {result.embedded} embedded again' if result.embedded else ''}.")
    return 0


def cmd_log(args: argparse.Namespace) -> int:
    from ..profile.audit import AuditLog

    directory = config.data_dir(override=args.data_dir)
    entries = AuditLog(directory).tail(args.limit, args.event)

    def line(e: dict) -> str:
        when = datetime.fromtimestamp(float(e.get("at", 0))).strftime("%Y-%m-%d %H:%M:%S")
        rest = "  ".join(f"{k}={v}" for k, v in e.items() if k not in ("at", "event"))
        return f"{when}  {e.get('event', '?'):10} {rest}"

    emit(args, entries, "\n".join(line(e) for e in entries) or "The log is empty.")
    return 0


def cmd_reset(args: argparse.Namespace) -> int:
    """Start an empty history; the old folder is moved aside, never deleted."""
    directory = config.data_dir(override=args.data_dir)
    if not directory.exists():
        raise RewindError(Code.NOT_FOUND, f"No history at {directory}.")
    _confirm(f"Move the history in {directory} aside and start an empty one?", args.yes)
    lock = filelock.FileLock(str(directory / "write.lock"), timeout=10)
    try:
        lock.acquire()
    except filelock.Timeout:
        raise RewindError(Code.STORE_LOCKED, "Rewind is writing to this history now.",
                          "Close the browser (or the other rewind command) and try "
                          "again.") from None
    aside = directory.with_name(f"{directory.name}.reset-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        directory.rename(aside)
    finally:
        lock.release()
    with open_engine(args, writer=True) as eng:  # a new, empty store (with a new key)
        eng.audit.write("reset", moved_to=str(aside))
    emit(args, {"moved_to": str(aside), "data_dir": str(directory)},
         f"Started an empty history in {directory}; the old one is in {aside} (delete it "
         "when you are sure you do not need it).")
    return 0


def register(command: Command) -> None:
    sp = command("forget", cmd_forget, "forget a page, a site, a time range or everything")
    sp.add_argument("--url", help="one page")
    sp.add_argument("--domain", help="a site, with its subdomains")
    sp.add_argument("--since", type=parse_when, help="from (YYYY-MM-DD, ISO time, 7d, 24h)")
    sp.add_argument("--until", type=parse_when, help="until (exclusive)")
    sp.add_argument("--all", action="store_true", help="everything (asks, unless --yes)")
    sp.add_argument("--yes", action="store_true", help="do not ask")
    sp = command("export", cmd_export, "write a backup (msgpack, with vectors) or, with "
                 "--json, a portable export", json_flag=False)
    sp.add_argument("file")
    sp.add_argument("--json", action="store_true", help="portable JSON, no vectors")
    sp.add_argument("--encrypt", action="store_true", help="protect it with a passphrase")
    sp.add_argument("--passphrase-file", help="read the passphrase from this file")
    sp = command("import", cmd_import, "import a backup or an export (merged, through your "
                 "recording rules)")
    sp.add_argument("file")
    sp.add_argument("--passphrase-file", help="read the passphrase from this file")
    sp = command("log", cmd_log, "what was indexed, skipped, forgotten, exported, imported")
    sp.add_argument("-n", "--limit", type=int, default=50, help="the last N entries (0: all)")
    sp.add_argument("--event", help="only this kind (indexed, skipped, forgotten, ...)")
    sp = command("reset", cmd_reset, "start an empty history (e.g. after its key was lost); "
                 "the old one is moved aside")
    sp.add_argument("--yes", action="store_true", help="do not ask")
