"""Which pages are never recorded, by their URL: the sensitive-page policy and the classifier.

The policy is data, `policy.json` beside this module, read and checked by policy_file.py
(its format is described there), shared with the extension (extension/lib/policy.js
implements the same classifier; tests/data/policy_cases.json holds cases both must agree on).

The person's own rules come on top: paused sites and exclusion patterns refuse first
(rules.js's patternMatches, in weburl.py), then "always record" sites let a page through
whatever the built-in categories say, then the categories not switched off apply.
This module must never fetch or resolve anything: it is string work on hostile URLs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl

from .policy_file import Category, Policy
from .weburl import (
    WebUrl,
    host_matches,
    matches_pattern,
    parse_web_url,
    path_segments,
    pattern_matches,
    site_of,
)

__all__ = ["Rules", "Verdict", "category_table", "classify_url", "host_matches",
           "pattern_matches", "site_of"]

_PERSON_KEYS = ("disabled_categories", "always_record", "paused_sites", "blocklist")
MAX_RULE_ITEMS, MAX_RULE_CHARS = 500, 300  # as the extension's settings.js LIMITS


@dataclass(frozen=True)
class Rules:
    """The policy plus the person's own rules (as the extension keeps them)."""

    policy: Policy
    disabled: frozenset[str] = frozenset()  # category ids switched off
    always_record: tuple[str, ...] = ()  # sites recorded whatever the categories say
    paused_sites: tuple[str, ...] = ()
    blocklist: tuple[str, ...] = ()  # patterns, see pattern_matches

    @classmethod
    def from_dict(cls, policy: Policy, raw: object) -> Rules:
        """The person's rules as the extension sends them: {"disabled_categories",
        "always_record", "paused_sites", "blocklist"}, each a list of strings (all optional).
        Raises ValueError naming the bad field; unknown category ids are an error too."""
        if not isinstance(raw, dict):
            raise ValueError("rules: expected an object.")
        unknown = set(raw) - set(_PERSON_KEYS)
        if unknown:
            raise ValueError(f"rules: unknown field(s) {sorted(unknown)}; known: {_PERSON_KEYS}.")
        lists = {}
        for key in _PERSON_KEYS:
            value = raw.get(key, [])
            if (not isinstance(value, list) or len(value) > MAX_RULE_ITEMS
                    or not all(isinstance(v, str) and len(v) <= MAX_RULE_CHARS for v in value)):
                raise ValueError(f"rules.{key}: expected at most {MAX_RULE_ITEMS} strings of "
                                 f"at most {MAX_RULE_CHARS} characters.")
            lists[key] = tuple(v.strip() for v in value if v.strip())
        ids = {c.id for c in policy.categories}
        bad = [c for c in lists["disabled_categories"] if c not in ids]
        if bad:
            raise ValueError(f"rules.disabled_categories: unknown {bad}; known: {sorted(ids)}.")
        return cls(policy, frozenset(lists["disabled_categories"]), lists["always_record"],
                   lists["paused_sites"], lists["blocklist"])


@dataclass(frozen=True)
class Verdict:
    """Why a page is not recorded: `category` is a policy id, "paused" or "excluded"."""

    category: str
    label: str
    why: str
    rule: str
    hold: bool = False  # the content check is unsure: the person decides (profile/holding.py)

    def to_dict(self) -> dict[str, str]:
        return {"category": self.category, "label": self.label, "why": self.why,
                "rule": self.rule}


def _path_match(anchored: bool, pats: tuple[re.Pattern[str], ...], segs: list[str]) -> bool:
    last = len(segs) - len(pats)  # the last segment the pattern can start at
    first, rest = pats[0], pats[1:]
    for s in range(0, min(last, 0) + 1 if anchored else last + 1):
        if first.fullmatch(segs[s]) and all(p.fullmatch(segs[s + 1 + i])
                                            for i, p in enumerate(rest)):
            return True
    return False


def _suffixes(site: str) -> list[str]:
    """`a.b.example.com` -> itself, `b.example.com`, `example.com`, `com`."""
    parts = site.split(".")
    return [".".join(parts[i:]) for i in range(len(parts))]


def _match_category(cat: Category, u: WebUrl, segs: list[str], params: dict[str, str],
                    suffixes: list[str]) -> str:
    site = u.site
    if not cat.domain_set.isdisjoint(suffixes):
        # the first of the category's domains that matches, as the rule to name
        return next(f"domain {d}" for d in cat.domains if site == d or site.endswith(f".{d}"))
    for i, h in enumerate(cat.hosts):
        if h.fullmatch(site):
            return f"host {cat.sources['hosts'][i]}"
    for i, (host, prefix) in enumerate(cat.prefixes):
        if site == host and segs[: len(prefix)] == list(prefix):
            return f"prefix {cat.sources['prefixes'][i]}"
    for i, (anchored, pats) in enumerate(cat.paths):
        if _path_match(anchored, pats, segs):
            return f"path {cat.sources['paths'][i]}"
    for s in cat.searches:
        if s.host.fullmatch(site) and s.path.fullmatch(u.pathname.lower()) and any(
                params.get(p, "").strip() for p in s.params):
            return f"search {s.source}"
    return ""


def classify_url(url: str, rules: Rules) -> Verdict | None:
    """Why `url` must not be recorded, or None when it may be (also for non-web URLs:
    those are the caller's business)."""
    u = parse_web_url(url)
    if u is None:
        return None
    for site in rules.paused_sites:
        if host_matches(u.hostname, site):
            return Verdict("paused", "Paused site", f"you paused recording on {site_of(site)}",
                           f"paused {site}")
    for pattern in rules.blocklist:
        if matches_pattern(pattern, u):
            return Verdict("excluded", "Your exclusions",
                           f"matches your exclusion \u201c{pattern.strip()}\u201d",
                           f"pattern {pattern.strip()}")
    if any(host_matches(u.hostname, site) for site in rules.always_record):
        return None
    segs = path_segments(u.pathname)
    params: dict[str, str] = {}
    for k, v in parse_qsl(u.query, keep_blank_values=True):
        params.setdefault(k, v)
    suffixes = _suffixes(u.site)
    for cat in rules.policy.categories:
        if cat.id in rules.disabled:
            continue
        rule = _match_category(cat, u, segs, params, suffixes)
        if rule:
            return Verdict(cat.id, cat.label, cat.why, rule)
    return None


def category_table(policy: Policy) -> str:
    """The categories as a markdown table (docs/capture.md holds it; a test compares)."""
    rows = ["| Category (`id`) | Not recorded because it | Built-in rules | For example | "
            "Page signals |", "|:---|:---|---:|:---|:---|"]
    for c in policy.categories:
        n = sum(len(v) for v in c.sources.values())
        examples = [*c.domains[:3], *(f"{h}/{'/'.join(p)}" for h, p in c.prefixes[:1])]
        if not examples:  # search engines: a word of their host pattern
            words = [re.findall(r"[a-z][a-z0-9-]{2,}", re.sub(r"\[[^]]*\]", "", s.source))
                     for s in c.searches[:4]]
            names = [next((w for w in ws if w not in ("com", "www", "search", "html", "lite")),
                          "?") for ws in words]
            examples = [f"{', '.join(names)} result pages"]
        words = sum(len(w) for w in c.terms.values())
        signals = f"{words} words in {len(c.terms)} languages" + (
            f", {len(c.apps)} app names" if c.apps else "")
        rows.append(f"| {c.label} (`{c.id}`) | {c.why} | {n} | "
                    f"{', '.join(e.replace('|', '&#124;') for e in examples)} | {signals} |")
    return "\n".join(rows)
