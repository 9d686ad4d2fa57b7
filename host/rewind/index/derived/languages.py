"""The language of a page: the `lang` it declares, checked by a detector (py3langid).

A page's language decides how its words are indexed (index/derived/analysis.py: stemmer, CJK
bigrams) and feeds the history's language mix (stats, and the offer of the multilingual
model). A page says what it is in `<html lang>`, but many say "en" whatever they hold, so
the detector reads the text: its verdict wins when it is confident, the declared language
when the text is too short or mixed to tell. Codes are ISO 639-1 ("de", "ja", "zh").
This module must never read anything but the text it is given, nor guess from the URL.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .langid_walk import Walker

SAMPLE_CHARS = 3000  # the detector reads this much of a page (its start, where the prose is)
CONFIDENT = 0.9  # a detector verdict below this leaves the declared language standing
UNKNOWN = "und"  # BCP 47's "undetermined"
NO_LANGUAGE = "zxx"  # BCP 47's "no linguistic content": the detector's verdict on code, tables
NOT_LANGUAGES = frozenset({UNKNOWN, NO_LANGUAGE})  # verdicts that name no language
REMEMBERED = 20_000  # verdicts the detector keeps, by the text's digest (no text kept)

NAMES = {
    "ar": "Arabic", "da": "Danish", "de": "German", "el": "Greek", "en": "English",
    "es": "Spanish", "fi": "Finnish", "fr": "French", "hu": "Hungarian", "it": "Italian",
    "ja": "Japanese", "ko": "Korean", "nl": "Dutch", "no": "Norwegian", "pl": "Polish",
    "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sv": "Swedish", "ta": "Tamil",
    "th": "Thai", "tr": "Turkish", "uk": "Ukrainian", "zh": "Chinese", "cs": "Czech",
    "he": "Hebrew", "hi": "Hindi", "id": "Indonesian", "vi": "Vietnamese", "fa": "Persian",
}
_ALIASES = {"nb": "no", "nn": "no", "iw": "he", "in": "id"}
_TAG = re.compile(r"^\s*([A-Za-z]{2,3})(?:[-_].*)?$")


def name(code: str) -> str:
    """"German" for "de"; the code itself for a language without a name here."""
    return NAMES.get(code, code)


def normalise(tag: str | None) -> str | None:
    """A BCP 47 tag ("de-DE", "zh_Hans") -> its ISO 639-1 language ("de", "zh"); None when
    there is no usable tag."""
    m = _TAG.match(tag or "")
    if not m:
        return None
    code = m.group(1).lower()
    return _ALIASES.get(code, code)


@dataclass(frozen=True)
class Verdict:
    lang: str  # ISO 639-1, or UNKNOWN
    declared: str | None  # what the page said, normalised
    detected: str | None  # what the detector said
    confidence: float  # the detector's probability for `detected`


class _Detector:
    """py3langid's identifier, loaded when first needed (its model takes ~0.5 s and ~75 MB)
    and shared by threads; let go at rest."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._identifier = None
        # The relevance gate asks about the top passages of each search, mostly those of
        # the last one (a person typing): verdicts are kept by the text's digest.
        self._known: dict[bytes, tuple[str, float]] = {}
        self.clock: Callable[[], float] = time.monotonic
        self.last_used = self.clock()

    def classify(self, text: str) -> tuple[str, float]:
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            self.last_used = self.clock()
            if key in self._known:
                return self._known[key]
            if self._identifier is None:
                from py3langid.langid import MODEL_FILE, LanguageIdentifier

                self._identifier = Walker(LanguageIdentifier.from_model_file(
                    MODEL_FILE, norm_probs=True))  # its verdicts, ~10x sooner (langid_walk.py)
            lang, prob = self._identifier.classify(text)
            if len(self._known) >= REMEMBERED:
                self._known.clear()
            found = self._known[key] = (_ALIASES.get(lang, lang), float(prob))
        return found


    def idle_since(self) -> float | None:
        """When a verdict was last asked for (time.monotonic); None: nothing held."""
        held = self._identifier is not None or self._known
        return self.last_used if held else None

    def let_go(self, idle_s: float) -> bool:
        """Drop the model (~75 MB) and the verdicts kept if no verdict was asked for in
        `idle_s` seconds; the next one loads it again. Whether anything went."""
        with self._lock:
            held = self._identifier is not None or bool(self._known)
            if not held or self.clock() - self.last_used < idle_s:
                return False
            self._identifier, self._known = None, {}
            return True


DETECTOR = _Detector()  # one a process; at rest native/resting.py lets its model go
_TWENTY_LETTERS = re.compile(r"(?:\W*\w){20}")  # stops at the 20th: no count of them all


def detect(text: str, declared: str | None = None) -> Verdict:
    """The language of `text`, with the page's declared `lang` as a hint."""
    said = normalise(declared)
    sample = text[:SAMPLE_CHARS]
    if not _TWENTY_LETTERS.match(sample):  # a few words: the detector guesses
        return Verdict(said or UNKNOWN, said, None, 0.0)
    found, prob = DETECTOR.classify(sample)
    if said and said != found and prob < CONFIDENT:
        return Verdict(said, said, found, prob)
    if not said and prob < 0.5:
        return Verdict(UNKNOWN, said, found, prob)
    return Verdict(found, said, found, prob)


def page_languages(pages: dict, rows: list) -> dict[int, str]:
    """Each page's language (page id -> code): its declared `lang` (its metadata) checked
    by the detector on its title and the start of its text (`rows`: (passage id, page id,
    passage) in order, as the store gives them)."""
    texts: dict[int, list[str]] = {pid: [p.title] for pid, p in pages.items()}
    for _pid, page_id, passage in rows:
        if sum(map(len, texts[page_id])) < SAMPLE_CHARS:
            texts[page_id].append(passage.text)
    return {pid: detect("\n".join(texts[pid]), (pages[pid].metadata or {}).get("lang")).lang
            for pid in pages}
