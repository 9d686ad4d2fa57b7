"""The citation checker's labelled set: sentences cited to a passage, each labelled
supported or unsupported, made by rule (seeded) from the development sets' own pages.

Job: for a seeded sample of gold answer passages (a gold page of a question, cut into
passages the way the engine cuts it, capture/ingest.py `prepare`; the passage holding the
question's hint), items (question, sentence, cited passage, label, kind):
- supported: `true` (a sentence of the passage, verbatim), `paraphrase` (a leading
  condition moved, a discourse marker or an aside dropped), `prefix` (the sentence up to a
  clause boundary), `stopwords` (stop words changed) — see checker_edits.py;
- unsupported: `changed_number`, `changed_command`, `changed_identifier`, `changed_name`,
  `negated`, `wrong_source` (a true sentence of the nearest other sampled passage of the
  same source, cited to this one), `other_page` (a sentence of another page of the source),
  `added_claim` (a true sentence with a clause of another page appended).
English: the FAQ sources and wiki (bench/common/devsets.py). Other languages: the Debian
Reference (bench/common/lang_devsets.py) for true, wrong_source, other_page,
changed_number and negated. The question is always the one the cited passage answers.
Split: "dev" items come from the TUNE sources only (python-faq, django-faq; the Debian
Reference's chapters 1-6), "held-out" items from the HELD-OUT sources only (debian-faq,
sqlite-faq, git-faq, wiki; chapters 7-12 and the appendix); the pools that swapped
commands, identifiers and names come from are drawn from the same split's pages.
Never: mix the splits, tune anything on held-out items (fit on dev; report held-out), or
draw randomness from anything but SEED and the item's own name.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rewind.text import content_words

from bench.common import devsets
from bench.quality import checker_edits as edits

SEED = 0
N_PASSAGES = 30  # gold passages sampled per English source
N_LANG_PASSAGES = 15  # per language and split
LANGS = ("de", "fr", "es", "it", "ja", "zh")
SPLIT_OF = {"tune": "dev", "held-out": "held-out"}  # devsets' split -> the set's split
SUPPORTED = ("true", "paraphrase", "prefix", "stopwords")
UNSUPPORTED = ("changed_number", "changed_command", "changed_identifier", "changed_name",
               "negated", "wrong_source", "other_page", "added_claim")
KINDS = SUPPORTED + UNSUPPORTED
LANG_KINDS = ("true", "changed_number", "negated", "wrong_source", "other_page")
MAX_SHARE = 0.8  # a sentence from elsewhere sharing more of its words with the passage is skipped


@dataclass(frozen=True)
class Item:
    id: str
    split: str  # "dev" | "held-out"
    source: str  # a devsets source, or debian-reference-<lang>
    lang: str
    kind: str
    label: str  # "supported" | "unsupported"
    question: str
    sentence: str
    passage: str  # the cited passage, as the engine cut it
    title: str  # the cited page's title
    url: str
    origin: str  # the doc the sentence came from
    detail: str  # what was changed

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Passage:
    source: str
    split: str
    lang: str
    doc_id: str
    url: str
    title: str
    text: str
    question: str


@dataclass(frozen=True)
class Pools:
    """What near misses swap in, from one split's pages."""
    commands: tuple[str, ...]
    identifiers: tuple[str, ...]
    names: tuple[str, ...]


def sources_for(split: str) -> list[str]:
    """The devsets sources a split's items come from: "dev" tune ones, "held-out" the rest."""
    want = {v: k for k, v in SPLIT_OF.items()}[split]
    return devsets.names(want)


def chunks(text: str, title: str = "") -> list[str]:
    """A page's passages as the engine cuts them (masking included), its title left out."""
    from rewind.capture.ingest import PageInput, prepare
    from rewind.config import Settings

    try:
        prepared = prepare(PageInput("http://checker.local/p", title=title, text=text),
                           Settings())
    except Exception:  # a page too short to store: the engine keeps nothing of it either
        return []
    return [p.text for p in prepared.passages if not p.is_title]


def pools_for(texts: Sequence[str]) -> Pools:
    cmds = {c for t in texts for c in edits.commands(t)}
    idents = {i for t in texts for i in edits.identifiers(t)}
    return Pools(tuple(sorted(cmds)), tuple(sorted(idents)), tuple(edits.name_pool(texts)))


def gold_passages(ds: devsets.DevSet, n: int) -> list[Passage]:
    """A seeded sample of `n` answerable questions' gold passages (the passage holding the
    hint, else the page's first), each with at least one claim sentence."""
    by_id = {d.doc_id: d for d in ds.docs}
    qs = [q for q in ds.asked() if q.answerable and q.store == "full" and q.gold_doc]
    rng = random.Random(f"{SEED}:{ds.name}:passages")
    out: list[Passage] = []
    for q in rng.sample(qs, len(qs)):
        if len(out) == n:
            break
        doc = by_id[q.gold_doc]  # type: ignore[index]
        cut = chunks(doc.text, doc.title)
        hint = " ".join((q.gold_passage_hint or "").split()[:6])
        text = next((c for c in cut if hint and hint in c), cut[0] if cut else "")
        if text and edits.claim_sentences(text):
            out.append(Passage(ds.name, SPLIT_OF[ds.split], "en", doc.doc_id, doc.url,
                               doc.title, text, q.question))
    return sorted(out, key=lambda p: p.doc_id)


def other_sentences(docs: Iterable[devsets.Doc], lang: str = "en") -> list[tuple[str, str]]:
    """(doc id, claim sentence) of pages: what other_page and added_claim draw from."""
    return [(d.doc_id, s) for d in docs for s in edits.claim_sentences(d.text, lang)
            if lang != "en" or edits.fluent(s)]


def _share(sentence: str, passage: Passage) -> float:
    mine = content_words(sentence) - content_words(passage.question)
    if not mine:
        return 1.0
    return len(mine & content_words(passage.text)) / len(mine)


def _foreign(p: Passage, others: Sequence[tuple[str, str]], rng: random.Random
             ) -> tuple[str, str] | None:  # fmt: skip
    """A sentence of another page that the passage does not say (seeded, 30 tries)."""
    for _ in range(30):
        if not others:
            return None
        doc, s = rng.choice(others)
        if doc != p.doc_id and s not in p.text and _share(s, p) < 0.5:
            return doc, s
    return None


def _nearest(p: Passage, peers: Sequence[Passage], rng: random.Random
             ) -> tuple[str, str] | None:  # fmt: skip
    """A true sentence of the peer passage nearest in words, which this passage lacks."""
    mine = content_words(p.text)
    ranked = sorted((q for q in peers if q.doc_id != p.doc_id),
                    key=lambda q: (-len(mine & content_words(q.text)), q.doc_id))
    for q in ranked[:5]:
        cands = [s for s in edits.claim_sentences(q.text, p.lang)
                 if s not in p.text and _share(s, p) < MAX_SHARE]
        if cands:
            return q.doc_id, rng.choice(cands)
    return None


def _edit(kind: str, s: str, p: Passage, pools: Pools, rng: random.Random) -> edits.Edit | None:
    if kind == "paraphrase":
        return edits.paraphrase(s)
    if kind == "prefix":
        return edits.prefix(s)
    if kind == "stopwords":
        return edits.stopwords(s)
    if kind == "changed_number":
        return edits.change_number(s, p.text, p.question, rng)
    if kind == "changed_command":
        return edits.change_token(s, pools.commands, p.text, p.question, rng)
    if kind == "changed_identifier":
        return edits.change_token(s, pools.identifiers, p.text, p.question, rng)
    if kind == "changed_name":
        return edits.change_name(s, pools.names, p.text, p.question, rng)
    if kind == "negated":
        return edits.negate(s, p.lang)
    raise ValueError(kind)


def items_for(p: Passage, kinds: Sequence[str], peers: Sequence[Passage],
              others: Sequence[tuple[str, str]], pools: Pools) -> list[Item]:  # fmt: skip
    """One item of each kind that the passage allows (a kind with nothing to edit: none)."""
    own = edits.claim_sentences(p.text, p.lang)
    out: list[Item] = []
    for kind in kinds:
        rng = random.Random(f"{SEED}:{p.source}:{p.doc_id}:{kind}")
        made: tuple[str, str, str] | None = None  # sentence, origin, detail
        if kind == "true":
            made = (rng.choice(own), p.doc_id, "verbatim")
        elif kind == "wrong_source":
            got = _nearest(p, peers, rng)
            made = got and (got[1], got[0], "true of the nearest other passage")
        elif kind == "other_page":
            got = _foreign(p, others, rng)
            made = got and (got[1], got[0], "a sentence of another page")
        elif kind == "added_claim":
            for s in rng.sample(own, len(own)):
                got = _foreign(p, others, rng)
                edit = got and edits.add_claim(s, got[1], p.text, p.question)
                if edit:
                    made = (edit[0], f"{p.doc_id}+{got[0]}", edit[1])  # type: ignore[index]
                    break
        else:
            for s in rng.sample(own, len(own)):
                edit = _edit(kind, s, p, pools, rng)
                if edit and edit[0] != s:
                    made = (edit[0], p.doc_id, edit[1])
                    break
        if made:
            label = "supported" if kind in SUPPORTED else "unsupported"
            out.append(Item(f"{p.source}:{p.doc_id}:{kind}", p.split, p.source, p.lang, kind,
                            label, p.question, made[0], p.text, p.title, p.url, made[1],
                            made[2]))  # fmt: skip
    return out


def english_items(sets: Sequence[devsets.DevSet], n: int = N_PASSAGES) -> list[Item]:
    """Items of every kind from these sources, which must all be of one split; the pools
    are that split's pages."""
    splits = {SPLIT_OF[ds.split] for ds in sets}
    if len(splits) > 1:
        raise ValueError(f"sources of several splits mixed: {sorted(splits)}")
    pools = pools_for([d.text for ds in sets for d in ds.docs])
    out: list[Item] = []
    for ds in sets:
        passages = gold_passages(ds, n)
        pages = [d for d in ds.docs if d.kind == "page"] or ds.docs
        others = other_sentences(pages)
        for p in passages:
            out += items_for(p, KINDS, passages, others, pools)
    return out


def lang_items(lang: str, split: str, n: int = N_LANG_PASSAGES,
               cache: Path | None = None) -> list[Item]:  # fmt: skip
    """Items (LANG_KINDS) from one language's Debian Reference sections of one split:
    "dev" chapters 1-6, "held-out" the rest (lang_devsets' split)."""
    from bench.common import lang_devsets

    ls = lang_devsets.load(lang, cache)
    secs = [s for s in ls.docs if lang_devsets._split(s.chapter) == split]
    source = f"debian-reference-{lang}"
    passages = []
    for s in secs:
        cut = chunks(s.text)
        if cut and edits.claim_sentences(cut[0], lang):
            passages.append(Passage(source, split, lang, s.sid, ls.url(s.sid), "", cut[0],
                                    s.title))  # fmt: skip
    rng = random.Random(f"{SEED}:{source}:{split}:passages")
    chosen = sorted(rng.sample(passages, min(n, len(passages))), key=lambda p: p.doc_id)
    others = [(p.doc_id, s) for p in passages for s in edits.claim_sentences(p.text, lang)]
    empty = Pools((), (), ())
    return [i for p in chosen for i in items_for(p, LANG_KINDS, chosen, others, empty)]


def load_set(name: str, cache: Path | None = None, unchecked: list[str] | None = None
             ) -> devsets.DevSet:  # fmt: skip
    """devsets.load; when `unchecked` is a list, a source whose files differ from
    bench/sets/checksums.json is read all the same and its name added to the list (a
    rebuilt Debian doc package changes its footer's date): the report must say so."""
    try:
        return devsets.load(name, cache)
    except devsets.ChecksumError:
        if unchecked is None:
            raise
        unchecked.append(name)
        return devsets._LOADERS[name](cache, True)[0]  # read, not recorded


def build(split: str, cache: Path | None = None, langs: Sequence[str] = LANGS,
          n: int = N_PASSAGES, n_lang: int = N_LANG_PASSAGES,
          unchecked: list[str] | None = None) -> list[Item]:  # fmt: skip
    """The labelled set of one split ("dev" or "held-out"), English then other languages
    (see load_set for `unchecked`)."""
    sets = [load_set(name, cache, unchecked) for name in sources_for(split)]
    out = english_items(sets, n)
    for lang in langs:
        out += lang_items(lang, split, n_lang, cache)
    return out
