"""Answers from the history, end to end with the real models.

The real GGUF (SmolLM2-135M-Instruct) answers through the real host process; the
citation checker is tested on planted answers with the real embedding model; a
scripted stand-in for the model is used only where a test needs exact model output
(the logic around it), never to claim anything about the model itself.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import threading
import time
from pathlib import Path

import pytest
from rewind.answers.answer import Answerer
from rewind.answers.context import TabContext
from rewind.answers.llm import ScriptedLlm
from rewind.answers.prompt import COULD_NOT_FIND
from rewind.config import Settings
from support.answer_fixtures import SOURDOUGH, TRAM
from support.host_process import HostProcess

ROOT = Path(__file__).resolve().parents[1]
LLM = "smollm2-135m-instruct-q8_0"


@pytest.fixture(scope="module")
def answerer(history, llm_dir):
    a = Answerer(history, model_dir=llm_dir)
    assert a.llm() is not None, a.llm_problem
    yield a
    a.close()


# ---- the answer, checked ---------------------------------------------------------------


def test_made_up_answer_becomes_the_closest_passage_not_an_answer(history):
    fake = ScriptedLlm("The starter was invented in Paris in 1850 [Source 1]. It costs 45 euros.")
    result = Answerer(history, model=fake).ask("Who invented the sourdough starter?")
    # Nothing backs an answer, but the page is near: its passage, quoted, not an answer
    assert result.outcome == "closest" and result.supported is False and result.sources
    assert result.answer.startswith("The closest thing you read — How to keep a sourdough "
                                    "starter alive: “A sourdough starter is a mix of flour")
    assert result.closest is not None and result.closest["url"] == SOURDOUGH
    assert result.closest["quote"] in result.closest["passage"]
    assert result.citations == [{"sentence": result.closest["quote"], "cited": [1],
                                 "sources": [1], "status": "quoted", "support": 1.0,
                                 "best": 1, "quote": result.closest["passage"]}]
    assert "Paris" not in result.answer  # the model's made-up sentences are left out
    assert result.unsupported and result.model == "scripted"
    assert "passage closest to it" in (result.notice or "")
    # The sources reached the model fenced, after the rules.
    system, user = fake.prompts[0]
    assert "only the sources" in system["content"] and "<<<" in user["content"]
    assert user["content"].rstrip().endswith("Question: Who invented the sourdough starter?")
    # Each source is one line, title, site and date: no address read digit by digit.
    assert re.search(r"\[Source 1\] How to keep a sourdough starter alive \([\w.-]+, "
                     r"\d{4}-\d\d-\d\d\)\n<<<", user["content"])
    assert "URL: " not in user["content"]


def test_a_source_gives_its_address_and_visits_when_asked_to(own_history):
    own_history.settings = dataclasses.replace(Settings(), answer_source_details=True)
    fake = ScriptedLlm("In the fridge the starter only needs feeding once a week.")
    Answerer(own_history, model=fake).ask("How often do I feed my starter?")
    _system, user = fake.prompts[0]
    assert f"URL: {SOURDOUGH}\nVisited: " in user["content"]


def test_a_looping_model_is_stopped_and_said_once(history):
    said = "In the fridge the starter only needs feeding once a week. "
    fake = ScriptedLlm(said * 6 + "Never seen")
    streamed: list[str] = []
    result = Answerer(history, model=fake).ask(
        "How often do I feed my starter?", on_chunk=streamed.append
    )
    assert result.supported and result.answer.count("once a week") == 1
    assert result.raw_answer.count("once a week") == 2  # stopped at the first repeat
    assert "".join(streamed).count("once a week") == 1  # only checked sentences stream
    assert "Never seen" not in "".join(streamed)


def test_budget_and_answer_length_grow_with_the_models_context(own_history):
    # A model loaded with a larger context gets proportionally more sources and a longer
    # answer (Settings.answer_budget/answer_length); the offline default's 4,096 keeps them.
    own_history.settings = dataclasses.replace(Settings(), answer_token_budget=60)
    got = {}
    for n_ctx in (4096, 8192):
        fake = ScriptedLlm("In the fridge the starter only needs feeding once a week.",
                           n_ctx=n_ctx)
        result = Answerer(own_history, model=fake).ask("How often do I feed my starter?")
        got[n_ctx] = (fake.calls[0][1], result.context_tokens)  # (max_tokens, sources)
    assert got[4096][0] == 120 and got[8192][0] == 240
    assert got[4096][1] <= 60 < got[8192][1] <= 120


def test_an_extract_draws_on_more_sources_than_the_model_read(own_history):
    # The model's prompt is kept short (answer_token_budget: first token on 2 cores); an
    # answer of the sources' own sentences is read by no model, so it may draw on more
    # (extract_token_budget). The follow-up is still prompted with what the model read.
    own_history.settings = dataclasses.replace(Settings(), answer_token_budget=90,
                                               extract_token_budget=700)
    fake = ScriptedLlm("Bread is a staple food [Source 1].")  # nothing backs it
    answerer = Answerer(own_history, model=fake)
    result = answerer.ask("How often should I feed a sourdough starter?")
    follow = answerer.ask("And in the fridge?", thread_id=result.thread_id)
    assert result.supported and "not backed by your pages" in result.notice
    assert "Bread" not in result.answer and result.raw_answer.startswith("Bread")
    model_read = fake.prompts[0][1]["content"].count("[Source ")
    assert result.context_tokens <= 90 and model_read >= 1
    prompt = " ".join(fake.prompts[0][1]["content"].split())
    said = [x.strip() for x in re.split(r"\[Source \d+\]\.?", result.answer) if x.strip()]
    assert any(x not in prompt for x in said), (said, prompt)  # more than the model read
    cited = {int(n) for n in re.findall(r"\[Source (\d+)\]", result.answer)}
    assert cited and cited <= {s["n"] for s in result.sources}
    # the follow-up: the model's own sources again (its prompt prefix is reused), and the
    # earlier answer without citations of another numbering
    assert fake.prompts[1][1]["content"] == fake.prompts[0][1]["content"]
    assert "[Source" not in fake.prompts[1][2]["content"]
    assert len(follow.sources) == model_read


def test_no_llm_extract_is_packed_to_the_extract_budget(own_history, tmp_path):
    question = "How often should I feed a sourdough starter?"
    own_history.settings = dataclasses.replace(Settings(), extract_token_budget=100)
    small = Answerer(own_history, model_dir=tmp_path).ask(question)
    own_history.settings = Settings()
    large = Answerer(own_history, model_dir=tmp_path).ask(question)
    assert 0 < small.context_tokens <= 100 < large.context_tokens <= Settings().extract_token_budget
    assert len(small.sources) <= len(large.sources)


# ---- without a language model -------------------------------------------------------------


def test_no_llm_gives_an_extractive_cited_answer(history, tmp_path):
    answerer = Answerer(history, model_dir=tmp_path)  # no model installed here
    streamed: list[str] = []
    result = answerer.ask("How often should I feed a sourdough starter?", on_chunk=streamed.append)
    assert result.model is None and result.supported
    assert re.search(r"\[Source \d+\]", result.answer)
    assert "once a day" in result.answer
    assert "".join(streamed).strip() == result.answer and result.raw_answer == ""
    assert result.citations and all(c["status"] == "quoted" for c in result.citations)
    for c in result.citations:  # each quote marks its own place in its passage
        start, end = c["mark"]
        assert c["quote"][start:end] == c["sentence"]
    assert "No language model is installed" in result.notice
    cited = {int(n) for n in re.findall(r"\[Source (\d+)\]", result.answer)}
    assert cited <= {s["n"] for s in result.sources}
    assert any(s["url"] == SOURDOUGH for s in result.sources)


def test_no_llm_and_only_near_topic_pages_is_could_not_find(history, tmp_path):
    # The sourdough page is the nearest (cosine ~0.4), but says nothing of Paris bakeries:
    # without a model to judge, extracts of it would pass for an answer, and the gate finds
    # it near the topic, not near the question (below `closest`): "couldn't find".
    result = Answerer(history, model_dir=tmp_path).ask(
        "Which bakery sells the best sourdough bread in Paris?"
    )
    assert result.model is None and not result.supported
    assert result.outcome == "not_found" and result.answer == COULD_NOT_FIND
    assert any(s["url"] == SOURDOUGH for s in result.sources)


def test_no_llm_and_a_page_near_the_question_is_its_closest_passage(history, tmp_path):
    # Near enough that the page may well be what the person is after (the gate is unsure,
    # above `closest`), and no sentence of it answers: its passage, shown as what it is.
    result = Answerer(history, model_dir=tmp_path).ask(
        "Can I use rye flour in a sourdough starter?"
    )
    assert result.model is None and not result.supported and result.outcome == "closest"
    assert result.closest is not None and result.closest["url"] == SOURDOUGH
    assert result.answer.startswith("The closest thing you read — How to keep a sourdough "
                                    "starter alive: “")
    # Nothing near at all: still "couldn't find", and no model time spent.
    far = Answerer(history, model_dir=tmp_path).ask("What is the population of Mongolia?")
    assert far.outcome == "not_found" and far.answer == COULD_NOT_FIND and far.closest is None


def test_the_current_tab_is_a_source(history, tmp_path):
    tab = TabContext(
        "Trains to Sintra leave from Rossio station every 20 minutes. The trip "
        "takes about 40 minutes.",
        "https://tab.example/sintra",
        "Sintra trip",
    )
    result = Answerer(history, model_dir=tmp_path).ask(
        "How long does the train to Sintra take?", provided=tab
    )
    assert result.sources[0]["kind"] == "tab" and result.sources[0]["url"] == tab.url
    assert "“The trip takes about 40 minutes.” [Source 1]" in result.answer


# ---- the real model -----------------------------------------------------------------------


def test_real_model_answers_and_every_kept_sentence_is_backed(answerer):
    result = answerer.ask("How often should I feed a sourdough starter?")
    assert result.model == LLM and result.raw_answer
    t = result.timings
    assert t["retrieval_ms"] >= 0 and t["first_token_ms"] and t["total_ms"] >= t["first_token_ms"]
    assert t["first_words_ms"] is not None and t["first_words_ms"] <= t["total_ms"]
    numbers = {s["n"] for s in result.sources}
    if result.supported:
        for c in result.citations:
            if c["status"] in ("ok", "corrected", "added", "quoted"):
                assert c["support"] >= answerer.settings.citation_min_coverage
                assert set(c["sources"]) <= numbers
        cited = {int(n) for n in re.findall(r"\[Source (\d+)\]", result.answer)}
        assert cited and cited <= numbers
    else:
        assert result.answer.startswith(COULD_NOT_FIND)


def test_unanswerable_question_gets_could_not_find(answerer):
    result = answerer.ask("What is the population of the capital city of Mongolia?")
    assert result.answer == COULD_NOT_FIND and result.supported is False
    assert result.sources == [] and result.raw_answer == ""  # no model time spent


def test_cancel_stops_an_answer_within_a_second(answerer):
    cancel = threading.Event()
    first = threading.Event()
    out: dict = {}

    def run():
        out["r"] = answerer.ask(
            "Tell me everything about trams, starters and graphs.",
            on_draft=lambda _p: first.set(),  # the model is writing
            cancel=cancel,
        )

    t = threading.Thread(target=run)
    t.start()
    assert first.wait(300), "no words from the model within 300 s"
    t0 = time.monotonic()
    cancel.set()
    t.join(5)
    assert not t.is_alive()
    assert time.monotonic() - t0 < 1.0
    assert out["r"].cancelled


# ---- through the host, as the browser sees it ---------------------------------------------


@pytest.fixture
def host(tmp_path, history_store, llm_dir):
    shutil.copytree(history_store, tmp_path / "data")  # the host's own copy of the history
    h = HostProcess(tmp_path, model_dir=llm_dir)
    h.hello()
    yield h
    h.stop()  # also checks that no frame was over 1 MiB


def test_streamed_answer_arrives_in_order_and_ends_with_its_sources(host):
    rid = host.send("ask", question="How often should I feed a sourdough starter?")
    frames = host.replies(rid, timeout=600)
    *parts, final = frames
    assert parts, "no chunk frames before the final one"
    assert all(set(f) == {"id", "ok", "done", "chunk"} and f["done"] is False for f in parts)
    assert final["ok"] and final["done"]
    # The chunks are the answer's checked sentences as they passed, nothing else: they add
    # up to the final answer. The model's own words are only in raw_answer.
    streamed = "".join(f["chunk"] for f in parts)
    assert final["raw_answer"] and streamed.strip() == final["answer"].strip()
    assert isinstance(final["answer"], str) and final["answer"]
    assert isinstance(final["supported"], bool) and isinstance(final["citations"], list)
    assert final["sources"] and all({"n", "url", "title"} <= set(s) for s in final["sources"])
    assert SOURDOUGH in [s["url"] for s in final["sources"]]
    assert {"retrieval_ms", "first_token_ms", "total_ms"} <= set(final["timings"])
    assert final["model"] == LLM

    (built,) = host.replies(host.send("build_context", query="tram 28 Lisbon", token_budget=120))
    assert built["ok"] and 0 < built["total_tokens"] <= 120 and built["tokenizer"] == LLM
    assert TRAM in built["context"]


def test_cancel_through_the_host(host):
    rid = host.send("ask", question="Tell me everything about trams and starters.")
    time.sleep(0.5)  # loading the model or writing: nothing it drafts is sent to wait on
    t0 = time.monotonic()
    host.send("cancel", target_id=rid)
    frames = host.replies(rid, timeout=5)
    assert time.monotonic() - t0 < 1.0
    assert frames[-1]["ok"] is False and frames[-1]["error"]["code"] == "cancelled"
