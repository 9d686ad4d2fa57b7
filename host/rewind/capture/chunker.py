"""Cut a document's text blocks into passages, the way Chrome's DocumentChunker does.

Neighbouring blocks merge up to `max_passage_words` without crossing a hard
break (a heading starts a new passage and stays with its text); a block longer
than that is split at sentence ends; passages under `min_passage_words` are
dropped; no passage is longer than the embedding model's token limit. Each
passage keeps its position and its character span in the page text (the
blocks joined by blank lines), and its quality (quality.py, the extension's formula).
Words are counted by units.py, so that Chinese, Japanese and Thai (no spaces) are
measured too; sentences end where text.py says (at . ! ? and at 。！？). The
extension's content script does the same for pages in the browser (content/chunker.js).
This module must never drop text silently beyond the documented limits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..config import Settings
from ..text import sentence_spans
from .extract import Block
from .quality import passage_quality
from .units import count_words, cut

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


@dataclass
class _Group:
    """Neighbouring blocks merged into one passage-to-be, with what its quality reads."""
    start: int  # offsets in the page text
    end: int
    parts: list[str] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    joins: list[str] = field(default_factory=list)  # what goes before each part but the first
    words: int = 0
    chars: int = 0  # the blocks' text
    list_chars: int = 0  # of it, in list items
    last_kind: str = ""

    def add(self, block: Block, end: int, words: int) -> None:
        if self.parts:
            self.joins.append("\n" if self.last_kind == "heading" else " ")
        self.parts.append(block.text)
        self.kinds.add(block.kind)
        self.last_kind = block.kind
        self.end = end
        self.words += words
        self.chars += len(block.text)
        self.list_chars += len(block.text) if block.kind == "list" else 0

    @property
    def text(self) -> str:
        # A heading stays a line of its own (as in the extension's chunker), never the start
        # of the sentence after it; other blocks run on as one text (a line break after every
        # label and value made the docs' tables read as a private screen to the content
        # check: capture/sensitive.py).
        out = self.parts[0] if self.parts else ""
        for join, part in zip(self.joins, self.parts[1:], strict=True):
            out += join + part
        return out


def _split_long(text: str, max_words: int) -> list[str]:
    """Split one long block at sentence ends (or hard at max_words) into <= max_words
    pieces, each a slice of `text`."""
    pieces: list[str] = []
    start = end = words = 0
    open_piece = False
    for s, e in sentence_spans(text):
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


def quality(text: str, group: _Group) -> float:
    """The passage's quality (quality.py): a piece of a group is judged by its own words and
    text and by the group's structure (a heading, its share of list items). Blocks carry no
    links or navigation (extract.py leaves nav, header, footer and aside out)."""
    return passage_quality(text, count_words(text), heading="heading" in group.kinds,
                           chars=group.chars, list_chars=group.list_chars)


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

    groups: list[_Group] = []
    cur: _Group | None = None

    def close() -> None:
        nonlocal cur
        if cur is not None:
            groups.append(cur)
        cur = None

    for block, start in zip(blocks, offsets, strict=True):
        words = count_words(block.text)
        # a heading stays with the text that follows it
        only_headings = cur is not None and cur.kinds == {"heading"}
        if (block.hard_break_before or block.kind == "heading") and not only_headings:
            close()
        if words > max_words:
            close()
            piece_start = start
            for piece in _split_long(block.text, max_words):
                found = page_text.find(piece, piece_start)
                s = found if found >= 0 else piece_start
                g = _Group(s, s)
                g.add(Block(piece, block.kind), min(s + len(piece), start + len(block.text)),
                      count_words(piece))
                groups.append(g)
                piece_start = s + 1
            continue
        if cur is not None and cur.words + words > max_words:
            close()
        if cur is None:
            cur = _Group(start, start)
        cur.add(block, start + len(block.text), words)
    close()

    chunks: list[Chunk] = []
    for group in groups:
        start, end, text = group.start, group.end, group.text
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
            chunks.append(Chunk(text_cut, len(chunks), (start, end), quality(text_cut, group)))
        if max_passages is not None and len(chunks) >= max_passages:
            chunks = chunks[:max_passages]
            break
    return page_text, chunks
