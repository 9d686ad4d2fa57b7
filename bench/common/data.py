"""Real, offline evaluation data for the benchmarks: the Python FAQ as question/answer pairs.

Job: fetch the Debian package `python3.11-doc` with the system's own apt client into a cache
folder, parse `faq/*.html` into (question, answer) pairs, and derive known-item queries (a few
rare words remembered from an answer). Never: download anything but that one package, write
outside the cache folder, or need a third-party HTML library (the standard html.parser does).

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
import os
import random
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import filelock

PACKAGE = "python3.11-doc"
HTML_SUBDIR = Path("usr/share/doc/python3.11/html")
URL_BASE = "http://docs.python.local"  # synthetic, never fetched: one distinct URL per answer


def default_cache() -> Path:
    """$REWIND_EVAL_CACHE, else <repo>/.cache/eval-data (ignored by git)."""
    env = os.environ.get("REWIND_EVAL_CACHE")
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[2] / ".cache" / "eval-data"


class EvalDataError(RuntimeError):
    """The evaluation data could not be fetched; the message says what to install or run."""


# ----------------------------------------------------------------------------- fetching


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def python_docs(cache: Path | None = None) -> Path:
    """Return the html root of the Python 3.11 docs, fetching the Debian package once.

    Idempotent: when the extracted tree is in the cache, returns at once without apt.
    """
    return debian_package(PACKAGE, HTML_SUBDIR / "faq", cache).joinpath(HTML_SUBDIR)


def debian_package(package: str, expect: Path, cache: Path | None = None) -> Path:
    """Return the folder where Debian package `package` is extracted (fetched once with
    `apt-get download` + `dpkg-deb -x`); `expect`, a path inside the package, must exist."""
    cache = Path(cache) if cache is not None else default_cache()
    dest = cache / package
    done = dest / ".complete"
    if done.exists() and (dest / expect).exists():
        return dest

    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise EvalDataError(
                f"`{tool}` is not available, so the {package} package cannot be fetched. "
                f"Run the benchmarks on a Debian/Ubuntu machine, or extract the package "
                f"yourself into {dest} (so that {dest / expect} exists) and create {done}."
            )

    cache.mkdir(parents=True, exist_ok=True)
    # Tests and benchmarks may fetch at the same time: one fetches, the others wait.
    with filelock.FileLock(str(cache / f".{package}.lock")):
        if done.exists() and (dest / expect).exists():
            return dest
        _fetch(cache, dest, package, expect)
    return dest


def _fetch(cache: Path, dest: Path, package: str, expect: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="rewind-eval-", dir=cache) as tmp_s:
        tmp = Path(tmp_s)
        got = _run(["apt-get", "download", package], tmp)
        if got.returncode != 0:
            # The package lists may be missing or stale: refresh once, then retry.
            upd = _run(["apt-get", "update"], tmp)
            got = _run(["apt-get", "download", package], tmp)
            if got.returncode != 0:
                raise EvalDataError(
                    f"`apt-get download {package}` failed: {got.stderr.strip()[-500:]}"
                    + (
                        f"\n(apt-get update also failed: {upd.stderr.strip()[-300:]})"
                        if upd.returncode != 0
                        else ""
                    )
                    + f"\nCheck the apt sources, or install the package "
                    f"(`apt-get install {package}`) and copy its files under {dest}."
                )
        debs = sorted(tmp.glob(f"{package}_*.deb"))
        if not debs:
            raise EvalDataError(f"apt-get reported success but no {package} .deb appeared")
        staging = tmp / "x"
        ext = _run(["dpkg-deb", "-x", str(debs[-1]), str(staging)], tmp)
        if ext.returncode != 0:
            raise EvalDataError(f"`dpkg-deb -x` failed: {ext.stderr.strip()[-500:]}")
        if not (staging / expect).exists():
            raise EvalDataError(f"{debs[-1].name} has no {expect}")
        if dest.exists():
            shutil.rmtree(dest)
        # Move the finished tree in one step, so a crash never leaves a half tree marked done.
        staging.rename(dest)
        (dest / ".complete").write_text(debs[-1].name + "\n")


# ----------------------------------------------------------------------------- parsing


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


def faq_pairs(html_root: Path) -> list[FaqPair]:
    """Question/answer pairs of every faq/*.html page under the docs' html root (sorted)."""
    faq = Path(html_root) / "faq"
    if not faq.is_dir():
        raise EvalDataError(f"{faq} does not exist: call python_docs() first")
    pairs: list[FaqPair] = []
    for f in sorted(faq.glob("*.html")):
        pairs.extend(parse_faq_html(f.read_text(encoding="utf-8"), f.stem))
    ids = [p.doc_id for p in pairs]
    if len(set(ids)) != len(ids):
        raise EvalDataError("duplicate FAQ section ids: the parser or the docs changed")
    return pairs


# ----------------------------------------------------------------------------- queries

# English function words plus words every FAQ answer uses; a query made of them is not
# "something remembered from the page". Our own list, kept short on purpose.
_STOPWORD_TEXT = """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn doing
    don down during each either else etc even ever every few for from further get gets got had
    hadn has hasn have haven having he her here hers herself him himself his how however if in
    into is isn it its itself just let like may me might more most much must mustn my myself
    need no nor not now of off often on once one only or other others ought our ours ourselves
    out over own same shall shan she should shouldn since so some such than that the their
    theirs them themselves then there these they this those though through thus to too under
    until up upon us use used uses using very via was wasn way we well were weren what when
    where whether which while who whom whose why will with within without won would wouldn yes
    yet you your yours yourself yourselves"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_TOKEN = re.compile(r"[a-z][a-z0-9]*")
MIN_TERM_LEN = 4  # "very short tokens" (ids like x, f, os) are poor remembered words


def terms(text: str) -> list[str]:
    """Lower-cased alphanumeric words as a keyword index sees them (split on '_', '.', etc.)."""
    return _TOKEN.findall(text.lower())


def _candidate_terms(text: str) -> set[str]:
    return {t for t in terms(text) if len(t) >= MIN_TERM_LEN and t not in STOPWORDS}


@dataclass(frozen=True)
class Query:
    text: str
    gold: str  # FaqPair.doc_id of the relevant answer


def question_queries(pairs: list[FaqPair]) -> list[Query]:
    """The FAQ headings as queries; gold = their own answer."""
    return [Query(p.question, p.doc_id) for p in pairs]


def known_item_queries(
    pairs: list[FaqPair], n_terms: int = 3, seed: int = 0, pool: int = 8
) -> list[Query]:
    """Known-item simulation: a few of an answer's rarest words as the query; gold = the answer.

    Terms are ranked by document frequency over the answers (rarest first; ties broken by
    higher frequency inside the answer, then alphabetically, so the ranking is deterministic),
    and `n_terms` are sampled from the `pool` rarest with a seeded RNG per answer. Words are
    kept in the order they first appear in the answer, as a person would recall them.
    """
    if not 1 <= n_terms <= 10:
        raise ValueError("n_terms must be between 1 and 10")
    cands = [_candidate_terms(p.answer_text) for p in pairs]
    df: Counter[str] = Counter()
    for c in cands:
        df.update(c)
    out: list[Query] = []
    for i, (p, c) in enumerate(zip(pairs, cands, strict=True)):
        if not c:
            continue
        toks = terms(p.answer_text)
        tf = Counter(toks)
        ranked = sorted(c, key=lambda t: (df[t], -tf[t], t))
        top = ranked[: max(pool, n_terms)]
        rng = random.Random(f"{seed}:{i}")  # per-answer stream: stable if pairs are added
        chosen = set(rng.sample(top, min(n_terms, len(top))))
        first = {t: toks.index(t) for t in chosen}
        out.append(Query(" ".join(sorted(chosen, key=first.__getitem__)), p.doc_id))
    return out
