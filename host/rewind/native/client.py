"""`rewind send`: talk to the host exactly as a browser does, for debugging and scripts.

Starts `rewind serve` with the extension's origin, writes the given requests (a hello
first if there is none) or raw bytes as frames, prints every reply frame as one JSON
line, and says plainly when the host misbehaves (a frame a browser would drop, no reply,
no exit after EOF).
This module must never be used by the host itself: it is a client.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .. import config
from ..config import Settings
from .framing import HEADER, Oversized, Truncated, dumps, frame, frames
from .identity import ORIGINS_ENV, allowed_origins
from .requests import PROTOCOL_VERSION


def _reader(stream: Any, out: queue.Queue[tuple[str, bytes | str]], max_frame: int) -> None:
    """The host's frames into `out`, each checked against what a browser accepts."""
    try:
        for got in frames(stream.read, 64 * 1024 * 1024):
            if isinstance(got, Oversized):
                out.put(("bad", f"host declared a {got.declared}-byte frame"))
                break
            if HEADER.size + len(got) > max_frame:
                out.put(("bad", f"host sent a {HEADER.size + len(got)}-byte frame; "
                                f"a browser drops the port above {max_frame}"))
            out.put(("frame", got))
    except Truncated as exc:
        out.put(("bad", f"host output truncated: {exc}"))
    out.put(("eof", b""))


def send(
    messages: list[dict] | None,
    raw: bytes | None,
    profile: str,
    data_dir: str | os.PathLike[str] | None = None,
    timeout: float = 30.0,
) -> int:
    """Start the host as a browser does, send the messages (or raw bytes), print replies.

    Returns 0 when every request succeeded, 1 when a reply was an error, 2 when the
    host misbehaved (timeout, bad or oversized frame, crash) or could not start.
    """
    settings = Settings()
    origins = allowed_origins()
    if not origins:
        print(
            f"rewind send: no extension ID known. Set {ORIGINS_ENV} or create "
            f"extension/EXTENSION_ID ({config.setup_command()} does).",
            file=sys.stderr,
        )
        return 2
    env = dict(os.environ)
    env[ORIGINS_ENV] = ",".join(origins)
    pkg_parent = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH")) if p)
    if data_dir:
        env["REWIND_DATA_DIR"] = str(data_dir)
    if raw is None:
        msgs = [dict(m) for m in (messages or [])]
        if not msgs or msgs[0].get("type") != "hello":
            msgs.insert(
                0, {"type": "hello", "protocol": PROTOCOL_VERSION, "profile": profile}
            )
        msgs = [m if "id" in m else {"id": f"send-{i}", **m} for i, m in enumerate(msgs)]
        data = b"".join(frame(dumps(m), 1 << 32) for m in msgs)
        expected = len(msgs)
    else:
        data, expected = raw, None
    proc = subprocess.Popen(
        [sys.executable, "-m", "rewind", "serve", origins[0]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    frames: queue.Queue[tuple[str, bytes | str]] = queue.Queue()
    threading.Thread(
        target=_reader, args=(proc.stdout, frames, settings.max_reply_frame_bytes), daemon=True
    ).start()
    deadline = time.monotonic() + timeout
    status = 0
    try:
        proc.stdin.write(data)
        proc.stdin.flush()
    except OSError as exc:
        print(f"rewind send: the host stopped reading: {exc}", file=sys.stderr)
        status = 2
    finished = 0
    stdin_open = True
    while True:
        if stdin_open and (expected is None or finished >= expected or status == 2):
            proc.stdin.close()  # EOF: the host must now exit
            stdin_open = False
        try:
            kind, item = frames.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            print(f"rewind send: no reply within {timeout:g} s", file=sys.stderr)
            status = 2
            break
        if kind == "eof":
            break
        if kind == "bad":
            print(f"rewind send: {item}", file=sys.stderr)
            status = 2
            continue
        try:
            reply = json.loads(item)
        except ValueError:
            print(
                f"rewind send: the host sent a frame that is not JSON: {item[:200]!r}",
                file=sys.stderr,
            )
            status = 2
            continue
        print(json.dumps(reply, ensure_ascii=False), flush=True)
        if isinstance(reply, dict) and (reply.get("done") or reply.get("ok") is False):
            finished += 1
            if reply.get("ok") is False and status == 0:
                status = 1
    if stdin_open:
        proc.stdin.close()
    try:
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        print("rewind send: the host did not exit after EOF", file=sys.stderr)
        return 2
    if code != 0 and raw is None:
        print(f"rewind send: the host exited with {code}", file=sys.stderr)
        return 2
    return status
