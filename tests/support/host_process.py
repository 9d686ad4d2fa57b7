"""The real native host as a test peer: started the way Chrome starts it (framing over
pipes, the caller's origin as argv[1]), with a thread reading its reply frames."""

from __future__ import annotations

import json
import os
import queue
import struct
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXT_ID = "abcdefghijklmnopabcdefghijklmnop"
ORIGIN = f"chrome-extension://{EXT_ID}/"
MIB = 1_048_576
EXIT_S = 1.0  # the host must be gone this long after EOF


def frame_bytes(obj: dict) -> bytes:
    data = json.dumps(obj).encode()
    return struct.pack("=I", len(data)) + data


def page(i: int, words: str = "", n: int = 3, size: int = 0, visited: float = 1.7e9) -> dict:
    """Page `i` as the extension sends it to index_page: `n` passages of about `size` bytes
    over `words`, on one of three sites."""
    body = f"passage number {{}} of page {i} about {words} and graph index pruning " + "filler " * (
        size // 7
    )
    return {
        "url": f"https://site{i % 3}.example/p/{i}",
        "title": f"Page {i} {words}",
        "passages": [{"text": body.format(j), "position": j, "quality": 0.6} for j in range(n)],
        "content_hash": f"h{i}",
        "visited_at": visited + i,
        "dwell_s": 30.0,
    }


class HostProcess:
    """The real host, started the way Chrome starts it, with a frame reader thread."""

    def __init__(
        self,
        tmp: Path,
        *,
        origin: str = ORIGIN,
        data_dir: Path | None = None,
        model_dir: Path | None = None,
        allowed: str = ORIGIN,
    ) -> None:
        self.data_dir = data_dir or tmp / "data"
        env = dict(os.environ)
        env.update(
            {
                "PYTHONPATH": str(ROOT / "host"),
                "REWIND_DATA_DIR": str(self.data_dir),
                "REWIND_MODEL_DIR": str(model_dir or tmp / "no-models"),
                "REWIND_ALLOWED_ORIGINS": allowed,
            }
        )
        self.stderr = open(tmp / f"stderr-{time.monotonic_ns()}.txt", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "rewind", "serve", origin],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            cwd=tmp,
        )
        self.frames: queue.Queue[dict | None] = queue.Queue()
        self.sizes: list[int] = []
        self.ended: Counter = Counter()  # request id -> frames that ended it (must be 1)
        self.pending: dict[object, list[dict]] = {}
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            header = out.read(4)
            if len(header) < 4:
                self.frames.put(None)
                return
            (n,) = struct.unpack("=I", header)
            self.sizes.append(n + 4)
            payload = out.read(n)
            frame = json.loads(payload) if len(payload) == n else None
            if frame is not None and frame.get("done"):
                self.ended[json.dumps(frame.get("id"))] += 1
            self.frames.put(frame)

    # -- writing --

    def write(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, type_: str, **fields) -> int:
        self.next_id += 1
        self.write(frame_bytes({"id": self.next_id, "type": type_, **fields}))
        return self.next_id

    def close_stdin(self) -> None:
        self.proc.stdin.close()

    # -- reading --

    def next_frame(self, timeout: float = 20.0) -> dict | None:
        return self.frames.get(timeout=timeout)

    def replies(self, req_id, timeout: float = 30.0) -> list[dict]:
        """Every frame for `req_id`, up to and including the one that ends it."""
        got = self.pending.setdefault(req_id, [])
        deadline = time.monotonic() + timeout
        while not (got and got[-1]["done"]):
            frame = self.frames.get(timeout=max(0.01, deadline - time.monotonic()))
            assert frame is not None, f"host closed its output before answering {req_id}"
            assert isinstance(frame.get("done"), bool), frame
            self.pending.setdefault(frame["id"], []).append(frame)
        return self.pending.pop(req_id)

    def call(self, type_: str, **fields) -> dict:
        frames = self.replies(self.send(type_, **fields))
        assert len(frames) == 1, frames
        return frames[0]

    def ok(self, type_: str, **fields) -> dict:
        reply = self.call(type_, **fields)
        assert reply["ok"] is True, reply
        return reply

    def hello(self, profile: str = "default") -> dict:
        return self.ok("hello", protocol=1, profile=profile, client="tests")

    def wait_exit(self, timeout: float = 10.0) -> tuple[int, float]:
        start = time.monotonic()
        code = self.proc.wait(timeout)
        return code, time.monotonic() - start

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.stderr.close()
        assert all(s <= MIB for s in self.sizes), f"a frame over 1 MiB: {max(self.sizes)}"
        twice = [i for i, n in self.ended.items() if n > 1 and i not in ("null", '"same"')]
        assert not twice, f"requests ended more than once: {twice}"
