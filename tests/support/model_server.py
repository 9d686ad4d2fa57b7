"""A local HTTP server laid out like a model host, for `rewind models pull` and the options
page's download: real HTTP on 127.0.0.1, real Range requests, real cut connections.

`files` maps URL paths to bytes. `plan` says how to answer the next requests, one mode
each, then "range" (honour Range): "drop" stops part way through the body (at `drop_at`,
or half way through the rest), "drop_then_down" does so and then stops the server, so
the next try finds nobody there (the network went down), "ignore_range" answers 200 with
the whole file, "from_zero" / "from_elsewhere" answer 206 from the wrong byte, "chunked_drop" cuts a
chunked answer off. `rate` (bytes a second) slows every body down (a download slow enough
to cancel). Every request is recorded, so tests see what the client really asked for.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
PIECE = 64 * 1024


@dataclass
class Request:
    path: str
    range: str | None
    status: int


@dataclass
class ModelHost:
    files: dict[str, bytes]
    plan: list[str] = field(default_factory=list)
    drop_at: int = 1_049_576  # a chunk of the client's (1 MiB) and 1,000 bytes
    rate: float | None = None  # bytes a second; None: as fast as it goes
    log: list[Request] = field(default_factory=list)
    sleeps: list[float] = field(default_factory=list)  # a test may record the client's back-off
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_mode(self) -> str:
        with self.lock:
            return self.plan.pop(0) if self.plan else "range"

    def record(self, path: str, rng: str | None, status: int) -> None:
        with self.lock:
            self.log.append(Request(path, rng, status))

    @property
    def ranges(self) -> list[str | None]:
        return [r.range for r in self.log]


def handler_for(host: ModelHost) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self.close_connection = True
            body = host.files.get(self.path)
            rng = self.headers.get("Range")
            mode = host.next_mode()
            if body is None:
                return self._send(404, b"not here", rng)
            n = len(body)
            if mode == "chunked_drop":  # 200, chunked, cut off without the last chunk
                host.record(self.path, rng, 200)
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Connection", "close")
                self.end_headers()
                for i in range(0, host.drop_at, PIECE):
                    piece = body[i : min(i + PIECE, host.drop_at)]
                    self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                self.wfile.flush()
                return
            start = 0
            m = re.fullmatch(r"bytes=(\d+)-", rng or "")
            if m and mode != "ignore_range":
                start = int(m.group(1))
                if mode == "from_zero":  # claims 206 but sends the file from byte 0
                    start = 0
                elif mode == "from_elsewhere":  # 206 from a byte that is not the one asked for
                    start = max(0, start - 10)
                elif start >= n:
                    return self._send(416, b"", rng, {"Content-Range": f"bytes */{n}"})
                headers = {"Content-Range": f"bytes {start}-{n - 1}/{n}"}
                status = 206
            else:
                headers, status = {}, 200
            end = n
            if mode in ("drop", "drop_then_down"):
                end = host.drop_at if start < host.drop_at else start + (n - start) // 2
            self._send(status, body[start:n], rng, headers, stop=end - start)
            if mode == "drop_then_down":  # closed before the client's retry (>= 1 s later)
                srv = self.server
                threading.Thread(target=lambda: (srv.shutdown(), srv.server_close())).start()

        def _send(self, status: int, body: bytes, rng: str | None,
                  headers: dict[str, str] | None = None, stop: int | None = None) -> None:
            host.record(self.path, rng, status)
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))  # the whole, even if cut off
            self.send_header("Connection", "close")
            self.end_headers()
            out = body[:stop]
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # client hung up
                for i in range(0, len(out), PIECE):
                    self.wfile.write(out[i : i + PIECE])
                    if host.rate:
                        time.sleep(PIECE / host.rate)
                self.wfile.flush()

    return Handler


@contextlib.contextmanager
def serving(host: ModelHost, port: int = 0) -> Iterator[ModelHost]:
    """Serve `host` on 127.0.0.1 (`port` 0: any free one) until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler_for(host))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    host.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield host
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
