"""py3langid's verdict on a text, computed with numpy instead of its byte-by-byte loop.

py3langid finds a text's byte n-grams by walking a DFA (an Aho-Corasick automaton) one
byte at a time in Python: ~1.5 µs a byte, 5 ms for the 3,000 characters read of a page,
which made language detection most of the cost of indexing a page's words in bulk and a
third of a search's (the relevance gate asks it of the top passages). In such an
automaton the state after a byte is the longest suffix of the text so far that begins an
n-gram, so it depends only on the last `depth` bytes (the deepest state's length): the
state at every position is the walk of its own last `depth` bytes from the start state,
and `depth` vectorised steps over all positions give every state at once. The counts,
scores and probabilities are then py3langid's own formula, features in the order of their
first occurrence as its Counter holds them, so the verdict is the same to the last bit
(tests/index/derived/test_langid_walk.py compares them on many texts).
This module must never decide a language itself: languages.py does, with this verdict.
"""

from __future__ import annotations

import math

import numpy as np


class Walker:
    """The arrays of a py3langid `LanguageIdentifier` (norm_probs=True), read once."""

    def __init__(self, identifier) -> None:
        if not identifier._norm_probs or identifier.min_confidence is not None:
            raise ValueError("the walk answers for norm_probs=True, no min_confidence")
        self._id = identifier
        moves = identifier.tk_nextmove  # 9.8M states as an array.array: viewed, not copied
        self._next = np.frombuffer(moves, np.dtype(moves.typecode)) if hasattr(
            moves, "typecode") else np.asarray(moves)
        self._rowbase = np.asarray(identifier._rowbase, np.int64)
        self._out = np.asarray(identifier.tk_output, np.int64)
        self.depth = _depth(self._next, self._rowbase)

    def _features(self, data: bytes) -> tuple[np.ndarray, np.ndarray] | None:
        """(feature ids in order of first occurrence, their counts); None if none."""
        b = np.frombuffer(data, np.uint8).astype(np.int64)
        n = len(b)
        state = np.zeros(n, np.int64)
        for step in range(self.depth):  # position i reads byte i - back (none before 0)
            back = self.depth - 1 - step
            if back < n:
                state[back:] = self._next[self._rowbase[state[back:]] + b[:n - back]]
        found = self._out[state]
        found = found[found >= 0]
        if not len(found):
            return None
        ids, first, counts = np.unique(found, return_index=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        return ids[order], counts[order]

    def classify(self, text: str) -> tuple[str, float]:
        """(language, probability), as `LanguageIdentifier.classify(text)` answers."""
        ident = self._id
        data = ident._encode(text)
        feats = self._features(data)
        if feats is None:  # py3langid: no features under norm_probs is uniform (abstain)
            scores = np.zeros(len(ident.nb_classes), np.float32)
        else:
            ids, counts = feats
            scores = np.log1p(counts.astype(np.float32)) @ ident.nb_ptc[ids] + ident.nb_pc
        scores *= 1.0 / math.sqrt(len(data) or 1)
        np.exp(scores - scores.max(), out=scores)
        scores /= scores.sum()
        for i, j in ident._alias_pairs:
            scores[i] += scores[j]
            scores[j] = 0.0
        best = int(scores.argmax())
        return ident.nb_classes[best], float(scores[best])


def _depth(nextmove: np.ndarray, rowbase: np.ndarray) -> int:
    """The automaton's deepest state: the most bytes a state can depend on (breadth-first
    from the start state over all 256 bytes; states sharing a row of moves are expanded
    once, so the whole table is read at most once)."""
    seen = np.zeros(len(rowbase), bool)
    seen[0] = True
    frontier, depth = np.array([0], np.int64), 0
    every_byte = np.arange(256, dtype=np.int64)
    while True:
        reached = np.zeros(len(rowbase), bool)
        rows = np.unique(rowbase[frontier])
        for start in range(0, len(rows), 4096):  # bounded temporaries
            reached[nextmove[(rows[start:start + 4096, None] + every_byte).ravel()]] = True
        new = np.flatnonzero(reached & ~seen)
        if not len(new):
            return max(depth, 1)
        seen[new] = True
        frontier, depth = new, depth + 1
