"""The citation checker's labelled set (bench/quality/checker_set.py, checker_edits.py), its
evaluation's counting (bench/quality/checker.py) and the answer audit's metrics
(bench/quality/answer_audit.py): logic only, on small made-up sets, with no model (a fake
check stands in for the checker)."""

from __future__ import annotations

import difflib
import re
from types import SimpleNamespace

import pytest
from rewind.text import content_words

from bench.common import devsets
from bench.quality import answer_audit as aa
from bench.quality import checker, checker_set
from bench.quality import checker_edits as edits

_PAGES = [
    "The installer needs 512 megabytes of memory on most machines. If the disk is full, "
    "the installer stops before it writes anything. Run apt-get to fetch the packages "
    "from the mirror that Debian keeps in Germany. The function os.path.join builds the "
    "path of each file, and the script can also read it again later. Maintainers in Germany "
    "and Norway sign every release with their own keys before it reaches the mirrors.",
    "The database keeps 64 pages in its cache by default. When a transaction fails, the "
    "database rolls back every change it made. Use sqlite3 to open the file and inspect "
    "its schema on any machine. The call sqlite3_open opens a connection, and SQLite "
    "writes a journal beside the file. Developers in Charlotte and Germany test every "
    "release on several systems before it ships to users in Norway.",
    "The editor saves a backup every 10 minutes while you type. Because the backup is "
    "small, it does not slow the editor down on older machines. Type vim to start it "
    "from the shell in any folder you like. The option file_format decides how lines end, "
    "and the editor is not able to guess it alone. Volunteers in Norway translate the "
    "manual into many languages every spring.",
]
_OTHER = [
    "Gardeners plant tomatoes in warm soil after the last frost of the spring season. "
    "Farmers harvest wheat with large machines that cut and thresh the grain together. "
    "Bakers knead bread dough for several minutes until it becomes smooth and elastic. "
    "Fishermen repair their nets during the long winter months near the harbour walls.",
]


def _set(name: str, split: str) -> devsets.DevSet:
    answers = [devsets.Doc(f"a{i}", f"http://{name}.local/{i}", "", t, "answer")
               for i, t in enumerate(_PAGES)]
    pages = [devsets.Doc(f"p{i}", f"http://{name}.local/p{i}", "", t, "page")
             for i, t in enumerate(_OTHER)]
    qs = [devsets.Question(f"{name}:a{i}", f"What does page {i} say about it?", d.url,
                           d.doc_id, " ".join(d.text.split()[:12]), True, "full")
          for i, d in enumerate(answers)]
    return devsets.DevSet(name, split, answers + pages, qs)


def _items(split: str = "tune") -> list[checker_set.Item]:
    return checker_set.english_items([_set("fake-faq", split)], n=10)


def test_the_generator_is_deterministic_and_makes_every_kind():
    first, again = _items(), _items()
    assert first == again
    kinds = {i.kind for i in first}
    assert kinds == set(checker_set.KINDS), set(checker_set.KINDS) - kinds
    assert all(i.label == ("supported" if i.kind in checker_set.SUPPORTED else "unsupported")
               for i in first)


def _changed_tokens(a: str, b: str) -> set[str]:
    sm = difflib.SequenceMatcher(a=a.split(), b=b.split())
    out: set[str] = set()
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op != "equal":
            out |= set(a.split()[i1:i2]) | set(b.split()[j1:j2])
    return {t.lower().strip(".,") for t in out}


def test_each_kind_differs_from_its_sentence_as_it_says():
    docs = {d.doc_id: d.text for d in _set("fake-faq", "tune").docs}
    for it in _items():
        own = edits.claim_sentences(it.passage)
        if it.kind == "true":
            assert it.sentence in own
        elif it.kind in ("paraphrase", "prefix", "stopwords"):
            assert it.sentence not in own
            assert content_words(it.sentence) <= content_words(it.passage), it
        elif it.kind in ("changed_number", "changed_command", "changed_identifier",
                         "changed_name"):
            old, new = it.detail.split(" -> ")
            assert new not in it.passage and new in it.sentence, it
            assert it.sentence.replace(new, old, 1) in own, it
            if it.kind == "changed_number":
                assert re.fullmatch(r"[\d.,]+", new) and re.fullmatch(r"[\d.,]+", old)
            if it.kind == "changed_command":
                assert old in edits.COMMANDS and new in edits.COMMANDS
        elif it.kind == "negated":
            orig = max(own, key=lambda s: difflib.SequenceMatcher(a=s, b=it.sentence).ratio())
            changed = _changed_tokens(orig, it.sentence)
            assert changed and changed <= {"not", "cannot", "can", "never"}, (it, changed)
        elif it.kind in ("wrong_source", "other_page"):
            assert it.sentence not in it.passage and it.origin != it.url
            assert it.sentence in docs[it.origin], it
        elif it.kind == "added_claim":
            head, _, tail = it.sentence.partition(", and ")
            assert f"{head}." in own and tail and tail.rstrip(".") not in it.passage, it


def test_dev_items_come_only_from_tune_sources_and_held_out_only_from_held_out():
    assert all(i.split == "dev" for i in _items("tune"))
    assert all(i.split == "held-out" for i in _items("held-out"))
    with pytest.raises(ValueError):
        checker_set.english_items([_set("a", "tune"), _set("b", "held-out")])
    dev, held = checker_set.sources_for("dev"), checker_set.sources_for("held-out")
    assert set(dev) == {n for n, s in devsets.SPLITS.items() if s == "tune"}
    assert set(held) == {n for n, s in devsets.SPLITS.items() if s == "held-out"}


def test_build_loads_only_the_splits_own_sources(monkeypatch):
    loaded: list[str] = []

    def fake_load(name, cache=None, unchecked=None):
        loaded.append(name)
        return _set(name, devsets.SPLITS[name])

    monkeypatch.setattr(checker_set, "load_set", fake_load)
    items = checker_set.build("held-out", langs=(), n=2)
    assert set(loaded) == set(checker_set.sources_for("held-out"))
    assert items and {i.split for i in items} == {"held-out"}
    assert {i.source for i in items} <= set(loaded)


def test_edits_by_rule():
    rng = __import__("random").Random(0)
    s = "The cache holds 64 pages by default."
    out, what = edits.change_number(s, s, "", rng)
    assert out != s and "64" not in out and what.startswith("64 -> ")
    assert edits.negate("The editor is able to guess it.")[0] == (
        "The editor is not able to guess it.")
    assert edits.negate("Git doesn’t provide a way.")[0] == "Git does provide a way."
    assert edits.negate("Cela ajoute, c’est-à-dire la conversion.", "fr") is None
    assert edits.negate("It does not slow the editor down.")[0] == "It does slow the editor down."
    assert edits.negate("Il est rapide.", "fr")[0] == "Il n'est pas rapide."
    assert edits.negate("Das ist schnell.", "de")[0] == "Das ist nicht schnell."
    assert edits.negate("There is no way to do it.") is None  # would double the negation
    para = edits.paraphrase("If the disk is full, the installer stops early.")
    assert para and para[0] == "The installer stops early if the disk is full."
    pre = edits.prefix("The call opens a connection to the file, and the library writes a journal.")
    assert pre and pre[0] == "The call opens a connection to the file."
    assert edits.prefix("It supports the languages C, Fortran, and Pascal well.") is None
    assert edits.identifiers("Use os.path.join or read_file() in the U.S. e.g. here") == [
        "os.path.join", "read_file()"]


# ---- the evaluation's counting --------------------------------------------------------


def _item(kind: str) -> checker_set.Item:
    label = "supported" if kind in checker_set.SUPPORTED else "unsupported"
    return checker_set.Item(f"x:{kind}", "dev", "x", "en", kind, label, "Q?", "A claim.",
                            "A claim.", "", "http://x", "x", "")


def test_a_sentence_counts_as_accepted_only_when_shown_citing_its_passage():
    answers = {  # kind -> the checks the fake checker returns
        "true": [("ok", [1])],
        "paraphrase": [("added", [2])],  # shown, but citing another source
        "prefix": [("quoted", [1]), ("no_claim", [])],
        "negated": [("ok", [1]), ("unsupported", [])],  # one piece hidden
        "other_page": [("corrected", [1])],
    }

    def fake_check(text, sources, embed, settings, question):
        assert text == "A claim [Source 1]." and sources[0].texts == ["A claim."]
        kind = fake_check.kind
        checks = [SimpleNamespace(status=s, sources=src, support=0.5) for s, src in answers[kind]]
        return SimpleNamespace(checks=checks)

    got = {}
    for kind in answers:
        fake_check.kind = kind
        got[kind] = checker.judge([_item(kind)], None, None, check=fake_check)[0]
    assert [got[k].accepted for k in answers] == [True, False, True, False, True]
    assert [checker.wrong(got[k]) for k in answers] == [False, True, False, False, True]
    row = checker.rate_row("all", list(got.values()))
    assert row == ["all", "5", "50.0% (1/2)", "33.3% (1/3)"]


# ---- the audit ------------------------------------------------------------------------


def test_the_audit_rejects_a_sentence_with_a_word_its_page_lacks():
    page = "Python was created by Guido van Rossum and first released in 1991."
    ok = aa.audit("“Python was first released in 1991.” [Source 1]", page)
    assert ok.ok and ok.share == 1.0
    bad = aa.audit("Python was first released in 1991 by a banana company [Source 2].", page)
    assert not bad.ok and "banana" in bad.missing and "compan" in " ".join(bad.missing)
    # the question's own words are not held against it
    assert aa.audit("Bananas were released in 1991.", page, "When were bananas released?").ok
    assert not aa.audit("It came out in 1992.", page).ok  # a number the page lacks


def test_recall_and_paths():
    keys = aa.key_words("Use the os module. It removes files. Nothing else matters.",
                        "How do I delete a file?")
    assert keys == content_words("Use the os module. It removes files.") - content_words(
        "How do I delete a file?")
    assert aa.recall("Use the os module [Source 1].", keys) == pytest.approx(
        len(content_words("use os module")) / len(keys))
    assert aa.recall("anything", set()) is None
    assert aa.path(["quoted", "quoted"]) == "reader"
    assert aa.path(["ok", "no_claim"]) == "model"
    assert aa.path(["quoted", "added"]) == "both"
    assert aa.path(["unsupported"]) == "none"
    assert aa.plain("“It works.” [Source 1]") == "It works."
