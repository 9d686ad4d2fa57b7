"""How a development set is made (bench/common/devsets.py loads them): its records (`Doc`,
`Question`, `DevSet`), the checked reading of every file a source reads, and the dealing of
a source's answers into folds.

Job: read each file through `_Files` (checked against bench/sets/checksums.json, or recorded
into it with pin=True), turn a page into text the way `rewind index` does, sample the
distractor pages, and make a `DevSet` of (answer, question, hint) triples: each question
asked of the full store and of the store without its fold (answer i in fold i % FOLDS), with
known-item queries over the full store. Never: fetch anything (bench/common/data.py and
bench/common/devset_sources.py do), know a source's file layout, or write anything but the
checksum file, and that only when asked to pin.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
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

