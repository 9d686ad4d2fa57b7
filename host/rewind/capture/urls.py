"""The one URL canonicaliser: pages are keyed by the URL this module returns.

Drops fragments, tracking parameters and default ports; lower-cases scheme and
host; sorts nothing else (query order can matter to a site). Must never fetch
or resolve anything: it is pure string work on hostile input.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..errors import Code, RewindError

ALLOWED_SCHEMES = ("http", "https", "file", "rewind")  # rewind: ids of ingested documents

# Parameters that identify a campaign or a click, not a page.
_TRACKING_EXACT = {
    "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "mc_cid", "mc_eid", "igshid",
    "yclid", "_hsenc", "_hsmi", "mkt_tok", "ref_src", "ref_url", "spm", "si", "__s",
}
_TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_", "oly_", "vero_")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _is_tracking(name: str) -> bool:
    low = name.lower()
    return low in _TRACKING_EXACT or low.startswith(_TRACKING_PREFIXES)


def normalize(url: str, max_chars: int = 8192) -> str:
    """Canonical form of `url`, or RewindError(BAD_REQUEST) saying why it is not a URL."""
    if not isinstance(url, str) or not url.strip():
        raise RewindError(Code.BAD_REQUEST, "The URL is empty.")
    url = url.strip()
    if len(url) > max_chars:
        raise RewindError(Code.TOO_LARGE, f"The URL is longer than {max_chars} characters.")
    if _CONTROL.search(url):
        raise RewindError(Code.BAD_REQUEST, "The URL contains control characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise RewindError(Code.BAD_REQUEST, f"Not a valid URL: {url[:200]!r} ({exc}).") from None
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise RewindError(
            Code.BAD_REQUEST,
            f"Not a valid URL: {url[:200]!r}.",
            f"Rewind records {', '.join(ALLOWED_SCHEMES)} URLs only.",
        )
    host = (parts.hostname or "").lower().rstrip(".")
    if scheme in ("http", "https") and not host:
        raise RewindError(Code.BAD_REQUEST, f"Not a valid URL (no host): {url[:200]!r}.")
    # Credentials (user:pass@) are never kept in a stored URL.
    netloc = f"[{host}]" if ":" in host else host  # IPv6 literal
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc = f"{netloc}:{port}"
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
             if not _is_tracking(k)]
    path = parts.path or ("/" if scheme in ("http", "https") else "")
    return urlunsplit((scheme, netloc, path, urlencode(query, doseq=True), ""))


def domain(url: str) -> str:
    """The host of a normalised URL without a leading 'www.', or '' (file URLs)."""
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host
