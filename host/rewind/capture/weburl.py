"""URLs as the browser reads them, and the person's own URL patterns.

The classifier in policy.py must see a URL exactly as extension/lib/policy.js does through the
WHATWG URL parser: lower-case scheme and host, host without its trailing dot (IDN as punycode),
default port dropped, "\\" read as "/" before the query, dot segments resolved, the path
percent-escaped as the browser escapes it. The person's patterns follow rules.js's
patternMatches. This module must never fetch or resolve anything: it is string work on
hostile input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

_LINE_BREAKS = re.compile("[\n\r\u2028\u2029]")
_DEFAULT_PORTS = {"http": 80, "https": 443}
# What the URL standard leaves unescaped in a path and in a special scheme's query.
_PATH_SAFE = "!$%&'()*+,/:;=@[\\]^|"
_QUERY_SAFE = "!$%&()*+,/:;=?@[\\]^`{|}"
_FRAGMENT_SAFE = "!$%&'()*+,/:;=?@[\\]^{|}#"
_BAD_HOST = re.compile(r"[\x00-\x20\"#%/<>?@\\^|\x7f]")


@dataclass(frozen=True)
class WebUrl:
    href: str  # as the browser writes it: lower-case scheme and host, escaped path
    hostname: str  # lower case, "www." kept
    pathname: str  # escaped, as in href
    query: str

    @property
    def site(self) -> str:
        return site_of(self.hostname)


def _remove_dots(path: str) -> str:
    out: list[str] = []
    segs = path.split("/")[1:]
    for i, seg in enumerate(segs):
        low = seg.lower()
        if low in (".", "%2e"):
            if i == len(segs) - 1:
                out.append("")
        elif low in ("..", ".%2e", "%2e.", "%2e%2e"):
            if out:
                out.pop()
            if i == len(segs) - 1:
                out.append("")
        else:
            out.append(seg)
    return "/" + "/".join(out)


def parse_web_url(url: object) -> WebUrl | None:
    if not isinstance(url, str) or len(url) > 8192:
        return None
    url = url.strip()
    # Browsers read "\\" as "/" before the query in http(s) URLs.
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    try:
        parts = urlsplit(url[:cut].replace("\\", "/") + url[cut:])
        port = parts.port
        host = (parts.hostname or "").rstrip(".")
        if host and not host.isascii():
            host = host.encode("idna").decode("ascii")
    except (ValueError, UnicodeError):
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not host or _BAD_HOST.search(host):
        return None
    host = host.lower()
    hostname = f"[{host}]" if ":" in host else host
    netloc = hostname if port in (None, _DEFAULT_PORTS[scheme]) else f"{hostname}:{port}"
    path = quote(_remove_dots(parts.path or "/"), safe=_PATH_SAFE)
    query = quote(parts.query, safe=_QUERY_SAFE)
    href = f"{scheme}://{netloc}{path}" + (f"?{query}" if query else "")
    if parts.fragment:
        href += "#" + quote(parts.fragment, safe=_FRAGMENT_SAFE)
    return WebUrl(href.lower(), hostname, path, parts.query)


def site_of(host: str) -> str:
    """Host without a leading 'www.', lower case (rules.js siteOf)."""
    host = host.lower()
    return host[4:] if host.startswith("www.") else host


def host_matches(host: str, domain: str) -> bool:
    """Does `host` equal `domain` or sit under it? (rules.js hostMatches)"""
    h = site_of(host)
    d = domain.strip()
    d = d[2:] if d.startswith("*.") else d
    d = site_of(d[:-1] if d.endswith(".") else d)
    return d != "" and (h == d or h.endswith(f".{d}"))


def _glob(pattern: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in pattern), re.DOTALL)


def _strip_scheme_www(text: str) -> str:
    text = re.sub(r"^https?://", "", text)
    return text[4:] if text.startswith("www.") else text


def pattern_matches(pattern: str, url: str) -> bool:
    """One of the person's patterns against a URL (rules.js patternMatches):
    with "*" a glob over the whole URL; with "/" a prefix of the URL without its scheme;
    with "." a domain and its subdomains; else a word in the host or path."""
    u = parse_web_url(url)
    return u is not None and matches_pattern(pattern, u)


def matches_pattern(pattern: str, u: WebUrl) -> bool:
    p = pattern.strip().lower()
    if not p:
        return False
    if "*" in p:
        return _glob(p).fullmatch(u.href) is not None
    if "/" in p:
        return _strip_scheme_www(u.href).startswith(_strip_scheme_www(p))
    if "." in p:
        return host_matches(u.hostname, p)
    return p in f"{u.hostname}{u.pathname}".lower()


def path_segments(pathname: str) -> list[str]:
    out = []
    for raw in pathname.split("/"):
        if not raw:
            continue
        try:
            seg = unquote(raw, errors="strict")
        except UnicodeDecodeError:
            seg = raw
        out.append(_LINE_BREAKS.sub(" ", seg).lower())
    return out
