"""A model's answer as it streams: its draft, and the draft cut into sentences, each handed
on once it is complete.

`draft` runs the model and sends each piece on as it comes; it stops early when the model
only says again what it said (`RepeatGuard`: small models loop), and a sentence the model
was still writing when it stopped (ran out of tokens, or was stopped) is dropped
(`drop_fragment`). `SentenceStream` hands on a sentence when the text after it has begun
another one — not while its citation may still follow it ("It does. [Source 2]" cites the
sentence before the tag).
This module must never hand on a sentence twice, or one that is not yet complete, and
never show anything itself: what is shown is checked first (stages.py).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

from ..text import SENTENCE_BREAK, content_words
from .citations import CITE, split_answer
from .llm import Llm


class RepeatGuard:
    """Tells when a streamed answer starts saying a sentence again (small models loop)."""

    def __init__(self) -> None:
        self._seen: set[frozenset[str]] = set()
        self._done = 0

    def __call__(self, text: str) -> bool:
        complete = SENTENCE_BREAK.split(text)[:-1]
        for piece in complete[self._done :]:
            key = frozenset(content_words(CITE.sub("", piece)))
            if len(key) >= 2 and key in self._seen:
                return True
            self._seen.add(key)
        self._done = len(complete)
        return False


def drop_fragment(text: str) -> str:
    """The text without a last sentence cut off in the middle (the model ran out of tokens)."""
    stripped = text.rstrip()
    if re.search(r"[.!?][\"'”’)\]]*$", stripped) or CITE.search(stripped[-16:]):
        return stripped
    cut = max(
        stripped.rfind(". "),
        stripped.rfind("! "),
        stripped.rfind("? "),
        stripped.rfind(".\n"),
        stripped.rfind("\n"),
    )
    return stripped[: cut + 1] if cut > 0 else stripped


def draft(model: Llm, messages: list[dict[str, str]], max_tokens: int,
          on_piece: Callable[[str], None] | None, cancel: threading.Event | None,
          clock: Callable[[], float]) -> tuple[str, float | None]:
    """The model's answer as it streams (each piece sent on as it comes), and when its
    first word came (`clock`); stops early when it only says again what it said."""
    first: float | None = None
    pieces: list[str] = []
    repeating = RepeatGuard()
    stopped = False
    for piece in model.stream(messages, max_tokens=max_tokens, cancel=cancel):
        if first is None and piece.strip():
            first = clock()
        pieces.append(piece)
        if on_piece:
            on_piece(piece)
        if piece.strip() and repeating("".join(pieces)):
            stopped = True  # it only says it again from here on: stop paying for it
            break
    raw = "".join(pieces)
    if stopped or model.finish_reason == "length":
        raw = drop_fragment(raw)
    return raw, first


class SentenceStream:
    """Feed it the model's pieces; it returns the (sentence, cited numbers) completed."""

    def __init__(self) -> None:
        self._text = ""
        self._done = 0  # parts handed on

    def feed(self, piece: str) -> list[tuple[str, list[int]]]:
        self._text += piece
        parts = split_answer(self._text)
        complete = len(parts) - 1
        if complete > 0 and parts[-1][0].lstrip().startswith(("[", "(")):
            complete -= 1  # the last part may be the citation of the one before
        new = parts[self._done:complete] if complete > self._done else []
        self._done = max(self._done, complete)
        return new

    def close(self, final: str) -> list[tuple[str, list[int]]]:
        """The rest of the answer, `final` being the whole draft as kept (a cut-off last
        sentence dropped): the sentences not handed on yet."""
        parts = split_answer(final)
        return parts[self._done:]
