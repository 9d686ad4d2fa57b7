"""The capture gate: what a page must pass before anything of it is stored, from any source.

The browser's extension decides first (its own copy of the policy, page signals such as
a password field, the person's pauses); the host decides again for every page, whoever
sends it (the extension, `rewind index`, `ingest`): the URL against the sensitive-page
policy and the person's own rules (`screen_url`), then the page's own text against the
content check (`screen_text`, after personal data was masked). A refusal is a Verdict
that names the category and says why in words; nothing of the page is kept.
This module must never store, log or return page text: it answers yes or why not.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .policy import Policy, Rules, Verdict, classify_url, load_policy
from .sensitive import ContentCheck

log = logging.getLogger("rewind.capture")

RULES_FILE = "capture_rules.json"  # the person's own rules, as the extension last sent them

Embed = Callable[[Sequence[str]], np.ndarray]


@lru_cache(maxsize=1)
def policy() -> Policy:
    """The shipped policy, read and checked once a process (a bad file is an error)."""
    return load_policy()


def load_rules(data_dir: Path) -> Rules:
    """The person's rules saved for this profile; none (or a damaged file: logged) → the
    built-in policy alone, which is the safe side."""
    path = data_dir / RULES_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Rules.from_dict(policy(), raw)
    except FileNotFoundError:
        return Rules(policy())
    except (OSError, ValueError) as exc:
        log.warning("ignoring %s: %s", path, exc)
        return Rules(policy())


def save_rules(data_dir: Path, raw: dict) -> Rules:
    """Check the person's rules (ValueError naming the bad field) and keep them."""
    rules = Rules.from_dict(policy(), raw)
    path = data_dir / RULES_FILE
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(raw, fh, indent=1, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return rules


@dataclass
class Gate:
    rules: Rules
    check: ContentCheck | None  # None: the person switched the content check off

    @classmethod
    def open(cls, data_dir: Path, embed: Embed | None, content_check: bool) -> Gate:
        return cls(load_rules(data_dir),
                   ContentCheck(embed, policy=policy()) if content_check else None)

    def screen_url(self, url: str) -> Verdict | None:
        return classify_url(url, self.rules)

    def screen_text(self, title: str, passages: Sequence[str]) -> Verdict | None:
        return self.check.check(title, passages) if self.check is not None else None
