"""Cut a document's text blocks into passages, the way Chrome's DocumentChunker does.

Neighbouring blocks merge up to `max_passage_words` without crossing a hard
break (a heading starts a new passage and stays with its text); a block longer
than that is split at sentence ends; passages under `min_passage_words` are
dropped; no passage is longer than the embedding model's token limit. Each
passage keeps its position and its character span in the page text (the
blocks joined by blank lines). Words are counted by units.py, so that Chinese, Japanese
and Thai (no spaces) are measured too; sentences end at . ! ? and at 。！？. The
extension's content script does the same for pages in the browser (content/chunker.js).
This module must never drop text silently beyond the documented limits.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..config import Settings
from .extract import Block
from .units import count_words, cut

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*")
SEPARATOR = "\n\n"


@dataclass
class Chunk:
    text: str
    position: int
    span: tuple[int, int]
    quality: float


def approx_tokens(text: str) -> int:
    """Word-piece models average ~1.3 tokens a word on English prose (words: units.py)."""
    return int(count_words(text) * 1.3) + 2


def _split_long(text: str, max_words: int) -> list[str]:
    """Split one long block at sentence ends (or hard at max_words) into <= max_words
    pieces, each a slice of `text`."""
    pieces: list[str] = []
    start = end = words = 0
    open_piece = False
    sentences, pos = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() > pos and m.start() >= pos:
            sentences.append((pos, m.start()))
            pos = m.end()
    sentences.append((pos, len(text)))
    for s, e in sentences:
        n = count_words(text[s:e])
        if n == 0:
            continue
        if open_piece and (words + n > max_words or n > max_words):
            pieces.append(text[start:end])
            open_piece = False
        if n > max_words:  # a "sentence" longer than a passage: cut it
            pieces += cut(text[s:e], max_words)
            continue
        if not open_piece:
            start, words, open_piece = s, 0, True
        end = e
        words += n
    if open_piece:
        pieces.append(text[start:end])
    return [p.strip() for p in pieces if p.strip()]


def quality(text: str, kinds: set[str]) -> float:
    """0..1: structure and length raise it (seed 001); link-list and boilerplate lower it."""
    words = text.split()
    score = 0.4
    if "heading" in kinds:
        score += 0.15
    if "list" in kinds:
        score += 0.05
    n = count_words(text)
    score += 0.3 * min(n, 100) / 100  # 100-200 words is the sweet spot
    if words and sum(1 for w in words if len(w) <= 2) / len(words) > 0.6:  # menus, numbers
        score -= 0.2
    if re.search(r"(?i)\b(cookie|subscribe|sign up|all rights reserved|privacy policy)\b", text):
        score -= 0.15
    return round(max(0.0, min(1.0, score)), 3)


def chunk_blocks(
    blocks: list[Block],
    settings: Settings,
    *,
    max_tokens: int = 256,
    count_tokens: Callable[[str], int] = approx_tokens,
    max_passages: int | None = None,
) -> tuple[str, list[Chunk]]:
    """(page text, passages) for `blocks`; spans index into the page text."""
    max_words = settings.max_passage_words
    page_parts: list[str] = []
    offsets: list[int] = []
    pos = 0
    for b in blocks:
        offsets.append(pos)
        page_parts.append(b.text)
        pos += len(b.text) + len(SEPARATOR)
    page_text = SEPARATOR.join(page_parts)

    # Group blocks: (start offset, end offset, text, kinds)
    groups: list[tuple[int, int, str, set[str]]] = []
    cur_text: list[str] = []
    cur_kinds: set[str] = set()
    cur_start = cur_end = 0
    cur_words = 0

    def close() -> None:
        nonlocal cur_text, cur_kinds, cur_words
        if cur_text:
            groups.append((cur_start, cur_end, " ".join(cur_text), cur_kinds))
        cur_text, cur_kinds, cur_words = [], set(), 0

    for block, start in zip(blocks, offsets, strict=True):
        words = count_words(block.text)
        only_headings = bool(cur_text) and cur_kinds == {"heading"}
        if (block.hard_break_before or block.kind == "heading") and not only_headings:
            close()
        if words > max_words:
            close()
            piece_start = start
            for piece in _split_long(block.text, max_words):
                found = page_text.find(piece, piece_start)
                s = found if found >= 0 else piece_start
                groups.append((s, min(s + len(piece), start + len(block.text)), piece,
                               {block.kind}))
                piece_start = s + 1
            continue
        if cur_words + words > max_words:
            close()
        if not cur_text:
            cur_start = start
        cur_text.append(block.text)
        cur_kinds.add(block.kind)
        cur_end = start + len(block.text)
        cur_words += words
        if block.kind == "heading":
            continue  # a heading stays with the text that follows it
    close()

    chunks: list[Chunk] = []
    for start, end, text, kinds in groups:
        if count_words(text) < settings.min_passage_words:
            continue
        pieces = [text]
        while any(count_tokens(p) > max_tokens for p in pieces):  # respect the model's limit
            nxt: list[str] = []
            for p in pieces:
                if count_tokens(p) > max_tokens and count_words(p) > 1:
                    half = max(1, count_words(p) // 2)
                    nxt += _split_long(p, half)
                else:
                    nxt.append(p)
            if nxt == pieces:
                break
            pieces = nxt
        for p in pieces:
            text_cut = p[: settings.max_passage_chars]
            chunks.append(Chunk(text_cut, len(chunks), (start, end), quality(text_cut, kinds)))
        if max_passages is not None and len(chunks) >= max_passages:
            chunks = chunks[:max_passages]
            break
    return page_text, chunks
