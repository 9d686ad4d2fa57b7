"""The sensitive-page policy as data: `policy.json` read and checked into records.

`policy.json` lives beside this module; policy.py classifies URLs with it and
extension/lib/policy.js does the same in the browser. Its format:

    {"version": 1, "categories": [{
        "id": "finance",                      # [a-z][a-z0-9-]*, unique
        "label": "Banking, payments and investing",
        "why": "looks like a bank, payment or investment account",   # what a person reads
        "default": true,                      # on unless the person switches it off
        "domains":  ["chase.com", ...],       # the host or any host under it
        "hosts":    ["webmail\\.[a-z0-9.-]+"],# regex over the whole host
        "prefixes": ["github.com/settings"],  # this host, and a path starting with these segments
        "paths":    ["/(wallet|billing)", "settings/tokens"],   # whole path segments, below
        "searches": [{"host": "bing\\.com", "path": "/search", "params": ["q"]}],
        "signals": {"apps": ["Nextcloud"],   # names a page declares itself (content check)
                    "terms": {"de": ["kontostand", "überweisung*"], ...}}   # topic words
    }, ...]}

Every rule is optional but a category needs one. `signals` are not URL rules: they are what
the host's content check (content_lexicon.py, sensitive.py) recognises the category's pages
by on a site no list knows — the app names a page declares (application-name, generator...)
and topic words by language (lower case; a trailing "*" matches any ending of the last word).

"Host" always means the host name in lower case without a trailing dot and without a
leading "www.". A path pattern is a list of segment
regexes joined by "/"; each must match one whole path segment (percent-decoded, lower case),
the segments consecutive; a leading "/" anchors it at the first segment, otherwise it may
start at any segment. So "checkout" matches /cart/checkout but not /how-to-checkout-books.
A search rule matches when the host and the whole path match its regexes and one of its
query parameters has a non-blank value. Categories are tried in file order, the first match
wins. Regexes use only syntax that JavaScript and Python read alike: lower case, no flags, no
named or look-around groups (only "(?:"), escapes \\d and punctuation only, no "^" or "$"
(the matcher anchors), no "{,n}".
This module must never fetch anything: it reads one file and checks every entry.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

_ID = re.compile(r"[a-z][a-z0-9-]*")
_HOSTNAME = re.compile(r"[a-z0-9-]+(\.[a-z0-9-]+)+")
_RULE_KEYS = ("domains", "hosts", "prefixes", "paths", "searches")
_CATEGORY_KEYS = {"id", "label", "why", "default", "signals", *_RULE_KEYS}
_LANG = re.compile(r"[a-z]{2}")
_ALLOWED_ESCAPES = set("d.-+?*()[]{}|^$/\\")


class PolicyError(ValueError):
    """The policy file is not valid; the message names the bad entry."""


@dataclass(frozen=True)
class Search:
    host: re.Pattern[str]
    path: re.Pattern[str]
    params: tuple[str, ...]
    source: str  # the host regex as written, to name the rule


@dataclass(frozen=True)
class Category:
    id: str
    label: str
    why: str
    default: bool
    domains: tuple[str, ...] = ()
    hosts: tuple[re.Pattern[str], ...] = ()
    prefixes: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (host, path segments)
    paths: tuple[tuple[bool, tuple[re.Pattern[str], ...]], ...] = ()  # (anchored, segments)
    searches: tuple[Search, ...] = ()
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    apps: tuple[str, ...] = ()  # app names its pages declare (lower case)
    terms: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)  # by language
    # the domains as a set: a site is looked up by its suffixes, not compared with each
    # domain in turn (a history import screens thousands of addresses at once)
    domain_set: frozenset[str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "domain_set", frozenset(self.domains))


@dataclass(frozen=True)
class Policy:
    version: int
    categories: tuple[Category, ...]

    def category(self, category_id: str) -> Category | None:
        return next((c for c in self.categories if c.id == category_id), None)


def _portable(where: str, pattern: object) -> re.Pattern[str]:
    if not isinstance(pattern, str) or not pattern:
        raise PolicyError(f"{where}: a regex must be a non-empty string.")
    problem = ""
    if "(?" in pattern.replace("(?:", ""):
        problem = "a flag, named or look-around group (only (?: is portable)"
    elif pattern != pattern.lower():
        problem = "upper case (subjects are lower case; \\D, \\W, \\S, \\B read differently)"
    elif "{," in pattern or "&&" in pattern or "~~" in pattern or "[[" in pattern:
        problem = "a construct JavaScript and Python read differently"
    else:
        i = 0
        while i < len(pattern):
            ch = pattern[i]
            if ch == "\\":
                nxt = pattern[i + 1] if i + 1 < len(pattern) else ""
                if nxt not in _ALLOWED_ESCAPES:
                    problem = f"the escape \\{nxt} (only \\d and punctuation are portable)"
                    break
                i += 2
                continue
            if ch == "$" or (ch == "^" and (i == 0 or pattern[i - 1] != "[")):
                problem = "an anchor (the matcher anchors every regex itself)"
                break
            i += 1
    if problem:
        raise PolicyError(f"{where}: {pattern!r} uses {problem}.")
    try:
        return re.compile(f"(?:{pattern})", re.ASCII)
    except re.error as exc:
        raise PolicyError(f"{where}: {pattern!r} is not a valid regex ({exc}).") from None


def _strings(where: str, value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise PolicyError(f"{where}: expected a list of non-empty strings.")
    return value


def _segment_patterns(where: str, text: str) -> tuple[bool, tuple[re.Pattern[str], ...]]:
    anchored = text.startswith("/")
    parts = text[1:].split("/") if anchored else text.split("/")
    if not parts or any(not p for p in parts):
        raise PolicyError(f"{where}: {text!r} has an empty segment.")
    return anchored, tuple(_portable(where, p) for p in parts)


def _signals(where: str, raw: object) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """A category's page signals: {"apps": [names], "terms": {language: [words]}}."""
    if raw is None:
        return (), {}
    if not isinstance(raw, dict) or not set(raw) <= {"apps", "terms"}:
        raise PolicyError(f"{where}: expected {{apps, terms}}.")
    apps = _strings(f"{where}.apps", raw.get("apps", []))
    terms = raw.get("terms", {})
    if not isinstance(terms, dict):
        raise PolicyError(f"{where}.terms: expected an object of language -> words.")
    out = {}
    for lang, words in terms.items():
        if not _LANG.fullmatch(lang):
            raise PolicyError(f"{where}.terms: {lang!r} is not a two-letter language code.")
        words = _strings(f"{where}.terms.{lang}", words)
        bad = [w for w in words if w != w.lower() or len(w) > 60
               or not any(ch.isalpha() for ch in w)]
        if bad:
            raise PolicyError(f"{where}.terms.{lang}: {bad[0]!r} must be lower case, hold a "
                              "letter (a number alone is in every page) and be at most 60 "
                              "characters.")
        out[lang] = tuple(words)
    return tuple(a.lower() for a in apps), out


def _category(where: str, raw: object, seen: dict[str, str]) -> Category:
    if not isinstance(raw, dict):
        raise PolicyError(f"{where}: a category must be an object.")
    unknown = set(raw) - _CATEGORY_KEYS
    if unknown:
        raise PolicyError(f"{where}: unknown key(s) {sorted(unknown)}; known: "
                          f"{sorted(_CATEGORY_KEYS)}.")
    cid = raw.get("id")
    if not isinstance(cid, str) or not _ID.fullmatch(cid):
        raise PolicyError(f"{where}: id {cid!r} must match [a-z][a-z0-9-]*.")
    where = f"{where} ({cid})"
    if cid in seen or cid in ("paused", "excluded"):
        raise PolicyError(f"{where}: the id {cid!r} is used twice or reserved.")
    for key in ("label", "why"):
        v = raw.get(key)
        if not isinstance(v, str) or not v.strip() or len(v) > 100:
            raise PolicyError(f"{where}.{key}: expected a string of 1-100 characters.")
    if not isinstance(raw.get("default"), bool):
        raise PolicyError(f"{where}.default: expected true or false.")
    if not any(raw.get(k) for k in _RULE_KEYS):
        raise PolicyError(f"{where}: a category needs at least one rule.")
    domains = _strings(f"{where}.domains", raw.get("domains", []))
    for i, d in enumerate(domains):
        if not _HOSTNAME.fullmatch(d) or d.startswith("www."):
            raise PolicyError(f"{where}.domains[{i}]: {d!r} is not a lower-case host name "
                              "without 'www.'.")
        if d in seen:
            raise PolicyError(f"{where}.domains[{i}]: {d!r} is already in {seen[d]}.")
        seen[d] = cid
    hosts = tuple(_portable(f"{where}.hosts[{i}]", h)
                  for i, h in enumerate(_strings(f"{where}.hosts", raw.get("hosts", []))))
    prefixes = []
    for i, p in enumerate(_strings(f"{where}.prefixes", raw.get("prefixes", []))):
        host, _, path = p.partition("/")
        segs = tuple(s for s in path.split("/") if s)
        if not _HOSTNAME.fullmatch(host) or host.startswith("www.") or not segs or p != p.lower():
            raise PolicyError(f"{where}.prefixes[{i}]: {p!r} must be 'host/path' in lower case "
                              "(host without 'www.').")
        prefixes.append((host, segs))
    paths = tuple(_segment_patterns(f"{where}.paths[{i}]", p)
                  for i, p in enumerate(_strings(f"{where}.paths", raw.get("paths", []))))
    searches = []
    raw_searches = raw.get("searches", [])
    if not isinstance(raw_searches, list):
        raise PolicyError(f"{where}.searches: expected a list.")
    for i, s in enumerate(raw_searches):
        w = f"{where}.searches[{i}]"
        if not isinstance(s, dict) or set(s) != {"host", "path", "params"}:
            raise PolicyError(f"{w}: expected {{host, path, params}}.")
        searches.append(Search(_portable(f"{w}.host", s["host"]), _portable(f"{w}.path", s["path"]),
                               tuple(_strings(f"{w}.params", s["params"])), s["host"]))
    sources = {k: tuple(v["host"] if isinstance(v, dict) else v for v in raw.get(k, []))
               for k in _RULE_KEYS}
    apps, terms = _signals(f"{where}.signals", raw.get("signals"))
    return Category(cid, raw["label"].strip(), raw["why"].strip(), raw["default"],
                    tuple(domains), hosts, tuple(prefixes), paths, tuple(searches), sources,
                    apps, terms)


def parse_policy(raw: object) -> Policy:
    """A validated Policy from the decoded JSON, or PolicyError naming the bad entry."""
    if not isinstance(raw, dict) or set(raw) != {"version", "categories"}:
        raise PolicyError("policy: expected an object with 'version' and 'categories' only.")
    if raw["version"] != 1:
        raise PolicyError(f"policy: version {raw['version']!r} is not supported (1 is).")
    cats = raw["categories"]
    if not isinstance(cats, list) or not cats:
        raise PolicyError("policy.categories: expected a non-empty list.")
    seen: dict[str, str] = {}
    out = []
    for i, c in enumerate(cats):
        cat = _category(f"categories[{i}]", c, seen)
        seen[cat.id] = cat.id
        out.append(cat)
    return Policy(1, tuple(out))


def load_policy(path: Path | None = None) -> Policy:
    """The policy in `path`, by default the one shipped beside this module."""
    try:
        text = (path.read_text(encoding="utf-8") if path is not None else
                resources.files(__package__).joinpath("policy.json").read_text(encoding="utf-8"))
        raw = json.loads(text)
    except (OSError, json.JSONDecodeError) as exc:
        raise PolicyError(f"{path or 'policy.json'}: cannot be read ({exc}).") from None
    return parse_policy(raw)
