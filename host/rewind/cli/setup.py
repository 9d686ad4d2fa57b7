"""`rewind setup`: install the offline default models and register the helper with the
browsers found (`--uninstall` removes the registration). Each step prints what it did.

This module must never hold set-up logic: install/steps.py does the work.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from ..install import steps
from ..install.browsers import BY_KEY
from .common import Command, emit


def cmd_setup(args: argparse.Namespace) -> int:
    say = (lambda _line: None) if args.json else print
    if args.uninstall:
        report = steps.teardown(say=say, browsers=args.browser,
                                user_data_dirs=args.user_data_dir)
    else:
        report = steps.setup(say=say, only=args.only, browsers=args.browser,
                             user_data_dirs=args.user_data_dir, extension_id=args.extension_id)
        if not args.json and args.only != "models":
            print(f"done. Check with `{_rewind()} doctor`; then load the extension in your "
                  "browser (chrome://extensions, Developer mode, Load unpacked).")
    if args.json:
        emit(args, report.to_dict(), "")
    return 0


def _rewind() -> str:
    """`rewind` as the person can type it: the bare name when it is on their PATH."""
    here = Path(sys.executable).parent / "rewind"
    found = shutil.which("rewind")
    return "rewind" if found and Path(found).resolve() == here.resolve() else str(here)


def register(command: Command) -> None:
    sp = command("setup", cmd_setup, "install the offline models and register the helper with "
                 "your browsers (idempotent; --uninstall removes the registration)")
    sp.add_argument("--uninstall", action="store_true",
                    help="remove the registration and launcher (your data and models stay)")
    sp.add_argument("--only", choices=steps.STEPS, help="only this step")
    sp.add_argument("--browser", action="append", choices=list(BY_KEY),
                    help="only this browser (repeatable); default: every browser found")
    sp.add_argument("--user-data-dir", action="append", type=Path, default=[],
                    help="also register for a browser started with --user-data-dir=DIR")
    sp.add_argument("--extension-id", help="default: the ID Rewind's extension is built with")
