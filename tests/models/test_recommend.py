"""`rewind models recommend` (models/recommend.py): the choice on machines of every size.

The machines are described, not real (that is what recommend reasons about); the logic
tests use small made-up catalogs with known speeds, and the real catalog is checked for
the properties a person relies on (more memory never means a smaller model).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from rewind.config import Settings
from rewind.models import catalog, recommend, specs
from rewind.models.recommend import GIB, Machine
from rewind.models.specs import FileSpec, Licence, LlmSpec, Measured, Shape

ROOT = Path(__file__).resolve().parents[2]
# recommend_memory_share 0.25, llm_batch_threads 2; a 20 s wait keeps the made-up ladder's
# steps apart (the default, 8 s, is tested on the real catalog below)
S = replace(Settings(), recommend_max_wait_s=20.0)


def spec(name: str, params: float, memory_gib: float, prompt_tps: float | None,
         licence: Licence | None = None) -> LlmSpec:
    measured = None if prompt_tps is None else Measured(
        prompt_tps, 20.0, 2, int(memory_gib * GIB), "model" if params < 0.5 else "stand-in")
    return LlmSpec(name, f"{name} model", 8192 if params >= 0.5 else 4096, 0.2, 512,
                   (FileSpec("model.gguf", "0" * 64, download=f"org/{name} m.gguf",
                             bytes=int(params * 6e8)),),
                   parameters_b=params, quantisation="Q4_K_M", licence=licence,
                   shape=Shape(16, 16, 4, 64, 32000), measured=measured)


TINY = spec("tiny", 0.1, 0.3, 400.0)  # prompt tokens/s with 2 threads
ONE = spec("one", 1.0, 1.5, 150.0)
THREE = spec("three", 3.0, 3.5, 50.0, Licence("Research", "LICENSE", "non-commercial only"))
FOUR = spec("four", 4.0, 4.5, 25.0)
LADDER = [FOUR, TINY, THREE, ONE]  # in no order


def pick(gib: float, cores: int = 2, settings: Settings = S, specs=LADDER) -> str:
    return recommend.recommend(Machine(int(gib * GIB), None, cores), settings,
                               specs=specs).choice.spec.name


def test_the_largest_model_that_fits_in_a_quarter_of_memory():
    assert pick(1.0) == "tiny"  # 0.25 GiB allowed: nothing fits, the least demanding
    assert pick(8) == "one"  # 2 GiB allowed
    assert pick(16) == "three"  # 4 GiB
    assert pick(24) == "three"  # 6 GiB: four fits but its first words take 21 s
    fast = replace(S, recommend_max_wait_s=60.0)
    assert pick(24, settings=fast) == "four"


def test_the_reason_says_what_decided():
    r = recommend.recommend(Machine(16 * GIB, None, 2), S, specs=LADDER)
    assert "fits in 4.0 GiB (25% of 16.0 GiB)" in r.reason
    assert "the next larger, four, needs 4.5 GiB" in r.reason
    r = recommend.recommend(Machine(24 * GIB, None, 2), S, specs=LADDER)
    assert "four, would take about 21 s before its first words" in r.reason
    r = recommend.recommend(Machine(GIB, None, 2), S, specs=LADDER)
    assert r.reason.startswith("no model fits in 0.2 GiB") and r.choice.spec.name == "tiny"


def test_fewer_cores_read_the_sources_slower():
    # 520 prompt tokens (8192-token context: 400 of sources + 120), 2 threads vs 1
    two = recommend.recommend(Machine(16 * GIB, None, 2), S, specs=LADDER)
    one = recommend.recommend(Machine(16 * GIB, None, 1), S, specs=LADDER)
    t2 = {e.spec.name: e.first_words_s for e in two.options}
    t1 = {e.spec.name: e.first_words_s for e in one.options}
    assert t1["three"] == pytest.approx(2 * t2["three"])
    assert t2["three"] == pytest.approx((400 + recommend.PROMPT_OVERHEAD) / 50.0)
    assert two.choice.spec.name == "three" and one.choice.spec.name == "one"  # 20.8 s > 20 s
    # More cores than the host reads with (llm_batch_threads) change nothing.
    eight = recommend.recommend(Machine(16 * GIB, None, 8), S, specs=LADDER)
    assert eight.threads == 2 and eight.choice.spec.name == "three"


def test_a_model_without_a_measurement_is_extrapolated_from_the_default():
    guess = replace(spec("guess", 2.0, 1.0, None), measured=None)
    e = next(o for o in recommend.recommend(Machine(32 * GIB, None, 2), S,
                                            specs=[TINY, guess]).options if o.spec is guess)
    # Reading scales with parameters, writing with bytes of weights: from tiny's figures.
    assert e.measured == "extrapolated"
    assert e.first_words_s == pytest.approx((400 + recommend.PROMPT_OVERHEAD) / (400 * 0.1 / 2))
    assert e.tokens_per_s == pytest.approx(20.0 * 0.1 / 2.0)
    assert e.memory_bytes == catalog.estimated_bytes(guess)  # no measured peak either


def test_notes_name_the_licence_free_memory_and_what_ask_uses_now(tmp_path: Path):
    for s in (TINY, FOUR):  # installed (present, not yet verified, counts)
        folder = specs.model_path(s, tmp_path)
        folder.mkdir(parents=True)
        (folder / "model.gguf").write_bytes(b"x")
    r = recommend.recommend(Machine(16 * GIB, 2 * GIB, 2), S, tmp_path, specs=LADDER)
    assert r.choice.spec.name == "three" and not r.choice.installed
    notes = " ".join(r.notes)
    assert "three's licence: Research, non-commercial only" in notes
    assert "Only 2.0 GiB is free now" in notes
    assert "the larger models were not run" in notes
    # `rewind ask` picks the largest installed file: "four" here, not the recommended one
    four = next(e for e in r.options if e.spec.name == "four")
    assert four.installed and not four.fits
    assert "`rewind ask` uses four now" in notes and "--model three" in notes


def test_the_real_catalog_never_recommends_less_for_more_memory():
    known = list(specs.load_specs().llm.values())
    last = 0.0
    for gib in (1, 2, 4, 6, 8, 12, 16, 24, 32, 64, 128):
        r = recommend.recommend(Machine(gib * GIB, None, 2), S, specs=known)
        c = r.choice
        assert c.spec.parameters_b >= last, gib
        last = c.spec.parameters_b
        assert c.fits or r.reason.startswith("no model fits")
        assert c.budget == S.answer_budget(c.spec.n_ctx)
        assert {e.spec.name for e in r.options} == {s.name for s in known}
    big = recommend.recommend(Machine(128 * GIB, None, 2), replace(S, recommend_max_wait_s=1e9),
                              specs=known)
    assert big.choice.spec.name == "gemma-3-4b-it-q4_k_m"  # the largest, without a time limit


def test_this_machine_is_read_from_the_os():
    m = recommend.this_machine()
    assert m.memory_bytes > 256 * 2**20 and m.cores >= 1
    assert m.available_bytes is None or 0 < m.available_bytes <= m.memory_bytes


def rewind(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REWIND_MODEL_DIR": str(ROOT / "no-models-here")}
    return subprocess.run([sys.executable, "-m", "rewind", "models", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


def test_cli_recommends_for_a_described_machine():
    out = rewind("recommend", "--memory", "8", "--cores", "4", "--json")
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["machine"] == {"memory_bytes": 8 * GIB, "available_bytes": None, "cores": 4}
    assert r["allowed_bytes"] == 2 * GIB
    names = [o["name"] for o in r["options"]]
    assert r["choice"]["name"] in names and r["choice"]["memory_bytes"] <= 2 * GIB
    assert all(o["licence"]["name"] for o in r["options"])
    human = rewind("recommend", "--memory", "8")
    assert human.returncode == 0 and "Recommended: " in human.stdout
    assert "That machine: 8.0 GiB of memory" in human.stdout
    assert "larger models were not run" in human.stdout


@pytest.mark.parametrize("args,words", [
    (["--memory", "0"], "not a memory size"), (["--cores", "0"], "not a number of cores"),
    (["qwen"], "takes no name")])
def test_cli_refuses_what_is_not_a_machine(args, words):
    out = rewind("recommend", *args)
    assert out.returncode == 1 and words in out.stderr and "Traceback" not in out.stderr


def test_a_non_commercial_licence_is_listed_but_not_recommended():
    research = Licence("Research", "LICENSE", "non-commercial only", commercial=False)
    three_nc = replace(THREE, licence=research)
    r = recommend.recommend(Machine(16 * GIB, None, 2), S, specs=[TINY, ONE, three_nc, FOUR])
    assert r.choice.spec.name == "one"
    assert "the next larger, three, is licensed for non-commercial use only" in r.reason
    listed = next(o for o in r.to_dict()["options"] if o["name"] == "three")
    assert listed["fits"] and listed["licence"]["commercial"] is False


def test_by_default_the_real_catalog_gives_this_machine_the_largest_model_within_8_s():
    # The project's machine: 2 cores, 24 GiB. The 3-4B models would take 10-13 s.
    assert Settings().recommend_max_wait_s == 8.0
    known = list(specs.load_specs().llm.values())
    r = recommend.recommend(Machine(24 * GIB, None, 2), Settings(), specs=known)
    assert r.choice.spec.name == "qwen2.5-1.5b-instruct-q4_k_m"
    assert r.choice.first_words_s is not None and r.choice.first_words_s <= 8.0
    assert "qwen2.5-3b-instruct-q4_k_m, would take about 11 s before its first words" in r.reason
    patient = recommend.recommend(Machine(24 * GIB, None, 2),
                                  replace(Settings(), recommend_max_wait_s=20.0), specs=known)
    assert patient.choice.spec.name == "gemma-3-4b-it-q4_k_m"


def test_gains_and_costs_are_against_the_model_answers_use_now(tmp_path: Path):
    known = list(specs.load_specs().llm.values())
    smol = specs.llm_spec("smollm2-135m-instruct-q8_0")
    folder = specs.model_path(smol, tmp_path)
    folder.mkdir(parents=True)
    (folder / "model.gguf").write_bytes(b"x")  # installed (present, unverified)
    r = recommend.recommend(Machine(24 * GIB, None, 2), Settings(), tmp_path, specs=known)
    assert r.current is not None and r.current.spec.name == smol.name
    gains, costs = " | ".join(r.gains), " | ".join(r.costs)
    assert "11x the parameters of SmolLM2 135M (1.5B instead of 135M)" in gains
    assert "400 tokens of your pages per answer instead of 200" in gains
    assert "answers up to 240 tokens instead of 120" in gains
    assert "a 1.12 GB download" in costs
    assert "first words after ~5 s instead of ~1 s" in costs
    assert "writing at ~27 tokens/s instead of ~104" in costs
    d = r.to_dict()
    assert d["current"]["name"] == smol.name and d["gains"] == r.gains and d["max_wait_s"] == 8
    # Nothing installed: a language model instead of extracts; the choice itself: nothing.
    none = recommend.recommend(Machine(24 * GIB, None, 2), Settings(), tmp_path / "x",
                               specs=known)
    assert none.current is None and "instead of sentences picked" in none.gains[0]
    same = recommend.recommend(Machine(24 * GIB, None, 2), Settings(), tmp_path,
                               specs=[smol])
    assert same.gains == [] and same.costs == []


def test_cli_recommends_with_patience_and_says_how_to_get_it():
    out = rewind("recommend", "--memory", "24", "--cores", "2")
    assert out.returncode == 0, out.stderr
    assert "Recommended: qwen2.5-1.5b-instruct-q4_k_m" in out.stdout
    assert "gains: answers written by a language model" in out.stdout  # none installed here
    assert "costs: a 1.12 GB download" in out.stdout
    assert ("get it: rewind models pull qwen2.5-1.5b-instruct-q4_k_m (from huggingface.co"
            in out.stdout)
    patient = rewind("recommend", "--memory", "24", "--cores", "2", "--patience", "20",
                     "--json")
    assert json.loads(patient.stdout)["choice"]["name"] == "gemma-3-4b-it-q4_k_m"
    assert json.loads(patient.stdout)["max_wait_s"] == 20
    bad = rewind("recommend", "--patience", "0")
    assert bad.returncode == 1 and "--patience 0: 0 is outside 1..600" in bad.stderr
