"""`rewind serve` (what the browser starts) and `rewind send` (talk to it as a browser).

This module must never print to stdout while serving: the host owns it for frames.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .. import config
from ..errors import Code, RewindError
from .common import Command


def cmd_serve(args: argparse.Namespace) -> int:
    from ..native import host

    return host.serve(args.origin, args.data_dir)


def cmd_send(args: argparse.Namespace) -> int:
    from ..native import client

    raw = Path(args.raw).read_bytes() if args.raw else None
    messages = None
    if args.message:
        try:
            messages = [json.loads(m) for m in args.message]
        except json.JSONDecodeError as exc:
            raise RewindError(Code.BAD_JSON, f"Not JSON: {exc}.",
                              'Quote it for the shell: rewind send \'{"type":"hello"}\'') from None
    return client.send(messages, raw, args.profile, args.data_dir, args.timeout)


def register(command: Command) -> None:
    sp = command("serve", cmd_serve, "run the native messaging host (browsers start this)",
                 json_flag=False)
    sp.add_argument("origin", nargs="?", default="", help="the caller's origin (from Chrome)")
    sp.add_argument("rest", nargs="*", help=argparse.SUPPRESS)  # Chrome may add a window id
    sp = command("send", cmd_send, "talk to the host exactly as the browser does",
                 json_flag=False)
    sp.add_argument("message", nargs="*", help="JSON request(s)")
    sp.add_argument("--raw", help="send this file's bytes as they are (framing tests)")
    sp.add_argument("--profile", default=config.DEFAULT_PROFILE)
    sp.add_argument("--timeout", type=float, default=30.0)
