"""An FAQ page's HTML read into question/answer pairs (Sphinx's and DocBook's FAQs).

Job: turn one FAQ page's HTML (a string) into `FaqPair`s by the rules below, with the
standard html.parser. Never: read or fetch files (bench/common/data.py finds the pages and
fetches the package), or need a third-party HTML library.

Parsing rules (decided once, tested in tests/test_bench_data.py):
- A question is a `<section id=...>` whose first heading (h2/h3/h4) ends in "?". Older
  Sphinx and DocBook write sections as `<div class="section">` (Django's and the Debian
  FAQ's docs): those count as sections too, and a section without an id takes the first id
  inside its heading (DocBook's `<h2><a id=...>`).
- Its answer is the section's text WITHOUT that heading. Nested sections that are themselves
  questions are their own pairs and are left out of the enclosing answer; nested sections that
  are not questions (a sub-heading inside an answer) stay in it, heading included, because
  they are part of what the answer says. (In the 3.11 FAQ no question section nests another
  question; the rule matters for future versions and is what the tests pin down.)
- script/style/nav are dropped, and so are Sphinx's "¶" header links.
- Headings that read like questions but lack the "?" ("How do you remove multiple items
  from a list") are not pairs: the rule stays mechanical, and gives the 175 pairs the notes
  measured. Very short answers ("See the next question.") are kept; an engine may refuse them.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

URL_BASE = "http://docs.python.local"  # synthetic, never fetched: one distinct URL per answer


@dataclass(frozen=True)
class FaqPair:
    page: str  # file stem, e.g. "programming"
    section_id: str  # the question section's id
    question: str  # heading text, "?" included
    answer_text: str  # the section's text without its heading (see module docstring)
    url_path: str  # "faq/programming.html#<section_id>", the gold location in the docs

    @property
    def doc_id(self) -> str:
        """Stable id of the answer in benchmarks: '<page>/<section_id>'."""
        return f"{self.page}/{self.section_id}"

    @property
    def url(self) -> str:
        """A distinct, opaque URL per answer. Opaque because the engine's BM25 also matches URL
        words, and section ids are the question's words; a query parameter, not '#', because
        URL normalisation drops fragments (all answers of a page would merge into one)."""
        return f"{URL_BASE}/faq?a={hashlib.sha1(self.doc_id.encode()).hexdigest()[:12]}"


_BLOCK = {
    "p", "div", "pre", "li", "ul", "ol", "dl", "dt", "dd", "table", "thead", "tbody", "tr",
    "td", "th", "blockquote", "figure", "figcaption", "caption", "hr", "br", "section",
    "h1", "h2", "h3", "h4", "h5", "h6",
}  # fmt: skip
_SKIP = {"script", "style", "nav", "head", "title"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_VOID = {"br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source",
         "track", "wbr"}  # fmt: skip


@dataclass
class _Section:
    id: str
    # parts: str pieces of this section's own text, or nested _Section objects, in order
    parts: list[str | _Section] = field(default_factory=list)
    heading: list[str] | None = None  # text of the first heading, once seen
    heading_level: str = ""
    heading_done: bool = False

    def is_question(self) -> bool:
        return (
            self.heading_level in {"h2", "h3", "h4"}
            and self.heading is not None
            and _squash("".join(self.heading)).endswith("?")
        )

    def question(self) -> str:
        return _squash("".join(self.heading or []))

    def text(self, top: bool = True) -> str:
        """Answer text: own parts plus nested non-question sections (with their headings)."""
        out: list[str] = []
        if not top and self.heading is not None:
            out.append(_BREAK + "".join(self.heading) + _BREAK)
        for p in self.parts:
            if isinstance(p, _Section):
                if not p.is_question():
                    out.append(p.text(top=False))
            else:
                out.append(p)
        return "".join(out)


def _squash(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


_BREAK = "\x00"  # block boundary marker inside collected text
_PRE_NL = "\x01"  # a newline inside <pre>, kept so code stays one statement per line


def _clean_block_text(raw: str) -> str:
    """Collapse whitespace inside each block (HTML source wraps lines anywhere); blocks are
    separated by one blank line; lines of <pre> blocks stay lines."""
    paras: list[str] = []
    for block in raw.split(_BREAK):
        lines = [_squash(x) for x in block.split(_PRE_NL)]
        text = "\n".join(x for x in lines if x)
        if text:
            paras.append(text)
    return "\n\n".join(paras)


class _FaqParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[_Section] = []  # all, in document order
        self._stack: list[_Section] = []
        self._tags: list[str] = []  # open tags, to match </section> and skip ranges
        self._section_depths: list[int] = []  # len(_tags) right after each open section
        self._skip_depth = 0  # >0 while inside script/style/nav or a headerlink
        self._in_heading: str | None = None
        self._pre_depth = 0

    # Elements we track on the stack: sections, skip regions, headings, headerlink anchors.
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            if tag in {"br", "hr"}:
                self._emit(_BREAK)
            return
        a = dict(attrs)
        skip = tag in _SKIP or (tag == "a" and "headerlink" in (a.get("class") or "").split())
        if self._skip_depth or skip:
            self._tags.append(tag)
            self._skip_depth += 1
            return
        self._tags.append(tag)
        if tag == "section" or (tag == "div" and "section" in (a.get("class") or "").split()):
            self._section_depths.append(len(self._tags))
            sec = _Section(id=a.get("id") or "")
            if self._stack:
                self._stack[-1].parts.append(sec)
            self._stack.append(sec)
            self.sections.append(sec)
            return
        if self._in_heading is not None and self._stack and not self._stack[-1].id:
            self._stack[-1].id = a.get("id") or a.get("name") or ""
        if tag in _HEADINGS and self._stack and not self._stack[-1].heading_done:
            cur = self._stack[-1]
            cur.heading = []
            cur.heading_level = tag
            self._in_heading = tag
            return
        if tag == "pre":
            self._pre_depth += 1
        if tag in _BLOCK:
            self._emit(_BREAK)

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        # Pop to the matching open tag (tolerates unclosed <p>/<li> as browsers do).
        if tag not in self._tags:
            return
        while self._tags:
            is_section = bool(self._section_depths) and self._section_depths[-1] == len(self._tags)
            t = self._tags.pop()
            if self._skip_depth:
                self._skip_depth -= 1
                if t == tag:
                    return
                continue
            if is_section:
                self._section_depths.pop()
                if self._stack:
                    self._stack.pop()
            elif t == self._in_heading and self._stack:
                self._stack[-1].heading_done = True
                self._in_heading = None
            elif t in _BLOCK:
                if t == "pre":
                    self._pre_depth -= 1
                self._emit(_BREAK)
            if t == tag:
                return

    def handle_data(self, data: str) -> None:
        if self._skip_depth:
            return
        if self._pre_depth:
            data = data.replace("\n", _PRE_NL)
        self._emit(data)

    def _emit(self, s: str) -> None:
        if not self._stack:
            return
        cur = self._stack[-1]
        if self._in_heading is not None and not cur.heading_done:
            assert cur.heading is not None
            cur.heading.append(s)
        else:
            cur.parts.append(s)


def parse_faq_html(html: str, page: str) -> list[FaqPair]:
    """All question/answer pairs of one FAQ page, in document order."""
    p = _FaqParser()
    p.feed(html)
    p.close()
    pairs: list[FaqPair] = []
    for sec in p.sections:
        if not sec.id or not sec.is_question():
            continue
        answer = _clean_block_text(sec.text())
        if not answer:
            continue
        pairs.append(
            FaqPair(
                page=page,
                section_id=sec.id,
                question=sec.question(),
                answer_text=answer,
                url_path=f"faq/{page}.html#{sec.id}",
            )
        )
    return pairs
