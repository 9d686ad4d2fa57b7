"""The demo's three questions, as a new user asks them: `rewind index` over the eight pages
of the Python docs the browser demo reads, then `rewind ask --json`, with the real
embedding model and the real offline language model (SmolLM2-135M).

What is checked is what a person reads: no sentence a cited page does not hold (the chmod
sentence), the Sorting HOW TO's own key-function sentence for the sorting question, and
"This is enough…" never without the sentence it points back at.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from rewind.answers.grounding import PassageWords, claim_words, ground
from support.cli_runner import rewind

from demo.browser_demo import PAGES

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory, python_docs: Path, llm_dir: Path) -> Path:
    site = tmp_path_factory.mktemp("docs")
    for page in PAGES:
        (site / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(python_docs / page, site / page)
    data = tmp_path_factory.mktemp("demo") / "data"
    rewind(data, "index", str(site), "--base-url", "http://docs.python.local/")
    return data


def ask(data: Path, question: str) -> dict:
    return json.loads(rewind(data, "ask", question, "--json").stdout)


def shown(reply: dict) -> list[dict]:
    return [c for c in reply["citations"]
            if c["status"] in ("ok", "corrected", "added", "quoted")]


def test_every_shown_sentence_is_held_by_the_passage_it_cites(demo_store):
    """Whatever the model wrote, each sentence shown is in its cited passage's words."""
    for q in ("How do I make Python scripts executable?",
              "How do I sort a list of objects by an attribute?",
              "How do I create a virtual environment?"):
        reply = ask(demo_store, q)
        for c in shown(reply):
            assert c["quote"] and c["sources"], c
            g = ground(c["sentence"], claim_words(q), PassageWords(c["quote"]))
            assert g.holds(1.0), (q, c["sentence"], g)
        answer = re.sub(r"\[Source \d+\]|[“”]", "", reply["answer"])
        for c in reply["citations"]:
            if c["status"] == "unsupported":
                assert c["sentence"] not in answer


def test_the_chmod_sentence_is_never_shown(demo_store):
    reply = ask(demo_store, "How do I make Python scripts executable?")
    assert "chmod" not in reply["answer"]
    windows = [s["n"] for s in reply["sources"] if s["url"].endswith("faq/windows.html")]
    assert windows, reply["sources"]
    # The answer is the Windows FAQ's own sentences: how (the installer's association),
    # and "This is enough…" only after the sentence it points back at.
    answer = reply["answer"]
    assert "Python.File" in answer or "associates" in answer, answer
    if "This is enough" in answer:
        before = answer[:answer.index("This is enough")]
        assert "associates" in before, answer


def test_the_sorting_question_is_answered_by_the_sorting_how_to(demo_store):
    q = "How do I sort a list of objects by an attribute?"
    reply = ask(demo_store, q)
    assert reply["outcome"] == "answer", reply
    how_to = {s["n"] for s in reply["sources"] if s["url"].endswith("howto/sorting.html")}
    cited = {n for c in shown(reply) for n in c["sources"]}
    assert how_to & cited, reply
    # Its own sentence about sorting objects by keys (its "Key Functions" section), with
    # the sentence "The same technique…" points back at when that one is quoted.
    answer = reply["answer"]
    assert re.search(r"\bkeys?\b", answer) and "objects" in answer, answer
    if "The same technique" in answer:
        assert answer.index("A common pattern") < answer.index("The same technique"), answer
