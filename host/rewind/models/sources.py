"""Where a model's files are downloaded from: where each is published, or a mirror.

By default the address its publisher serves each file at (models.json's `url`, pinned
there with the file's sha256 and size). `--mirror` or `$REWIND_MODEL_MIRROR`
(docs/answers.md) names another place instead: either a URL template with `{repo}` and
`{path}` (and optionally `{file}`, `{model}`), filled from the file's `download` entry in
models.json ("<repo> <path>"), or a base URL to which `/<repo>/<path>` is appended. For
tests only, `$REWIND_TEST_MODEL_HOST` (scheme://host:port) stands in for the published
addresses' scheme and host, keeping their paths: a local server laid out like the model
host.
This module must never contact anything (download.py does), nor take a host from
models.json's fields into a mirror template (the host is the person's).
"""

from __future__ import annotations

import os
import re
import urllib.parse

from .. import config
from ..errors import Code, RewindError
from .specs import FileSpec, Spec

MIRROR_ENV = "REWIND_MODEL_MIRROR"
TEST_HOST_ENV = "REWIND_TEST_MODEL_HOST"  # tests only: a local server for the published host


def _check_base(url: str, what: str, env: str) -> str:
    if not re.match(r"^https?://", url):
        raise RewindError(
            Code.BAD_REQUEST,
            f"The {what} {url!r} is not an http(s) URL.",
            f"Give a URL starting with https:// (or http:// for a local server) ({env}).",
        )
    host = urllib.parse.urlsplit(url).netloc
    if not host or "{" in host:  # the host is the person's, never filled from models.json
        raise RewindError(
            Code.BAD_REQUEST,
            f"The {what} {url!r} does not name its host.",
            "Write the host out; fields go in the path, as in "
            "https://<model hub>/{repo}/resolve/main/{path}.",
        )
    return url


def mirror_setting(given: str | None = None) -> str | None:
    """--mirror, else $REWIND_MODEL_MIRROR, checked; None: the published addresses."""
    mirror = (given or os.environ.get(MIRROR_ENV, "")).strip()
    if not mirror:
        return None
    return _check_base(mirror, "mirror", f"--mirror or ${MIRROR_ENV}")


def test_host() -> str | None:
    """$REWIND_TEST_MODEL_HOST (tests only), checked; None when unset."""
    host = os.environ.get(TEST_HOST_ENV, "").strip().rstrip("/")
    if not host:
        return None
    _check_base(host, "test model host", f"${TEST_HOST_ENV}")
    if urllib.parse.urlsplit(host).path:
        raise RewindError(Code.BAD_REQUEST, f"${TEST_HOST_ENV} {host!r} has a path.",
                          "Give only scheme://host:port; the published paths are kept.")
    return host


def published_url(spec: Spec, f: FileSpec) -> str:
    """Where the file's publisher serves it (models.json), or the test host's copy."""
    if not f.url:
        raise RewindError(
            Code.NOT_AVAILABLE,
            f"{spec.name}/{f.name} is not downloadable.",
            f"It comes from a package: run `{config.setup_command()}`.",
        )
    host = test_host()
    if host is None:
        return f.url
    parts = urllib.parse.urlsplit(f.url)
    return host + urllib.parse.urlunsplit(("", "", parts.path, parts.query, ""))


def source_url(mirror: str | None, spec: Spec, f: FileSpec) -> str:
    """The address to fetch `f` from: the mirror's, when one is set, else the published."""
    return published_url(spec, f) if mirror is None else file_url(mirror, spec, f)


def source_note(mirror: str | None) -> str | None:
    """A line saying where downloads come from when it is not the usual place (or None)."""
    if mirror is not None:
        return f"downloading from the mirror {mirror}"
    host = test_host()
    if host is not None:
        return (f"${TEST_HOST_ENV} is set (tests only): downloading from {host} instead of "
                "the published addresses")
    return None


def file_url(mirror: str, spec: Spec, f: FileSpec) -> str:
    if not f.download:
        raise RewindError(
            Code.NOT_AVAILABLE,
            f"{spec.name}/{f.name} is not downloadable.",
            f"It comes from a package: run `{config.setup_command()}`.",
        )
    repo, _, path = f.download.partition(" ")
    if not repo or not path:
        raise RewindError(
            Code.INTERNAL,
            f"models.json: bad download entry {f.download!r} for {spec.name}/{f.name}.",
            "Report this as a bug.",
        )
    quote = urllib.parse.quote
    fields = {
        "repo": quote(repo),
        "path": quote(path),
        "file": quote(f.name),
        "model": quote(spec.name),
    }
    if "{" in mirror:
        try:
            return mirror.format(**fields)
        except (KeyError, IndexError, ValueError, AttributeError, TypeError) as exc:
            raise RewindError(
                Code.BAD_REQUEST,
                f"The mirror template {mirror!r} has an unknown field ({exc}).",
                "Use {repo}, {path}, {file} and {model} only.",
            ) from None
    return f"{mirror.rstrip('/')}/{fields['repo']}/{fields['path']}"
