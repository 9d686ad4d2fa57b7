"""`rewind reindex [--model NAME [--dim D]]` and `rewind models use NAME [--dim D]`: the
embedding job (profile/reembedding.py) in the foreground with a progress bar, or, when another
process (the browser's host) is running it, attached to it: its progress read from the
store until it ends. Ctrl-C stops the foreground job after its batch; it stays recorded,
and the host or the same command again resumes it.
This module must never hold logic the host needs: it parses, calls, prints.
"""

from __future__ import annotations

import argparse
import sys
import time

from ..errors import Code, RewindError
from ..humanize import duration
from .common import emit, open_engine

ATTACH_POLL_S = 1.0


class JobBar:
    """'Re-embedding with NAME: 41 % — about 2 h left' on stderr when it is a terminal."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.seen: list[tuple[float, int]] = []  # (time, done): the rate when attached

    def __call__(self, st: dict | None) -> None:
        if st is None or not self.tty or st.get("done") is None:
            return
        now = time.monotonic()
        self.seen = [*self.seen[-20:], (now, st["done"])]
        eta = st.get("eta_s")
        if eta is None and len(self.seen) > 1 and self.seen[-1][1] > self.seen[0][1]:
            rate = (self.seen[-1][1] - self.seen[0][1]) / (self.seen[-1][0] - self.seen[0][0])
            eta = (st["total"] - st["done"]) / rate
        width = 30
        fill = int(width * st["done"] / st["total"]) if st["total"] else width
        left = f" — about {_hours(eta)} left" if eta is not None else ""
        sys.stderr.write(f"\rRe-embedding with {st['model']}: [{'#' * fill}{'.' * (width - fill)}]"
                         f" {st['done']}/{st['total']}{left}\x1b[K")
        sys.stderr.flush()

    def end(self) -> None:
        if self.tty and self.seen:
            sys.stderr.write("\n")


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.0f} h" if seconds >= 5400 else duration(seconds)


def cmd_reindex(args: argparse.Namespace) -> int:
    from ..profile import embedding_job as record
    from ..profile.reembedding import Reembedder, model_id_for, reindex

    target = model_id_for(args.model, args.dim) if args.model else None
    if args.dim is not None and not args.model:
        raise RewindError(Code.BAD_REQUEST, "--dim goes with --model.",
                          "`rewind reindex --model NAME --dim D`.")
    bar = JobBar()
    with open_engine(args, writer=True) as eng:
        before = eng.model_id()
        job = record.read(eng.reader())
        if job is not None and job.owner_alive():
            if target not in (None, job.target):
                raise RewindError(
                    Code.STORE_LOCKED, f"Another Rewind process (pid {job.owner}) is "
                    f"re-embedding for {job.target}.",
                    "Wait for it, or cancel it from the options page, then try again.")
            result = _attach(eng, bar)
        elif target is None:
            result = reindex(eng, progress=bar)
        else:
            runner = Reembedder(eng, background=False)
            bar(runner.start(target))
            runner.run(progress=bar)
            result = {"embedded_passages": eng.reader().passage_count(),
                      "text_docs": eng.text_index.num_docs()}
        bar.end()
        result = {**result, "embedding_model": eng.model_id(), "was": before}
    switched = result["embedding_model"] != before
    emit(args, result, (f"now searching with {result['embedding_model']} (was {before}); "
                        if switched else "") + f"{result['embedded_passages']} passages "
         f"embedded; text index has {result['text_docs']} passages")
    return 0


def _attach(eng, bar: JobBar) -> dict:
    """Show another process's job until it ends (read from the store)."""
    from ..profile import embedding_job as record
    from ..profile.reembedding import status

    print("attached to the job the browser's host is running (Ctrl-C detaches; the job "
          "goes on)", file=sys.stderr)
    while (job := record.read(eng.reader())) is not None and job.owner_alive():
        bar(status(eng))
        time.sleep(ATTACH_POLL_S)
    return {"embedded_passages": eng.reader().passage_count() - eng.reader().unembedded(
        eng.model_id()), "text_docs": eng.text_index.num_docs()}


def cmd_models_use(args: argparse.Namespace) -> int:
    if not args.name:
        raise RewindError(Code.BAD_REQUEST, "Which model? `rewind models use NAME [--dim D]`.",
                          "`rewind models` lists the names.")
    args.model = args.name
    return cmd_reindex(args)


def register_reindex(command) -> None:
    sp = command("reindex", cmd_reindex, "rebuild derived indexes and embed what lacks a "
                 "vector; --model switches models (a resumable job, search keeps working)")
    sp.add_argument("--model", help="embedding model to switch to (see `rewind models`)")
    sp.add_argument("--dim", type=int, help="with --model: a Matryoshka dimension it allows")
