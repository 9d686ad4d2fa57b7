"""The closest thing you read (answers/closest.py): when no answer is backed but search
found a page near the question, its best passage, quoted and cited.

The quote's rules are tested on passages written here; the issue's own case — the demo's
eight pages of the Python documentation, "How do I sort a list of objects by an
attribute?" — with the real embedding model, the real pages (Debian's python3.11-doc, read
by the host's HTML extraction, as `rewind index` does) and the real offline GGUF.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from rewind.answers.answer import Answerer
from rewind.answers.citations import Meaning
from rewind.answers.closest import QUOTE_WORDS, closest, quote
from rewind.answers.packing import Evidence, Source
from rewind.answers.prompt import COULD_NOT_FIND
from rewind.capture.extract import html_document
from rewind.capture.ingest import PageInput
from rewind.config import Settings
from rewind.profile.engine import Rewind
from rewind.text import sentences

from demo.browser_demo import PAGES

SORTING_Q = "How do I sort a list of objects by an attribute?"
BASE = "http://127.0.0.1:8000/"  # the demo serves the docs on 127.0.0.1
SORTING = f"{BASE}howto/sorting.html"
LONG = ("Python lists have a built-in sort method. There is also a sorted function. "
        "In this document we explore the various techniques for sorting data using Python. "
        "Both list.sort and sorted have a key parameter to specify a function to be called "
        "on each list element prior to making comparisons. The value of the key parameter "
        "should be a function that takes a single argument and returns a key to use for "
        "sorting purposes. This technique is fast because the key function is called "
        "exactly once for each input record. A common pattern is to sort complex objects "
        "using some of the object's indices as keys. The same technique works for objects "
        "with named attributes. The operator module has itemgetter and attrgetter.")


def test_a_short_passage_is_quoted_whole():
    text = "Feed the starter once a day. Keep it warm."
    assert quote("How often do I feed it?", text, "", None, None) == text


def test_a_long_passage_is_cut_to_its_sentences_about_the_question_verbatim():
    q = quote("How do I sort objects by a named attribute?", LONG, "Sorting HOW TO", None, None)
    body = q.removeprefix("… ").removesuffix(" …")
    assert body in LONG, "the quote is the passage's own text"
    assert "The same technique works for objects with named attributes." in body
    assert len(body.split()) <= QUOTE_WORDS
    assert q.startswith("… ")  # cut before
    assert body.split()[0][0].isupper() and body.rstrip().endswith(".")  # whole sentences
    kept = [s for s in sentences(LONG) if s in body]
    assert " ".join(kept) == body  # a run of consecutive sentences, none cut


def test_one_overlong_sentence_is_cut_at_a_word_and_says_so():
    run_on = " ".join(f"word{i}" for i in range(200)) + "."
    q = quote("word7", run_on, "", None, None)
    assert q.endswith(" …") and len(q.removesuffix(" …").split()) == QUOTE_WORDS
    assert run_on.startswith(q.removesuffix(" …"))


def test_meaning_chooses_the_sentences_when_an_embedder_is_given():
    sents = sentences(LONG)
    target = sents.index("The operator module has itemgetter and attrgetter.")

    def embed(texts: list[str]) -> np.ndarray:  # a stand-in that likes one sentence
        return np.array([[1.0, 0.0] if "attrgetter" in t else [0.0, 1.0] for t in texts])

    q = quote("zzz", LONG, "", Meaning(embed, None), np.array([1.0, 0.0]))  # reference scale
    assert sents[target] in q and q.startswith("… ") and not q.endswith(" …")


def test_closest_takes_the_first_source_with_a_passage():
    ev = Evidence(kind="history", text=LONG, url="https://docs.example/sorting",
                  title="Sorting HOW TO", score=1.0)
    empty = Source(1, "history", "https://docs.example/empty", "Empty", None, 0, 0.0)
    src = Source(2, "history", ev.url, ev.title, None, 1, 0.0, [ev], [LONG[:100]])
    c = closest("sort by attribute", [empty, src], None, None)
    assert c is not None and c.n == 2 and c.url == ev.url
    assert c.passage == LONG  # the whole passage, not the packed (trimmed) text
    assert c.answer == f"The closest thing you read — Sorting HOW TO: “{c.quote}” [Source 2]"
    assert closest("q", [empty], None, None) is None


# ---- the case: the demo's pages, the real models ---------------------------------


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory, embedder, model_dir, python_docs):
    """The eight pages the browser demo reads, through the host's HTML extraction."""
    eng = Rewind.open(tmp_path_factory.mktemp("demo-pages") / "data", Settings(),
                      embedder=embedder, model_dir=model_dir)
    for path in PAGES:
        doc = html_document((python_docs / path).read_text(), Path(path).stem)
        eng.index_page(PageInput(url=BASE + path, title=doc.title, document=doc,
                                 visited_at=1_763_800_000.0, source="file"))
    yield eng
    eng.close()


def test_the_sorting_question_gets_the_sorting_passage_not_a_refusal(demo_store, tmp_path):
    # Without a language model (as `rewind ask --extractive`): the gate is unsure (the
    # sorting page is near, but no sentence of it is a sure answer).
    result = Answerer(demo_store, model_dir=tmp_path).ask(SORTING_Q)
    assert result.model is None
    assert result.outcome == "closest" and not result.supported
    assert result.closest is not None and result.closest["url"] == SORTING
    assert result.answer.startswith("The closest thing you read — Sorting HOW TO")
    passage = result.closest["passage"]
    assert result.closest["quote"].removeprefix("… ").removesuffix(" …") in passage
    stored = {p["url"] for p in demo_store.list_pages()}
    assert SORTING in stored and result.sources[0]["url"] == SORTING


def test_with_the_real_model_the_sorting_question_is_never_a_bare_refusal(demo_store, llm_dir):
    answerer = Answerer(demo_store, model_dir=llm_dir)
    try:
        result = answerer.ask(SORTING_Q)
        assert result.model == "smollm2-135m-instruct-q8_0"
        # Whatever the small model writes: a backed answer citing the sorting page, or
        # (its sentences unbacked) the sorting page's passage, quoted. Never "couldn't find".
        assert result.outcome in ("answer", "closest"), result.answer
        cited = {s["url"] for s in result.sources}
        assert SORTING in cited
        if result.outcome == "closest":
            assert result.closest["url"] == SORTING
        far = answerer.ask("What is the capital of Peru?")
        assert far.outcome == "not_found" and far.answer == COULD_NOT_FIND
    finally:
        answerer.close()


def test_a_changed_answering_model_is_loaded_before_the_next_question(demo_store, llm_dir):
    answerer = Answerer(demo_store, model_dir=llm_dir)
    before = demo_store.settings
    try:
        first = answerer.llm()
        assert first is not None and first.name == "smollm2-135m-instruct-q8_0"
        assert answerer.llm() is first  # unchanged: kept warm
        demo_store.settings = dataclasses.replace(before, llm_model="qwen2.5-1.5b-instruct-q4_k_m")
        assert answerer.llm() is None  # not installed here: said, not loaded
        assert "not installed" in str(answerer.llm_problem)
        demo_store.settings = before
        again = answerer.llm()
        assert again is not None and again is not first and again.name == first.name
    finally:
        demo_store.settings = before
        answerer.close()
