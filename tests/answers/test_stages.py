"""The stages of an answer (answers/stages.py, compose.py) one at a time, each given its inputs and
read by its record, with the fake embedder and a scripted model, in milliseconds; the
stages run end to end with the real models through `Answerer.ask` in test_answer.py and
test_closest.py. Also the seams between them: one place measures the times (timings.py),
and no module of answers/ reads another's underscore names."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest
from rewind.answers.answer import THREAD_GONE, Answerer
from rewind.answers.citations import Meaning
from rewind.answers.compose import Composer
from rewind.answers.llm import ScriptedLlm, WordTokenizer
from rewind.answers.outcome import Thread, Threads, join, left_out, verdict
from rewind.answers.packing import pack
from rewind.answers.prompt import COULD_NOT_FIND
from rewind.answers.stages import Asked, Display, Sources, Writer, gate, read, room
from rewind.answers.timings import KEYS, Timings
from rewind.config import Settings
from rewind.models.embedder import FakeEmbedder
from rewind.search import relevance
from support.answer_fixtures import evidence, index_pages

S = Settings()
ANSWERS = Path(__file__).resolve().parents[2] / "host" / "rewind" / "answers"
STARTER = ("Feed the starter once a day with equal weights of flour and water. "
           "Keep it at room temperature between feeds.")
TRAM = "Tram 28 runs from Martim Moniz to Campo de Ourique."
QUESTION = "How often do I feed my sourdough starter?"


def test_the_gates_verdict_by_the_fitted_thresholds():
    g = relevance.gauge()
    assert verdict(None) == "yes"  # no embedder: the words decide
    assert verdict(g.refuse - 1e-6) == "no"
    assert verdict(g.refuse) == verdict((g.refuse + g.extract) / 2) == "maybe"
    assert verdict(g.extract) == "yes"


def test_notices_join_and_say_what_was_left_out():
    assert join(None, "a", "", "b") == "a b"
    assert join(None, None) is None
    assert left_out(["x"]) == ("1 sentence was left out of the answer: nothing in your "
                               "history supports it.")
    assert left_out(["x", "y"]).startswith("2 sentences were left out")


# ---- the stages, given their inputs ------------------------------------------------------


def sources(answerable="maybe") -> Sources:
    """Two packed sources, as stage 1 hands them on (the reader reads these same ones)."""
    built = pack([evidence(STARTER, "https://bakery.example/starter", title="Sourdough"),
                  evidence(TRAM, "https://trams.example/28", 0.5, title="Tram 28")],
                 400, WordTokenizer(), QUESTION, S)
    return Sources(built, answerable, None)


def test_the_gate_lets_through_sources_it_does_not_refuse():
    assert gate(sources("maybe")) and gate(sources("yes"))
    assert not gate(sources("no"))
    empty = dataclasses.replace(sources(), built=pack([], 400, WordTokenizer(), "q", S))
    assert not gate(empty)


def test_the_room_for_sources_leaves_the_model_room_to_answer():
    model = ScriptedLlm("", n_ctx=512)
    assert room(Asked(QUESTION, budget=300), None, S) == 300  # the caller's, without a model
    assert room(Asked(QUESTION), None, S) == S.extract_token_budget
    tight = room(Asked(QUESTION, budget=5000), model, S)
    assert 0 < tight < 512 - S.answer_length(512)


def written_by(script: str, lead: str, answerable: str = "maybe"):
    """Stages 3 and 4 on two sources: what was streamed, the record, the timings."""
    timings, chunks, drafts = Timings(), [], []
    src = sources(answerable)
    asked = Asked(QUESTION)
    reading = read(asked, src, Meaning.of(FakeEmbedder()), S, timings)
    display = Display(chunks.append, timings)
    written = Writer(reading, display, lead, timings, drafts.append).write(
        ScriptedLlm(script), asked, src, S, None)
    return chunks, written, "".join(drafts), timings, reading


def test_only_the_models_sentences_that_hold_are_streamed_the_draft_goes_aside():
    script = ("Feed it with equal weights of flour and water [Source 1]. "
              "The moon decides when it is fed [Source 1].")
    chunks, written, drafted, timings, _reading = written_by(script, lead="model")
    assert [c.status for c in written.checks] == ["ok", "unsupported"]
    assert chunks == ["Feed it with equal weights of flour and water [Source 1]. "]
    assert drafted == written.raw == script  # the model's own words: only the debug view
    assert timings.ms["generation_ms"] is not None and timings.ms["first_token_ms"] is not None
    assert timings.ms["check_ms"] is None  # summed, said when the answer is composed


def test_a_quote_leads_once_a_models_sentence_bears_it_out_and_is_not_said_again():
    """The gate's "maybe": the reader's quote waits for a sentence of the model's that
    holds; one that says no more than the quote is not shown beside it."""
    script = ("Feed the starter once a day [Source 1]. "
              "Keep it at room temperature between feeds [Source 1].")
    chunks, written, _drafted, _timings, reading = written_by(script, lead="quote")
    assert [q.sentence for q in reading.quotes] == [STARTER.split(" Keep")[0]]
    assert [c.status for c in written.checks] == ["repeat", "ok"]
    assert chunks == [f"“{reading.quotes[0].sentence}” [Source 1] ",
                      "Keep it at room temperature between feeds [Source 1]. "]


def test_nothing_that_holds_and_no_near_page_is_couldnt_find_kept_as_a_thread():
    timings, chunks = Timings(), []
    src = sources("no")
    composed = Composer(Asked(QUESTION), src, Display(chunks.append, timings), timings,
                        None, None).could_not_find()
    assert chunks == [COULD_NOT_FIND] and composed.result.outcome == "not_found"
    assert composed.thread is not None and composed.thread.turns == [(QUESTION, "")]
    assert composed.result.thread_id is None  # the answerer keeps it and says its id
    assert composed.result.timings["total_ms"] is not None


def test_an_answerer_keeps_as_many_follow_up_threads_as_the_setting_says(fake_engine):
    index_pages(fake_engine)
    fake_engine.settings = dataclasses.replace(fake_engine.settings, answer_threads_kept=3)
    a = Answerer(fake_engine, model=None)
    asked = "Feed it once a day with equal weights of flour and water?"  # near, for the fake
    ids = [a.ask(asked).thread_id for _ in range(5)]  # five conversations
    assert None not in ids and a.threads.ids() == ids[2:]  # the oldest two forgotten
    gone = a.ask("And in the fridge?", thread_id=ids[0])
    assert THREAD_GONE in (gone.notice or "") and gone.thread_id not in ids
    again = a.ask("And in the fridge?", thread_id=ids[3])
    assert again.thread_id == ids[3] and THREAD_GONE not in (again.notice or "")
    assert a.threads.ids()[-1] == ids[3]  # a follow-up moves its thread last


def test_threads_forget_the_oldest_beyond_the_number_kept():
    threads, built = Threads(), sources().built
    kept = [threads.keep(None, Thread(built, [(f"q{i}", f"a{i}")]), 3) for i in range(5)]
    assert threads.ids() == kept[2:]
    assert threads.keep(kept[2], Thread(built, []), 3) == kept[2]
    assert threads.ids() == [kept[3], kept[4], kept[2]]
    assert threads.get(kept[0]) is None and threads.get(kept[2]).turns == []


# ---- one place measures the times --------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_timings_are_laps_steps_and_moments_in_ms_to_a_tenth():
    clock = Clock()
    t = Timings(clock)
    assert list(t.ms) == list(KEYS) and set(t.ms.values()) == {None}
    clock.t += 0.01234
    t.lap("load_ms")
    clock.t += 0.5
    t.lap("retrieval_ms")  # from the end of the load
    start = t.now()
    clock.t += 0.25
    t.since("read_ms", start)
    t.first("first_words_ms")
    clock.t += 1
    t.first("first_words_ms")  # the first time stays
    for step in (0.001, 0.002):
        with t.adding("check_ms"):
            clock.t += step
    assert t.ms["check_ms"] is None
    t.settle("check_ms")
    t.at("first_token_ms", None)
    t.elapsed("total_ms")
    assert t.ms == {"load_ms": 12.3, "retrieval_ms": 500.0, "facets_ms": None,
                    "context_ms": None, "first_token_ms": None, "generation_ms": None,
                    "check_ms": 3.0, "total_ms": 1765.3, "read_ms": 250.0,
                    "first_words_ms": 762.3}


def test_no_module_but_timings_rounds_a_time():
    rounding = [f"{p.name}:{n.lineno}" for p in ANSWERS.glob("*.py") if p.name != "timings.py"
                for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                and n.func.id == "round" and "* 1000" in ast.unparse(n)]
    assert rounding == []


# ---- no stage reaches into another's private state ---------------------------------------


# Reaches into a library's private state, each with why: only these, and none into Rewind's.
LIBRARY: dict[str, str] = {
    "llm.py imports _internals": "llama-cpp-python (pinned) loads a vocabulary without a "
                                 "context only through its internal LlamaModel",
    "llm.py reads self._llama._ctx": "llama-cpp-python (pinned) has no public way to set "
                                     "the abort callback that makes cancel stop the model",
}


def own(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def reaches(path: Path) -> list[str]:
    """Where `path` imports or reads an underscore name of another module or object: only
    `self` and `cls` may be read so (and `__future__` imported)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            names = [*(node.module or "").split("."), *(a.name for a in node.names)]
            out += [f"{where} imports {n}" for n in names if n.startswith("_")]
        elif isinstance(node, ast.Import):
            out += [f"{where} imports {a.name}" for a in node.names
                    if any(part.startswith("_") for part in a.name.split("."))]
        elif private_read(node):
            out.append(f"{where} reads {ast.unparse(node)}")
    return out


def private_read(node: ast.AST) -> bool:
    """`x._name` or `getattr(x, "_name")` with `x` not `self` or `cls`."""
    if isinstance(node, ast.Attribute):
        return node.attr.startswith("_") and not own(node.value)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) > 1
            and not own(node.args[0]) and isinstance(node.args[1], ast.Constant)
            and str(node.args[1].value).startswith("_"))


def test_no_module_of_the_answers_reads_another_ones_underscore_names():
    found = [r for p in sorted(ANSWERS.glob("*.py")) for r in reaches(p)]
    assert [r for r in found if r.split(":")[0] + " " + r.split(" ", 1)[1] not in LIBRARY] == []
    assert len(found) == len(LIBRARY)  # a reach no longer needed goes from the list


@pytest.mark.parametrize("code", [
    "from .answer import _max_new",
    "x = self.answerer._threads",
    "scale = getattr(embed, '__self__', None)",
    "import rewind.answers._private",
])
def test_the_seam_check_sees_a_reach(tmp_path, code):
    module = tmp_path / "m.py"
    module.write_text(code + "\n", encoding="utf-8")
    assert reaches(module)
