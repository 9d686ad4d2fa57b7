"""The capture gate: what a page must pass before anything of it is stored, from any source.

The browser's extension decides first (its own copy of the policy, page signals such as
a password field, the person's pauses); the host decides again for every page, whoever
sends it (the extension, `rewind index`, `ingest`): the URL against the sensitive-page
policy and the person's own rules (`screen_url`), then the page's own text against the
content check (`screen_text`, after personal data was masked; with the page's own signals
from the extension, and never for a category the person switched off). A refusal is a
Verdict that names the category and says why in words (`hold`: the check is unsure and the
person decides); nothing of the page is kept here.
This module must never store, log or return page text: it answers yes or why not.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .page_signals import PageSignals
from .policy import Rules, Verdict, classify_url
from .policy_file import Policy, load_policy
from .sensitive import ContentCheck
from .weburl import host_matches, parse_web_url

log = logging.getLogger("rewind.capture")

RULES_FILE = "capture_rules.json"  # the person's rules and masking choice (set_rules)


@lru_cache(maxsize=1)
def policy() -> Policy:
    """The shipped policy, read and checked once a process (a bad file is an error)."""
    return load_policy()


@dataclass(frozen=True)
class PersonsChoices:
    """What the person decided about recording, as the extension last sent it."""

    rules: Rules
    redact: bool = True  # mask personal data (on unless the person switched it off)


def load_choices(data_dir: Path) -> PersonsChoices:
    """The person's choices saved for this profile; none (or a damaged file: logged) → the
    built-in policy alone and masking on, which is the safe side."""
    path = data_dir / RULES_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        rules = Rules.from_dict(policy(), raw["rules"])
        return PersonsChoices(rules, raw.get("redact") is not False)
    except FileNotFoundError:
        return PersonsChoices(Rules(policy()))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("ignoring %s: %s", path, exc)
        return PersonsChoices(Rules(policy()))


def save_choices(data_dir: Path, rules: dict, redact: bool | None) -> PersonsChoices:
    """Check the person's rules (ValueError naming the bad field) and keep them, with
    their masking choice (None: unchanged)."""
    checked = Rules.from_dict(policy(), rules)
    if redact is None:
        redact = load_choices(data_dir).redact
    path = data_dir / RULES_FILE
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"rules": rules, "redact": redact}, fh, indent=1, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return PersonsChoices(checked, redact)


@dataclass
class Gate:
    rules: Rules
    redact: bool  # mask personal data in what is stored
    check: ContentCheck | None  # None: the person switched the content check off

    @classmethod
    def open(cls, data_dir: Path, content_check: bool) -> Gate:
        choices = load_choices(data_dir)
        return cls(choices.rules, choices.redact,
                   ContentCheck(policy=policy()) if content_check else None)

    def screen_url(self, url: str) -> Verdict | None:
        return classify_url(url, self.rules)

    def screen_text(self, url: str, title: str, passages: Sequence[str],
                    signals: Mapping | None = None) -> Verdict | None:
        """The content check, unless the person said to always record this page's site
        (their word wins over the built-in judgement, as it does over the categories)."""
        if self.check is None or self._always_recorded(url):
            return None
        return self.check.check(title, passages, PageSignals.from_dict(signals),
                                disabled=self.rules.disabled)

    def screen_titles(self, pages: Sequence[tuple[str, str]]) -> list[Verdict | None]:
        """`screen_text(url, title, [])` of many (url, title) pages at once."""
        if self.check is None:
            return [None] * len(pages)
        asked = [i for i, (url, _) in enumerate(pages) if not self._always_recorded(url)]
        found = self.check.check_titles([pages[i][1] for i in asked], self.rules.disabled)
        out: list[Verdict | None] = [None] * len(pages)
        for i, verdict in zip(asked, found, strict=True):
            out[i] = verdict
        return out

    def _always_recorded(self, url: str) -> bool:
        if not self.rules.always_record:
            return False
        u = parse_web_url(url)
        return u is not None and any(host_matches(u.hostname, s)
                                     for s in self.rules.always_record)
