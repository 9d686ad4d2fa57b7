"""Words and phrases of signed-in personal screens, in the languages people read, found in text.

Two sources, both by language: `lexicon.json` beside this module (groups that do not belong
to one category: sign-out and sign-in controls, account menus, greetings, interface phrases,
personal field labels, days, months, search-result phrases; the words by which a text addresses
its reader, "your", "Ihr", "あなた", or speaks of its writer, "my", "ich", "私"; and an
article's framing, "for example", "in der Regel", "一般") and each policy category's
`signals.terms` (its topic words: "kontostand", "ordonnance", "給与明細"). An entry is a word
or phrase in lower case; a trailing "*" matches any ending of its last word ("überweisung*").

A line is normalised (NFKC, case-folded) and its punctuation turned into spaces ("Zwei-
Faktor" reads as "zwei faktor"); every entry is then found at once by an Aho-Corasick
automaton (pyahocorasick) and kept only on word boundaries, so "sent" is not found in
"consent". Chinese and Japanese have no spaces: their entries match anywhere in a run of
those scripts. `Lexicon(exclude=...)` leaves languages out, to measure how the check does on
a language whose words it does not know (bench/quality/sensitive.py).
This module must never keep, log or return text: it answers which entries matched where.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import ahocorasick

from .policy_file import load_policy

_SPACES = re.compile(r"[^\w\n#]+|_+")  # "#" stays: "order #", "policy #"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]")
GROUPS = ("signout", "signin", "account", "greeting", "ui", "fields", "days", "months",
          "results", "address", "self", "framing")
# After a greeting these make it a greeting of no one ("Hello, world", "Welcome to the docs").
_NOT_A_NAME = frozenset(
    "world welt monde mundo mondo wereld мир everyone everybody there all to zu à a bij ao в "
    "na in the der die das le la el il de het o os and und et y e en".split())
_NOT_A_NAME_CJK = ("世界", "使用", "来到", "访问", "光临", "各位", "大家", "へ", "の")


def normalize(text: str) -> str:
    """What matching compares: NFKC (full-width digits and colons become ASCII), case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def clean(text: str) -> str:
    """Text as the lexicon reads it: normalised, punctuation as single spaces, each line with
    one space before and after (offsets of `Hit`s are into this string; lines stay apart)."""
    return "\n".join(f" {ln.strip()} " for ln in _SPACES.sub(" ", normalize(text)).split("\n"))


def words(cleaned: str) -> list[str]:
    return cleaned.split()


def is_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


@dataclass(frozen=True)
class Hit:
    key: str  # a group of lexicon.json, or "cat:<category id>"
    lang: str
    start: int  # offsets in the cleaned line
    end: int


def _load_groups() -> dict[str, dict[str, list[str]]]:
    raw = json.loads(resources.files(__package__).joinpath("lexicon.json")
                     .read_text(encoding="utf-8"))
    groups = raw["groups"]
    unknown = set(groups) - set(GROUPS)
    if unknown:
        raise ValueError(f"lexicon.json: unknown group(s) {sorted(unknown)}")
    return groups


def _boundary(ch: str) -> bool:
    return ch in " \n" or _CJK.match(ch) is not None


class Lexicon:
    """Every entry of lexicon.json and of the policy's category terms, ready to match."""

    def __init__(self, groups: Mapping[str, Mapping[str, Iterable[str]]],
                 categories: Mapping[str, Mapping[str, Iterable[str]]],
                 exclude: Iterable[str] = ()) -> None:
        skip = set(exclude)
        self.langs: set[str] = set()
        found: dict[str, list[tuple[str, str, bool, bool]]] = {}
        sources = [*groups.items(), *((f"cat:{c}", t) for c, t in categories.items())]
        for key, by_lang in sources:
            for lang, entries in by_lang.items():
                if lang in skip:
                    continue
                self.langs.add(lang)
                for entry in entries:
                    text = clean(entry.strip().rstrip("*")).strip()
                    if not text:
                        raise ValueError(f"lexicon entry {entry!r} ({key}, {lang}) is empty")
                    cjk = is_cjk(text)
                    if cjk:
                        text = text.replace(" ", "")
                    found.setdefault(text, []).append((key, lang, entry.endswith("*"), cjk))
        self._automaton = ahocorasick.Automaton()
        for text, values in found.items():
            self._automaton.add_word(text, (len(text), tuple(values)))
        if found:
            self._automaton.make_automaton()
        self._empty = not found

    def scan(self, cleaned: str) -> list[Hit]:
        """Every entry in text as `clean` made it, on word boundaries, the longest where two
        overlap (an entry never spans two lines: a line ends in a space)."""
        if self._empty:
            return []
        hits: list[Hit] = []
        for last, (length, values) in self._automaton.iter(cleaned):
            start, end = last - length + 1, last + 1
            left = _boundary(cleaned[start - 1]) if start > 0 else True
            right = _boundary(cleaned[end]) if end < len(cleaned) else True
            for key, lang, prefix, cjk in values:
                if cjk or (left and (prefix or right)):
                    stop = end
                    if prefix:  # the rest of the word belongs to the match
                        while stop < len(cleaned) and not _boundary(cleaned[stop]):
                            stop += 1
                    hits.append(Hit(key, lang, start, stop))
        return _longest(hits)

    def greets(self, cleaned: str, hits: list[Hit]) -> bool:
        """Is this short line a greeting of a person ("Hallo, Anna", "Bonjour Claire",
        "田中 美咲 さん、こんにちは"), not of the world or of visitors?"""
        greeting = [h for h in hits if h.key == "greeting"]
        if not greeting:
            return False
        if is_cjk(cleaned):
            rest = cleaned
            for h in greeting:
                rest = rest.replace(cleaned[h.start:h.end], "")
            core = rest.replace(" ", "")
            return len(core) >= 2 and len(cleaned) <= 26 and not any(
                w in cleaned for w in _NOT_A_NAME_CJK)
        if len(cleaned.split()) > 6:
            return False
        first = min(greeting, key=lambda h: h.start)
        if cleaned[:first.start].strip():
            return False  # the greeting starts the line
        after = cleaned[max(h.end for h in greeting):].split()
        return bool(after) and after[0] not in _NOT_A_NAME and not after[0].isdigit()


def _longest(hits: list[Hit]) -> list[Hit]:
    """One hit per key and span (the same word is in several languages' lists), and none
    inside a longer one ("退出登录" is a sign-out, not a sign-in; "se déconnecter" counts once)."""
    seen: dict[tuple[str, int, int], Hit] = {}
    for h in hits:
        seen.setdefault((h.key, h.start, h.end), h)
    out = []
    far_start, far_end = -1, -1  # the span reaching furthest among those before
    for h in sorted(seen.values(), key=lambda h: (h.start, -h.end)):
        if far_end > h.end or (far_end == h.end and far_start < h.start):
            continue  # inside a longer span
        out.append(h)
        if h.end > far_end:
            far_start, far_end = h.start, h.end
    return out


@lru_cache(maxsize=16)
def lexicon(exclude: frozenset[str] = frozenset()) -> Lexicon:
    """The shipped lexicon (less the `exclude`d languages), built once per process."""
    return Lexicon(_load_groups(), {c.id: c.terms for c in load_policy().categories}, exclude)


@lru_cache(maxsize=1)
def month_names() -> tuple[str, ...]:
    """Every month name and abbreviation of lexicon.json, longest first (date patterns)."""
    names = {normalize(m) for ms in _load_groups().get("months", {}).values() for m in ms}
    return tuple(sorted(names, key=len, reverse=True))
