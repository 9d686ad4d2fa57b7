"""Turn a file's bytes into a title and text blocks: HTML, Markdown or plain text.

Used for files given to `rewind index` and text sent through `ingest`; pages
from the browser arrive already extracted and chunked by the extension.
Main content first: <main>, <article> or [role=main] when present; never the
text of script, style, template, nav, header, footer or aside elements.
This module must never fetch anything a page links to, nor execute anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from ..errors import Code, RewindError

# Elements whose start or end closes the current passage (Chrome's DocumentChunker list).
HARD_BREAKS = {"article", "div", "h1", "h2", "h3", "h4", "h5", "h6", "header", "footer", "main",
               "nav", "hr", "br", "section", "aside", "table", "body", "form", "figure"}
# Elements that end a block of text but may merge with their neighbours.
SOFT_BREAKS = {"p", "li", "dd", "dt", "tr", "td", "th", "pre", "blockquote", "ul", "ol", "dl",
               "caption", "figcaption", "summary", "details"}
SKIP = {"script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "head",
        "nav", "header", "footer", "aside", "button", "select", "textarea"}
VOID = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source",
        "track", "wbr", "param"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_WS = re.compile(r"\s+")


@dataclass
class Block:
    text: str
    kind: str = "text"  # text | heading | list | code
    hard_break_before: bool = False


@dataclass
class Document:
    title: str
    blocks: list[Block] = field(default_factory=list)


def decode(data: bytes, name: str, max_bytes: int) -> str:
    """Bytes to text, refusing what cannot be a document, with what to do about it."""
    if not data.strip():
        raise RewindError(Code.BAD_INPUT, f"{name} is empty: nothing to index.")
    if len(data) > max_bytes:
        raise RewindError(
            Code.TOO_LARGE,
            f"{name} is {len(data) / 1e6:.1f} MB; Rewind indexes documents up to "
            f"{max_bytes / 1e6:.0f} MB.", "Split it into smaller files.")
    if b"\x00" in data[:8192]:
        raise RewindError(Code.BAD_INPUT, f"{name} looks binary, not text: skipped.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
        controls = sum(1 for ch in text[:8192] if ord(ch) < 32 and ch not in "\t\r\n\f")
        if controls > 0.05 * min(len(text), 8192):
            raise RewindError(Code.BAD_INPUT, f"{name} looks binary, not text: skipped.") from None
        return text


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title_parts: list[str] = []
        self.in_title = False
        self.skip_depth = 0
        self.stack: list[str] = []
        self.blocks: list[Block] = []
        self.current: list[str] = []
        self.kind = "text"
        self.pending_hard = False
        self.main_start: int | None = None  # index into blocks where main content starts
        self.main_end: int | None = None
        self.main_depth: int | None = None

    def _flush(self) -> None:
        text = _WS.sub(" ", "".join(self.current)).strip()
        self.current = []
        if text:
            self.blocks.append(Block(text, self.kind, self.pending_hard))
            self.pending_hard = False
        self.kind = "text"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title" and not self.stack_has("body"):
            self.in_title = True
        if tag not in VOID:
            self.stack.append(tag)
        if self.skip_depth or tag in SKIP:
            if tag in SKIP and tag not in VOID:
                self.skip_depth += 1
            return
        attr = dict(attrs)
        is_main = tag in ("main", "article") or attr.get("role") == "main"
        if is_main and self.main_depth is None and self.main_start is None:
            self._flush()
            self.main_start = len(self.blocks)
            self.main_depth = len(self.stack)
        if tag in HARD_BREAKS:
            self._flush()
            self.pending_hard = True
        elif tag in SOFT_BREAKS:
            self._flush()
        if tag in HEADINGS:
            self.kind = "heading"
        elif tag in ("li", "dt", "dd"):
            self.kind = "list"
        elif tag == "pre":
            self.kind = "code"

    def stack_has(self, tag: str) -> bool:
        return tag in self.stack

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag in self.stack:
            while self.stack:  # tolerate unclosed children, as browsers do
                top = self.stack.pop()
                if top in SKIP and self.skip_depth:
                    self.skip_depth -= 1
                if top == tag:
                    break
        if self.skip_depth:
            return
        if tag in HARD_BREAKS or tag in SOFT_BREAKS:
            self._flush()
            if tag in HARD_BREAKS:
                self.pending_hard = True
        if self.main_depth is not None and len(self.stack) < self.main_depth:
            self._flush()
            self.main_end = len(self.blocks)
            self.main_depth = None

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title_parts.append(data)
        elif not self.skip_depth:
            self.current.append(data)


def html_document(text: str, fallback_title: str = "") -> Document:
    parser = _Parser()
    parser.feed(text)
    parser.close()
    parser._flush()
    blocks = parser.blocks
    if parser.main_start is not None:
        main = blocks[parser.main_start:parser.main_end]
        if sum(len(b.text) for b in main) >= 200:  # a thin <main> is a shell, keep the body
            blocks = main
    blocks = [b for b in blocks if b.text != "¶"]
    for b in blocks:  # Sphinx and friends append a pilcrow link to headings
        b.text = b.text.rstrip("¶").rstrip()
    title = _WS.sub(" ", "".join(parser.title_parts)).strip() or fallback_title
    return Document(title=title, blocks=[b for b in blocks if b.text])


def markdown_document(text: str, fallback_title: str = "") -> Document:
    blocks: list[Block] = []
    title = ""
    in_code = False
    for para in re.split(r"\n\s*\n", text):
        stripped = para.strip()
        if not stripped:
            continue
        if stripped.startswith("```"):
            in_code = not in_code if stripped.count("```") == 1 else in_code
        if stripped.startswith("#") and not in_code:
            heading, _, rest = stripped.partition("\n")
            heading = heading.lstrip("#").strip()
            title = title or heading
            blocks.append(Block(heading, "heading", True))
            if rest.strip():
                blocks.append(Block(_WS.sub(" ", rest).strip(), "text"))
            continue
        kind = "list" if re.match(r"^([-*+]|\d+\.)\s", stripped) else "text"
        blocks.append(Block(_WS.sub(" ", stripped), "code" if in_code else kind))
    return Document(title=title or fallback_title, blocks=blocks)


def text_document(text: str, title: str = "") -> Document:
    blocks = [Block(_WS.sub(" ", p).strip()) for p in re.split(r"\n\s*\n", text)]
    return Document(title=title, blocks=[b for b in blocks if b.text])


def document_for(name: str, text: str, fallback_title: str = "") -> Document:
    """Pick the reader by file name; unknown endings are read as plain text."""
    low = name.lower()
    if low.endswith((".html", ".htm", ".xhtml")):
        return html_document(text, fallback_title)
    if low.endswith((".md", ".markdown")):
        return markdown_document(text, fallback_title)
    return text_document(text, fallback_title)
