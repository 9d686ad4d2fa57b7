"""What every command shares: times as people write them, progress, output, the engine.

This module must never print anything but what a command asked it to.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from .. import config
from ..config import Settings
from ..profile import settings as profile_settings

if TYPE_CHECKING:
    from ..profile.engine import Rewind

# add_parser(name, func, help, json_flag=True) -> the subparser (cli/__init__.py makes it)
Command = Callable[..., argparse.ArgumentParser]


def parse_when(value: str) -> float:
    """'2026-11-01', an ISO datetime, or a span back from now: '90m', '24h', '7d', '2w'."""
    v = value.strip()
    units = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
    if v[:-1].isdigit() and v[-1:] in units:
        return time.time() - int(v[:-1]) * units[v[-1]]
    try:
        return datetime.fromisoformat(v).timestamp()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a date: use YYYY-MM-DD, an ISO time, or 7d / 24h / 90m") from None


class Progress:
    """A one-line progress bar on stderr when it is a terminal; silent otherwise."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        if not self.tty or not total:
            return
        width = 30
        fill = int(width * done / total)
        sys.stderr.write(f"\r{self.label} [{'#' * fill}{'.' * (width - fill)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def emit(args: argparse.Namespace, data: object, human: str) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=None) if args.json else human)


def open_engine(args: argparse.Namespace, *, writer: bool) -> Rewind:
    """The profile's engine, with the settings the person saved for it (the options page)."""
    from ..profile.engine import Rewind

    directory = config.data_dir(override=args.data_dir)
    return Rewind.open(directory, profile_settings.apply(Settings(), directory), writer=writer)
