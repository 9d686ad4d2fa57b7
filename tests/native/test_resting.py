"""Resting (native/resting.py) with a fake clock: what is let go after its idle time, what is
never let go (in use, busy, a model given by the caller), and what loads it again. No
sleeps, no models: the holders (Answerer, ActiveModel) load fakes."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from rewind.answers import llm
from rewind.answers.answer import Answerer
from rewind.answers.llm import ScriptedLlm
from rewind.config import Settings
from rewind.index.derived import languages
from rewind.models.embedder import FakeEmbedder
from rewind.native.resting import BUSY_RECHECK_S, Part, Resting
from rewind.profile import embedding
from rewind.profile.engine import Rewind


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Held:
    """A part as the holders implement it: loaded on use, `users` while in use."""

    def __init__(self, clock: Clock, name: str, idle_s: float) -> None:
        self.clock, self.name, self.idle = clock, name, idle_s
        self.loaded, self.users, self.last, self.loads = False, 0, clock(), 0

    def use(self) -> None:
        if not self.loaded:
            self.loaded, self.loads = True, self.loads + 1
        self.last = self.clock()

    def since(self) -> float | None:
        return None if not self.loaded else math.inf if self.users else self.last

    def let_go(self, idle_s: float) -> bool:
        if not self.loaded or self.users or self.clock() - self.last < idle_s:
            return False
        self.loaded = False
        return True

    def part(self) -> Part:
        return Part(self.name, lambda: self.idle, self.since, self.let_go)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def resting(clock: Clock, parts: list[Held], busy: list[bool] | None = None):
    trims: list[int] = []
    r = Resting(lambda: [p.part() for p in parts], busy=lambda: bool(busy and busy[0]),
                clock=clock, give_back=lambda: trims.append(1))
    return r, trims


def test_the_answering_model_goes_first_then_the_embedder_each_after_its_idle_time(clock):
    answer, embed = Held(clock, "answer", 120), Held(clock, "embed", 600)
    r, trims = resting(clock, [answer, embed])
    assert r.sweep() is None  # nothing loaded: the thread sleeps until woken
    answer.use()
    embed.use()
    clock.now += 60
    assert r.sweep() == pytest.approx(60)  # the answering model's deadline is next
    assert answer.loaded and embed.loaded and not trims
    clock.now += 60
    assert r.sweep() == pytest.approx(480)
    assert (answer.loaded, embed.loaded, r.let_go, len(trims)) == (False, True, ["answer"], 1)
    clock.now += 479.9
    assert r.sweep() == pytest.approx(0.1) and embed.loaded
    clock.now += 0.1
    assert r.sweep() is None
    assert (embed.loaded, r.let_go, len(trims)) == (False, ["answer", "embed"], 2)


def test_a_use_starts_the_idle_time_again(clock):
    answer = Held(clock, "answer", 120)
    r, _ = resting(clock, [answer])
    answer.use()
    clock.now += 100
    answer.use()  # a second question
    clock.now += 100
    assert r.sweep() == pytest.approx(20) and answer.loaded
    clock.now += 20
    assert r.sweep() is None and not answer.loaded
    answer.use()  # the next question loads it again
    assert answer.loads == 2


def test_nothing_is_let_go_while_a_request_runs_or_the_model_is_in_use(clock):
    answer = Held(clock, "answer", 120)
    busy = [True]
    r, trims = resting(clock, [answer], busy)
    answer.use()
    clock.now += 10_000
    assert r.sweep() == BUSY_RECHECK_S and answer.loaded  # a request is under way
    busy[0] = False
    answer.users = 1  # a question holds the model (its holder says inf)
    assert r.sweep() == BUSY_RECHECK_S and answer.loaded and not trims
    answer.users, answer.last = 0, clock()  # it ended now: its idle time starts now
    assert r.sweep() == pytest.approx(120) and answer.loaded


def test_a_part_used_between_the_look_and_the_let_go_stays(clock):
    answer = Held(clock, "answer", 120)
    r, trims = resting(clock, [answer])
    answer.use()
    clock.now += 200

    def let_go_raced(idle_s: float) -> bool:
        answer.use()  # a question came in first: its holder refuses
        return Held.let_go(answer, idle_s)

    r._parts = lambda: [Part("answer", lambda: 120, answer.since, let_go_raced)]
    assert r.sweep() == pytest.approx(120)
    assert answer.loaded and not trims and not r.let_go


# ---- the holders: the Answerer and the ActiveModel, with fakes to load -------------------


class FakeGguf:
    loads = 0

    def __init__(self, spec, model_dir, settings) -> None:
        FakeGguf.loads += 1
        self.spec, self.name, self.closed = spec, spec.name, False
        self.tokenizer = llm.WordTokenizer()

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def auto_answerer(monkeypatch, clock, tmp_path):
    spec = ScriptedLlm().spec
    monkeypatch.setattr(llm, "choose_spec", lambda settings, model_dir: spec)
    monkeypatch.setattr(llm, "GgufLlm", FakeGguf)
    FakeGguf.loads = 0
    a = Answerer(SimpleNamespace(settings=Settings()), model_dir=tmp_path, model="auto")
    a.clock = clock
    return a


def test_the_answerer_lets_its_model_go_only_when_unused_and_loads_it_again(auto_answerer,
                                                                            clock):
    a = auto_answerer
    assert a.idle_since() is None and not a.let_go(0)  # nothing loaded yet
    with a.in_use():
        model = a.llm()
        clock.now += 10_000
        assert a.idle_since() == math.inf
        assert not a.let_go(120) and not model.closed  # a question holds it
    assert a.idle_since() == clock.now  # its idle time starts when the question ends
    clock.now += 119
    assert not a.let_go(120)
    clock.now += 1
    assert a.let_go(120) and model.closed and a.idle_since() is None
    with a.in_use():
        again = a.llm()
    assert again is not model and FakeGguf.loads == 2 and not again.closed


def test_a_model_given_to_the_answerer_is_never_let_go(clock):
    given = ScriptedLlm("hi")
    a = Answerer(SimpleNamespace(settings=Settings()), model=given)
    a.clock = clock
    with a.in_use():
        assert a.llm() is given
    clock.now += 10_000
    assert a.idle_since() is None and not a.let_go(1) and not given.closed


def test_the_embedder_is_let_go_with_the_vectors_and_loaded_by_the_next_search(
        monkeypatch, tmp_path, clock):
    made: list[FakeEmbedder] = []

    def fake_class(spec):
        def make(spec, model_dir, settings, dim=None):
            emb = FakeEmbedder(dim or spec.dim)
            emb.model_id = f"{spec.name}@{emb.dim}"
            made.append(emb)
            return emb
        return make

    monkeypatch.setattr(embedding.multilingual, "embedder_class", fake_class)
    with Rewind.open(tmp_path / "data", Settings(), model_dir=tmp_path / "models") as eng:
        eng.model.clock = clock
        eng.model.last_used = clock()
        assert eng.embedder() is made[0] and eng.model.loaded()
        with eng.vectors.lock:
            assert eng.vectors.index() is not None
        clock.now += 599
        assert not eng.let_go(600)
        began = clock()
        eng.embedder()  # a request that began now asked for it ...
        clock.now += 30
        eng.model.used_since(began)  # ... and ended 30 s later: idle from its end
        clock.now += 599
        assert not eng.let_go(600)
        clock.now += 1
        assert eng.let_go(600) and not eng.model.loaded() and eng.vectors._index is None
        assert eng.stats()["embedder_ready"] and len(made) == 1  # stats load nothing
        assert eng.embedder() is made[1]  # the next search loads it again
        assert not eng.let_go(600)


def test_an_embedder_given_to_the_engine_is_never_let_go(tmp_path, clock):
    emb = FakeEmbedder()
    with Rewind.open(tmp_path / "data", Settings(), embedder=emb) as eng:
        eng.model.clock = clock
        eng.embedder()
        clock.now += 10_000
        assert not eng.let_go(1) and eng.embedder() is emb


def test_the_language_detector_lets_its_model_and_verdicts_go(clock):
    d = languages._Detector()
    d.clock, d.last_used = clock, clock()
    assert d.idle_since() is None  # nothing loaded, nothing kept
    d._known[b"digest"] = ("en", 0.99)
    assert d.idle_since() == clock.now
    clock.now += 599
    assert not d.let_go(600)
    clock.now += 1
    assert d.let_go(600) and d.idle_since() is None and not d._known
