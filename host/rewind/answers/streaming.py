"""A model's answer cut into sentences as it streams, each handed on once it is complete.

A sentence is complete when the text after it has begun another one — not while its
citation may still follow it ("It does. [Source 2]" cites the sentence before the tag).
What the model was still writing when it stopped (a cut-off last sentence) is dropped
(answer.py's `drop_fragment`, applied to the whole draft at the end).
This module must never hand on a sentence twice, or one that is not yet complete.
"""

from __future__ import annotations

from .citations import split_answer


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
