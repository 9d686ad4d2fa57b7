"""Web pages for the browser demo and tests, served on this machine.

Job: `LocalSite` serves a folder on http://127.0.0.1 (a free port); `NamedSites` serves
pages under real host names (mail.google.com, www.paypal.com, ...) over TLS with a
throwaway self-signed certificate, routing by the Host header to `root/<host>/<path>`,
and gives the Chromium flags that send those names to it (`--host-resolver-rules`) and
accept its certificate (`--ignore-certificate-errors`: for test browsers only).
Never: listen beyond 127.0.0.1, serve a file outside its folder, or be used with a
person's own browser profile.
"""

from __future__ import annotations

import functools
import shutil
import ssl
import subprocess
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit


class SiteError(RuntimeError):
    """The site cannot be served; the message says what to install."""


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        pass  # one line per request would bury the output people read


def _serve(server: ThreadingHTTPServer, name: str) -> threading.Thread:
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    return thread


class LocalSite:
    """A folder served on 127.0.0.1 (a free port) from a background thread."""

    def __init__(self, root: Path) -> None:
        self.root = root
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = f"http://127.0.0.1:{self.server.server_port}"
        self._thread = _serve(self.server, "rewind-local-site")

    def url(self, path: str) -> str:
        return f"{self.base}/{path.lstrip('/')}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class _HostRouted(SimpleHTTPRequestHandler):
    """`https://<host>/<path>` -> `root/<host>/<path>`, `.../` -> index.html, and a path
    without a file extension may be a `.html` file (real sites have such addresses).
    `answers` maps "host/path" to (status, headers) for pages that answer otherwise (a
    sign-in required, a redirect), or to (status, headers, "without-cookie"): so answered
    only to a request that carries no cookie (a page shown to a signed-in person); `seen`
    records each request (host, path, its Cookie header)."""

    root: Path
    answers: dict[str, tuple]
    seen: list[tuple[str, str, str]]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        host = (self.headers.get("Host") or "").split(":")[0].lower()
        path = urlsplit(self.path).path
        self.seen.append((host, path, self.headers.get("Cookie") or ""))
        answer = self.answers.get(f"{host}{path}")
        if answer is None or (answer[2:] == ("without-cookie",) and self.headers.get("Cookie")):
            super().do_GET()
            return
        status, headers = answer[:2]
        body = f"<html><body><p>{status}</p></body></html>".encode()
        self.send_response(status)
        for k, v in {"Content-Type": "text/html", **headers}.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def translate_path(self, path: str) -> str:
        host = (self.headers.get("Host") or "").split(":")[0].lower()
        rel = unquote(urlsplit(path).path).lstrip("/")
        base = (self.root / host).resolve()
        target = (base / rel).resolve()
        if not host or not target.is_relative_to(base):
            return str(self.root / "__nothing__")  # 404
        if target.is_dir():
            target = target / "index.html"
        elif not target.exists() and target.with_name(target.name + ".html").exists():
            target = target.with_name(target.name + ".html")
        return str(target)

    def guess_type(self, path: Any) -> str:
        return "text/html" if str(path).endswith(".html") else super().guess_type(path)


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A throwaway certificate and key (openssl), valid two days."""
    openssl = shutil.which("openssl")
    if not openssl:
        raise SiteError("openssl is missing: `apt-get install openssl` (tests serve HTTPS).")
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "2", "-subj", "/CN=localhost"],
        check=True, capture_output=True,
    )
    return cert, key


class NamedSites:
    """Pages under real host names, over HTTPS on 127.0.0.1 (hosts are folders of `root`)."""

    def __init__(self, root: Path, cert_dir: Path, answers: dict[str, tuple] | None = None,
                 ) -> None:
        self.root = root
        self.seen: list[tuple[str, str, str]] = []  # (host, path, Cookie header) per request
        handler = type("Handler", (_HostRouted,), {"root": root, "answers": answers or {},
                                                    "seen": self.seen})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        cert, key = self_signed(cert_dir)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_port
        self._thread = _serve(self.server, "rewind-named-sites")

    def hosts(self) -> list[str]:
        answered = {key.split("/", 1)[0] for key in self.handler_answers()}
        return sorted({p.name for p in self.root.iterdir() if p.is_dir()} | answered)

    def handler_answers(self) -> dict[str, tuple]:
        return self.server.RequestHandlerClass.answers

    def chromium_args(self) -> list[str]:
        """Send every host of `root` here; accept the self-signed certificate (tests only)."""
        rules = ", ".join(f"MAP {h} 127.0.0.1:{self.port}" for h in self.hosts())
        return [f"--host-resolver-rules={rules}", "--ignore-certificate-errors"]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
