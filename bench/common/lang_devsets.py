"""Development sets in several languages: the Debian Reference, written in English and
translated into German, French, Spanish, Italian, Japanese and Chinese.

Job: per language, the sections of the Debian Reference 2.100 (Debian packages
debian-reference-<lang>; DocBook HTML, every section has the same id in every language)
whose heading and text are translated: a section is a page of the corpus (its own text,
up to its first subsection, WITHOUT its heading, cut to its first PAGE_WORDS words), its
heading is the query — in the page's
language ("native") and, for the same section id, the English original ("English"). So an
English question is asked of German pages, as a person who reads German but searches in
English would. A section is left out when its text is under MIN_WORDS words, when its
heading is not translated (the same as the English one), when its text is not in the
language (py3langid: untranslated paragraphs are common), and when its heading occurs twice
in the language (no single answer). Known-item queries: three of the rarest words of each
page (bench/common/data.py), counted by units (capture/units.py) for CJK.
For the 2-core budget a store holds MAX_PAGES sections (a seeded sample by id, so mostly
the same sections in every language) and MAX_QUERIES queries of each kind are asked.
Split: chapters 1-6 "dev" and the rest (chapters 7-12, appendix) "held-out": nothing in
Rewind was tuned on either (the analyzers and the model are used as they come); the
held-out figures are the ones the targets are read on.
Not the Debian FAQ: its translations are kept for an independent check (issue 21).
Never: download anything but the named packages, write outside the cache folder.
"""

from __future__ import annotations

import hashlib
import html as htmlmod
import random
import re
from dataclasses import dataclass
from pathlib import Path

from bench.common import data
from bench.common.devset_make import _Files, _html_text

PACKAGE = "debian-reference-{lang}"
REL = Path("usr/share/debian-reference")
LANGS = {"de": "de", "fr": "fr", "es": "es", "it": "it", "ja": "ja", "zh": "zh-cn"}
MIN_WORDS = 25
PAGE_WORDS = 120  # a page is the start of its section (2-core budget: ~1 passage a page)
# A seeded sample, for the 2-core budget: pages a store, and queries of each kind a split.
MAX_PAGES = 200
MAX_QUERIES = {("native", "held-out"): 40, ("native", "dev"): 20,
               ("english", "held-out"): 40, ("english", "dev"): 20,
               ("known-item", "held-out"): 30, ("known-item", "dev"): 0}
HELD_OUT_FROM = 7  # chapters from this one on (and the appendix) are held out
_HEADING = re.compile(
    r'<h([2-5]) class="title"><a id="([^"]+)"\s*/?>(?:</a>)?(.*?)</h\1>', re.S)
_NUMBER = re.compile(r"^\s*[0-9A-Z]+(\.[0-9]+)*\.\s*")


@dataclass(frozen=True)
class Section:
    sid: str  # the DocBook id, the same in every language
    chapter: str  # "ch02", "apa"
    title: str
    text: str


@dataclass(frozen=True)
class Query:
    text: str
    gold: str  # section id
    kind: str  # "native" | "english" | "known-item"
    split: str  # "dev" | "held-out"


@dataclass(frozen=True)
class LangSet:
    lang: str
    docs: list[Section]
    queries: list[Query]
    note: str

    def url(self, sid: str) -> str:
        return f"http://debian-reference-{self.lang}.local/p?s=" + hashlib.sha1(
            sid.encode()).hexdigest()[:12]


def _sections(html: str, chapter: str) -> list[Section]:
    """Each heading's own text: from the heading to the next heading of any level."""
    out = []
    marks = list(_HEADING.finditer(html))
    for m, nxt in zip(marks, [*marks[1:], None], strict=True):
        body = html[m.end(): nxt.start() if nxt else len(html)]
        title = _NUMBER.sub("", htmlmod.unescape(re.sub(r"<[^>]+>", "", m.group(3)))).strip()
        text = _html_text(f"<html><body>{body}</body></html>")[1]
        out.append(Section(m.group(2), chapter, re.sub(r"\s+", " ", title), text))
    return out


def _read(lang_dir: str, cache: Path | None, pin: bool) -> tuple[dict[str, Section], _Files]:
    package = PACKAGE.format(lang=lang_dir)
    pkg = data.debian_package(package, REL / f"index.{lang_dir}.html", cache)
    files = _Files(package, pkg, pin)
    out: dict[str, Section] = {}
    for f in sorted((pkg / REL).glob(f"*.{lang_dir}.html")):
        chapter = f.name.split(".")[0]
        if not re.match(r"(ch\d\d|ap[a-z])$", chapter):
            continue
        for s in _sections(files.read(f), chapter):
            out[s.sid] = s
    return out, files


def _split(chapter: str) -> str:
    return "dev" if chapter.startswith("ch") and int(chapter[2:]) < HELD_OUT_FROM \
        else "held-out"


def load(lang: str, cache: Path | None = None, pin: bool = False) -> LangSet:
    """The set of one language ("en" gives the English original, native queries only)."""
    from rewind.capture.units import count_words
    from rewind.index.derived.languages import detect

    english, files_en = _read("en", cache, pin)
    if lang == "en":
        native, files = english, files_en
    else:
        native, files = _read(LANGS[lang], cache, pin)
    if pin:
        files.save()
        files_en.save()
    counts: dict[str, int] = {}
    for s in native.values():
        counts[s.title.lower()] = counts.get(s.title.lower(), 0) + 1
    docs, dropped = [], {"short": 0, "untranslated": 0, "other language": 0, "ambiguous": 0}
    for sid, s in native.items():
        en = english.get(sid)
        if en is None or count_words(s.text) < MIN_WORDS:
            dropped["short"] += 1
        elif lang != "en" and s.title.strip().lower() == en.title.strip().lower():
            dropped["untranslated"] += 1
        elif detect(s.text).lang != lang:
            dropped["other language"] += 1
        elif counts[s.title.lower()] > 1:
            dropped["ambiguous"] += 1
        else:
            docs.append(Section(s.sid, s.chapter, s.title, _first_words(s.text, PAGE_WORDS)))
    queries = []
    for s in docs:
        queries.append(Query(s.title, s.sid, "native", _split(s.chapter)))
        if lang != "en":
            queries.append(Query(english[s.sid].title, s.sid, "english", _split(s.chapter)))
    kept_all = list(docs)
    rng = random.Random(f"lang-devsets:{lang}")
    if len(docs) > MAX_PAGES:  # by section id: the same sample of sections in every language
        docs = sorted(rng.sample(sorted(docs, key=lambda d: d.sid), MAX_PAGES),
                      key=lambda d: d.sid)
    kept = {d.sid for d in docs}
    queries = [q for q in queries if q.gold in kept] + _known_items(docs)
    picked = []
    for kind in ("native", "english", "known-item"):
        for split in ("dev", "held-out"):
            group = [q for q in queries if q.kind == kind and q.split == split]
            n = MAX_QUERIES[(kind, split)]
            picked += group if len(group) <= n else rng.sample(group, n)
    queries = picked
    note = (f"Debian Reference 2.100 ({PACKAGE.format(lang=LANGS.get(lang, 'en'))}): "
            f"{len(docs)} pages sampled of {len(kept_all)} usable sections of {len(native)}; "
            "left out "
            + ", ".join(f"{v} {k}" for k, v in dropped.items() if v))
    return LangSet(lang, docs, queries, note)


def _first_words(text: str, n: int) -> str:
    from rewind.capture.units import cut

    pieces = cut(text, n)
    return text if len(pieces) <= 1 else text[: text.find(pieces[1])].strip()


def _known_items(docs: list[Section], n_terms: int = 3) -> list[Query]:
    """Three of the rarest terms of each page (document frequency over the set; terms as
    the keyword index makes them: words, or CJK character pairs)."""
    from rewind.index.derived.analysis import Analysis

    a = Analysis()
    terms = {s.sid: [t for t in dict.fromkeys(a.terms(s.text, "plain")) if len(t) > 1
                     and not t.isdigit()] for s in docs}
    df: dict[str, int] = {}
    for ts in terms.values():
        for t in ts:
            df[t] = df.get(t, 0) + 1
    out = []
    for s in docs:
        rare = sorted(terms[s.sid], key=lambda t: (df[t], terms[s.sid].index(t)))[:n_terms]
        if len(rare) == n_terms:
            out.append(Query(" ".join(rare), s.sid, "known-item", _split(s.chapter)))
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Show (or --pin the checksums of) the sets.")
    ap.add_argument("--pin", action="store_true", help="record the files' checksums")
    ap.add_argument("--cache", type=Path, default=None)
    args = ap.parse_args(argv)
    for lang in ["en", *LANGS]:
        s = load(lang, args.cache, args.pin)
        kinds = {k: sum(q.kind == k for q in s.queries) for k in ("native", "english",
                                                                     "known-item")}
        held = sum(q.split == "held-out" and q.kind == "native" for q in s.queries)
        print(f"{lang}: {len(s.docs)} pages, queries {kinds}, held-out {held}; {s.note}")
        for q in s.queries[:4]:
            print("   ", q.kind, q.split, q.text[:70])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
