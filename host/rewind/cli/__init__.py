"""`rewind`: the command line for debugging and scripting, over the same engine the host uses.

Human-readable output by default, `--json` for scripts, progress on stderr, and exit
codes: 0 ok, 1 a problem the message explains, 2 bad usage. Each module here registers
its commands: setup, library (the store), query (search, ask, context), data (forget,
export, import, log, reset), models, host, mcp (the AI tools' server).
This package must never hold logic the host needs: it parses, calls, prints.
"""

from __future__ import annotations

import argparse
import errno
import os
import sqlite3
import sys

# The program (CLI and host) scans vectors with one BLAS thread: the products are small and
# run beside ONNX and llama.cpp on 2 cores; two spinning BLAS threads made one 10k-row
# product 20 ms under load where one took 0.6 ms (docs/benchmarks.md). Before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .. import __version__, config  # noqa: E402
from ..errors import RewindError, disk_full  # noqa: E402
from . import data, host, library, mcp, models, query, setup  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rewind", description="Rewind: search what you have read.")
    p.add_argument("--version", action="version", version=f"rewind {__version__}")
    p.add_argument("--data-dir", help="the profile's data directory (or $REWIND_DATA_DIR)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, func, help_: str, json_flag: bool = True) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.set_defaults(func=func)
        if json_flag:
            sp.add_argument("--json", action="store_true", help="machine-readable output")
        return sp

    for module in (setup, library, query, data, models, host, mcp):
        module.register(command)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except RewindError as exc:
        print(f"rewind: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  {exc.hint}", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as exc:  # a damaged store read somewhere deep: said plainly
        from ..index.store.store import storage_error

        err = storage_error(exc)
        print(f"rewind: {err.message}", file=sys.stderr)
        if err.hint:
            print(f"  {err.hint}", file=sys.stderr)
        return 1
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
        err = disk_full(exc.filename or config.data_dir(override=args.data_dir), "it stopped")
        print(f"rewind: {err.message}\n  {err.hint}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `rewind search ... | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
