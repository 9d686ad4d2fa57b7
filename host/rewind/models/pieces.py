"""Passages that fit the model: a passage longer than the model's window is split, by the
model's own token count, into pieces embedded separately.

The passage stays one passage (its text, span, snippets and citations are the page's
text, as before); it keeps one vector per piece (store: vectors keyed by passage, model
and piece) and dense search scores it by its best piece (index/derived/vectors.py). A split is
therefore the model's business: another model with a longer window keeps the passage
whole, and re-embedding never changes passages. Pieces end at whitespace when one lies in
the last fifth of the piece, so words are rarely cut; the pieces of a passage are of even
length (a stub of a few words would match too many queries). Past `MAX_PIECES` the rest of a
passage is not embedded: that is counted (`PassageVectors.truncated`) and logged.
This module must never store anything, nor change a passage's text.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from ..index.store.records import PassageVectors
from .embedder import Embedder

log = logging.getLogger("rewind.pieces")

# 2,400 characters (Settings.max_passage_chars) are at most ~10 MiniLM windows even for
# text of one token a character: 16 pieces leave room; more would be a page of noise.
MAX_PIECES = 16
_BACK_OFF = 0.2  # a piece may give up this share of its window to end at whitespace


def split(text: str, emb: Embedder, max_pieces: int = MAX_PIECES) -> tuple[list[str], bool]:
    """(pieces of `text` that each fit `emb`'s window, whether text was left over after
    `max_pieces`). A text that fits is its own single piece."""
    if emb.count_tokens(text) <= emb.max_tokens:
        return [text], False
    pieces: list[str] = []
    rest = text
    # pieces needed, rounded up (more than max_pieces: full windows, then the tail is cut)
    want = min(max_pieces, -(-emb.count_tokens(text) // emb.max_tokens))
    while rest and len(pieces) < max_pieces:
        left = emb.count_tokens(rest)
        if left <= emb.max_tokens:
            pieces.append(rest)
            rest = ""
            break
        # Pieces of even length: a short tail piece would match any query that shares a
        # few of its words (bench/perf/reembed.py measured greedy 256 + a stub below cutting).
        share = -(-left // max(1, want - len(pieces)))
        head = emb.truncate_to_tokens(rest, min(emb.max_tokens, max(share, 4)))
        if not head.strip():  # one token longer than a window: take what fits of it
            head = rest[: max(1, len(rest) // 2)]
            while len(head) > 1 and emb.count_tokens(head) > emb.max_tokens:
                head = head[: len(head) // 2]
        at_boundary = len(head) == len(rest) or rest[len(head)].isspace()
        cut = max(head.rfind(" "), head.rfind("\n"))
        if not at_boundary and cut > 0 and cut >= len(head) * (1 - _BACK_OFF):
            head = head[:cut]
        pieces.append(head.strip())
        rest = rest[len(head):].lstrip()
    return [p for p in pieces if p] or [text], bool(rest.strip())


def embed_passages(emb: Embedder, texts: Sequence[str], *,
                   max_pieces: int = MAX_PIECES) -> PassageVectors:
    """Vectors of `texts` with `emb`, a long text as several pieces; one embedder call."""
    flat: list[str] = []
    owner: list[int] = []
    piece: list[int] = []
    truncated = 0
    for i, text in enumerate(texts):
        parts, cut = split(text, emb, max_pieces)
        truncated += cut
        flat += parts
        owner += [i] * len(parts)
        piece += range(len(parts))
    if truncated:
        log.warning("%d of %d passages were longer than %d pieces of %s's window: their "
                    "tails are not embedded", truncated, len(texts), max_pieces, emb.model_id)
    matrix = emb.embed_documents(flat)
    return PassageVectors(matrix, np.asarray(owner, np.int64), np.asarray(piece, np.int64),
                          truncated)
