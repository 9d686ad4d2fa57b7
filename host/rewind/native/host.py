"""The native messaging host (`rewind serve`): what the browser starts.

It checks the caller's origin, reads frames on stdin, hands each checked request to a
lane (one writer thread, a small read pool, one slow thread, one for downloads), writes
replies on stdout under a lock, and exits within a second of EOF. `rewind send`
(client.py) starts it exactly as a browser does.
This module must never write anything but frames to the real stdout (fd 1 is
pointed at stderr while serving, so a stray print cannot corrupt the stream),
and never log page text or queries.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import config
from ..config import Settings
from ..errors import Code, RewindError, disk_full
from ..index.store.store import storage_error
from .context import Cancelled, Ctx, Handler, Session
from .framing import FrameTooLarge, Id, Oversized, Read, Truncated, encode, frames
from .handlers import HANDLERS, schemas
from .identity import allowed_origins
from .process import (
    LOG_FILE,
    limit_malloc_arenas,
    log_path,
    protect_stdout,
    read_stdin,
    setup_logging,
)
from .replies import error_from, error_reply, ok_reply
from .requests import ProtocolError, Request, parse_request
from .resting import Resting, session_busy, session_ended, session_parts

log = logging.getLogger("rewind.host")


# ---- output -----------------------------------------------------------------------------


class Output:
    """Writes whole frames, one at a time, to the browser; survives a closed pipe."""

    def __init__(self, write: Callable[[bytes], None], max_frame: int) -> None:
        self._write = write
        self.max_frame = max_frame
        self._lock = threading.Lock()
        self.closed = False
        self.frames = 0

    def send_frames(self, frames: list[bytes]) -> None:
        with self._lock:
            for data in frames:
                if self.closed:
                    return
                if len(data) > self.max_frame:  # never: the packers guarantee it
                    raise FrameTooLarge(f"{len(data)}-byte frame refused")
                try:
                    self._write(data)
                    self.frames += 1
                except OSError as exc:  # the browser went away: keep shutting down quietly
                    self.closed = True
                    log.info("output closed: %s", exc)

    def send(self, msg: dict[str, Any]) -> None:
        try:
            data = encode(msg, self.max_frame)
        except (FrameTooLarge, ValueError) as exc:
            log.error("reply to %r not sendable: %s", msg.get("id"), exc)
            data = encode(
                error_reply(
                    msg.get("id"),
                    Code.INTERNAL,
                    f"The reply could not be sent ({exc}). This is a bug in Rewind's host: "
                    f"please report it with {LOG_FILE}.",
                ),
                self.max_frame,
            )
        self.send_frames([data])


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


# ---- lanes ------------------------------------------------------------------------------


@dataclass
class Job:
    req: Request
    handler: Handler
    ctx: Ctx


class Lane:
    """Threads taking jobs from one queue in order; `workers=1` serialises (writes)."""

    def __init__(self, name: str, workers: int, size: int, run: Callable[[Job], None]):
        self.name = name
        self._queue: queue.Queue[Job | None] = queue.Queue(maxsize=size)
        self._run = run
        self._threads = [
            threading.Thread(target=self._loop, name=f"{name}-{i}", daemon=True)
            for i in range(workers)
        ]
        for t in self._threads:
            t.start()

    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            self._run(job)

    def submit(self, job: Job) -> None:
        self._queue.put(job)  # blocks the reader when the lane is full: back-pressure

    def stop(self) -> None:
        for _ in self._threads:
            self._queue.put(None)

    def join(self, deadline: float) -> bool:
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in self._threads)


# ---- the host ---------------------------------------------------------------------------


def _error_for(exc: BaseException, req: Request) -> dict[str, Any]:
    if isinstance(exc, RewindError):
        return error_from(req.id, exc)
    if isinstance(exc, Cancelled):
        return error_reply(req.id, Code.CANCELLED, "Cancelled.")
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return error_from(req.id, disk_full(exc.filename or ".", "nothing was written"))
    if isinstance(exc, sqlite3.Error):
        err = storage_error(exc)  # a full disk, a busy or damaged store: said as such
        if err.code != Code.INTERNAL:
            return error_from(req.id, err)
    return error_reply(
        req.id,
        Code.INTERNAL,
        f"Rewind's host failed on {req.type} ({type(exc).__name__}). This is a bug: please "
        f"report it with the host log ({LOG_FILE} in Rewind's data directory).",
    )


class Host:
    def __init__(self, out: Output, session: Session) -> None:
        self.out = out
        self.session = session
        s = session.settings
        self._inflight: dict[Id, Job] = {}
        self._lock = threading.Lock()
        self.lanes = {
            "write": Lane("write", 1, s.host_queue_size, self._run),
            "read": Lane("read", s.host_read_workers, s.host_queue_size, self._run),
            "slow": Lane("slow", 1, s.host_queue_size, self._run),
            "download": Lane("download", 1, s.host_queue_size, self._run),
        }
        session.busy = self.busy
        # What nobody uses is let go after its idle time (resting.py); a request's end
        # wakes the timer.
        self.resting = Resting(functools.partial(session_parts, session),
                               busy=functools.partial(session_busy, session),
                               ended=functools.partial(session_ended, session))
        self.resting.start()

    def busy(self) -> bool:
        """Whether an interactive request is in flight (the embedding job gives way to it);
        a `reindex` follower waits on the job and a model download on the network: neither
        counts."""
        with self._lock:
            return any(
                job.req.type not in ("reindex", "pull_model") for job in self._inflight.values()
            )

    # -- requests --

    def on_payload(self, payload: bytes) -> None:
        try:
            req = parse_request(payload, schemas(self.session.settings))
        except ProtocolError as exc:
            log.info("refused frame of %d bytes: %s", len(payload), exc.code.value)
            self.out.send(error_from(exc.req_id, exc))
            return
        self.dispatch(req)

    def dispatch(self, req: Request) -> None:
        handler = HANDLERS[req.type]
        if handler.needs_engine and self.session.engine is None:
            self.out.send(
                error_reply(
                    req.id,
                    Code.BAD_REQUEST,
                    "Send hello first: it says which profile to use.",
                )
            )
            return
        ctx = Ctx(req, self.session, self.out.send_frames, cancel_request=self.cancel_request)
        job = Job(req, handler, ctx)
        with self._lock:
            if req.id in self._inflight:
                busy = True
            else:
                busy = False
                self._inflight[req.id] = job
        if busy:
            self.out.send(
                error_reply(
                    req.id,
                    Code.BAD_REQUEST,
                    f"Request id {req.id!r} is still in use by an unfinished request; "
                    "give each request its own id.",
                )
            )
            return
        if handler.lane == "inline":
            self._run(job)
        else:
            self.lanes[handler.lane].submit(job)

    def _run(self, job: Job) -> None:
        req, ctx = job.req, job.ctx
        start = time.perf_counter()
        began = self.resting.clock()
        outcome = "ok"
        try:
            if ctx.cancel.is_set():
                raise Cancelled
            fields = job.handler.fn(ctx)
            if fields is None:
                reply = None  # the handler sent its frames, the last one included
            elif ctx.cancel.is_set() and job.handler.lane != "write":
                raise Cancelled  # (a write that ran is reported: it happened)
            else:
                reply = ok_reply(req.id, **fields)
        except BaseException as exc:  # every request ends with a frame, whatever happened
            reply = _error_for(exc, req)
            outcome = reply["error"]["code"]
            if outcome == Code.INTERNAL.value:
                log.exception("request id=%r type=%s failed", req.id, req.type)
            if not isinstance(exc, Exception):
                raise
        finally:
            with self._lock:
                self._inflight.pop(req.id, None)
            self.resting.ended(began)
        if reply is not None:
            self.out.send(reply)
        log.info(
            "id=%r type=%s lane=%s %.1f ms %s",
            req.id,
            req.type,
            job.handler.lane,
            (time.perf_counter() - start) * 1000,
            outcome,
        )

    def cancel_request(self, target: Id) -> bool:
        with self._lock:
            job = self._inflight.get(target)
        if job is None or job.req.type == "cancel":
            return False
        job.ctx.cancel.set()
        return True

    # -- the stream --

    def serve_stream(self, read: Read) -> int:
        """Reads frames until EOF; returns once every lane has stopped (or the grace ran out)."""
        max_bytes = self.session.settings.max_request_bytes
        try:
            for got in frames(read, max_bytes):
                if isinstance(got, Oversized):
                    log.info("refused a %d-byte frame", got.declared)
                    self.out.send(
                        error_reply(
                            got.id_hint,
                            Code.TOO_LARGE,
                            f"The request is {got.declared} bytes; this host takes at most "
                            f"{max_bytes}. It was skipped.",
                        )
                    )
                    continue
                self.on_payload(got)
            log.info("EOF: the browser closed the port")
        except Truncated as exc:
            log.info("truncated frame: %s", exc)
            self.out.send(
                error_reply(
                    exc.id_hint,
                    Code.BAD_FRAME,
                    f"The stream ended inside a frame ({exc}); the host is exiting.",
                )
            )
        return self.shutdown()

    def shutdown(self) -> int:
        """Cancel reads (nobody is listening), let queued writes finish within the grace."""
        deadline = time.monotonic() + self.session.settings.host_exit_grace_s
        with self._lock:
            jobs = list(self._inflight.values())
        for job in jobs:
            if job.handler.lane != "write":
                job.ctx.cancel.set()
        for lane in self.lanes.values():
            lane.stop()
        idle = all([lane.join(deadline) for lane in self.lanes.values()])
        self.resting.stop()
        if not idle:
            log.warning(
                "exiting with work in flight (a write not acknowledged is retried by the extension)"
            )
            return -1
        self.session.close()
        return 0


def serve(origin: str, data_dir_override: str | os.PathLike[str] | None = None) -> int:
    """Serve one browser connection on stdin/stdout; the return value is the exit code."""
    settings = Settings()
    out_fd = protect_stdout()
    handler = setup_logging(log_path(data_dir_override), settings)
    out = Output(functools.partial(write_all, out_fd), settings.max_reply_frame_bytes)
    allowed = allowed_origins()
    if origin not in allowed:
        log.warning("refused origin %r (allowed: %s)", origin, allowed)
        hint = (
            f"Run `{config.setup_command()}` to register the host for this extension."
            if not allowed
            else "This host only answers the Rewind extension it was "
            f"installed for; run `{config.setup_command()}` again if its ID changed."
        )
        out.send(
            error_reply(None, Code.FORBIDDEN, f"Caller {origin[:100]!r} is not allowed. {hint}")
        )
        return 1
    log.info("serving %s (pid %d)", origin, os.getpid())
    limit_malloc_arenas(settings.host_malloc_arenas)  # before the lanes start their threads
    host = Host(out, Session(settings=settings, data_dir_override=data_dir_override))
    code = host.serve_stream(read_stdin)
    log.info("exit %d", code)
    handler.flush()
    if code < 0:
        os._exit(0)  # threads stuck in native code must not hold the process past 1 s
    return code
