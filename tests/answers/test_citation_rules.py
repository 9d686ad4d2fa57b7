"""The citation checker's rules (citations.py) with a deterministic fake embedder, in
milliseconds; test_citations.py runs the same checker with the real model on a real
history. The fake (rewind.models.embedder.FakeEmbedder) embeds shared words as shared
meaning; `Pinned` sets one sentence's cosine with a passage outright, so the similarity
floor is tested at the number it is set to, not wherever a real model happens to land."""

from __future__ import annotations

import numpy as np
import pytest
from rewind.answers.citations import Checker, Meaning, check_answer, shown_text
from rewind.answers.packing import Evidence, Source
from rewind.config import Settings
from rewind.models.cosine_scale import REFERENCE, calibrated
from rewind.models.embedder import FakeEmbedder

S = Settings()
STARTER = ("Feed the starter once a day with equal weights of flour and water. "
           "Keep it at room temperature between feeds.")
FRIDGE = "In the fridge a starter only needs feeding once a week."
TRAM = "Tram 28 runs from Martim Moniz to Campo de Ourique. Board it at Martim Moniz to get a seat."


def source(n: int, title: str, *texts: str, vectors: FakeEmbedder | None = None) -> Source:
    """Source `n` as packing gives it; with `vectors`, its passages carry stored vectors."""
    url = f"https://{n}.example/page"
    passages = [Evidence("history", t, url, title, 1.0, position=i,
                         vector=vectors.embed_documents([t])[0] if vectors else None)
                for i, t in enumerate(texts)]
    return Source(n, "history", url, title, None, 1, 60.0, passages, list(texts))


SOURCES = [source(1, "How to keep a sourdough starter alive", STARTER, FRIDGE),
           source(2, "Riding tram 28 in Lisbon", TRAM)]


class Pinned(FakeEmbedder):
    """The fake embedder, but `sentence` gets a vector at cosine `cos` with `passage`'s."""

    def __init__(self, sentence: str, passage: str, cos: float) -> None:
        super().__init__()
        p = super()._vector(passage)
        other = np.roll(p, 1) - (np.roll(p, 1) @ p) * p  # a direction orthogonal to p
        other /= np.linalg.norm(other)
        self.pinned = {sentence: (cos * p + np.sqrt(1 - cos * cos) * other).astype(np.float32)}

    def _vector(self, text: str) -> np.ndarray:
        return self.pinned.get(text, super()._vector(text))


class Counting(FakeEmbedder):
    """The fake embedder, keeping every batch it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def embed_documents(self, texts):
        self.batches.append(list(texts))
        return super().embed_documents(texts)


def check(answer: str, embedder: FakeEmbedder | None = None, question: str = "",
          sources: list[Source] = SOURCES):
    embedder = embedder or FakeEmbedder()
    return check_answer(answer, sources, Meaning.of(embedder), S, question)


def test_a_right_citation_is_kept_a_wrong_one_corrected_a_missing_one_added():
    got = check("Feed the starter once a day with equal weights of flour and water [Source 1]. "
                "Board tram 28 at Martim Moniz to get a seat [Source 1]. "
                "In the fridge a starter needs feeding once a week.")
    assert [(c.status, c.cited, c.sources) for c in got.checks] == [
        ("ok", [1], [1]), ("corrected", [1], [2]), ("added", [], [1])]
    assert got.supported and got.unsupported == []
    assert got.answer == (
        "Feed the starter once a day with equal weights of flour and water [Source 1]. "
        "Board tram 28 at Martim Moniz to get a seat [Source 2]. "
        "In the fridge a starter needs feeding once a week [Source 1].")


def test_a_citation_of_a_source_that_is_not_there_is_corrected():
    (c,) = check("Tram 28 runs from Martim Moniz to Campo de Ourique [Source 7].").checks
    assert (c.status, c.sources) == ("corrected", [2])


def test_the_quote_and_mark_point_at_the_sentence_that_backs_the_claim():
    (c,) = check("Keep it at room temperature between feeds [Source 1].").checks
    assert c.status == "ok" and c.quote == STARTER and c.support == 1.0
    assert STARTER[c.mark[0]:c.mark[1]] == "Keep it at room temperature between feeds."
    # "starter" is only in the passage's first sentence: the mark takes both
    (c,) = check("Keep the starter at room temperature between feeds [Source 1].").checks
    assert c.status == "ok" and STARTER[c.mark[0]:c.mark[1]] == STARTER


@pytest.mark.parametrize(("sentence", "missing"), [
    ("Feed the starter once a day with rye flour and apple juice [Source 1].", "rye"),
    ("Feed the starter 3 times a day [Source 1].", "3"),  # a number as written
    ("Tram 28 runs from Martim Moniz to Belém [Source 2].", "belém"),
])
def test_a_detail_no_source_has_is_left_out_and_named(sentence, missing):
    got = check(sentence)
    (c,) = got.checks
    assert (c.status, c.sources) == ("unsupported", [])
    assert missing in c.missing
    assert got.answer == "" and not got.supported and got.unsupported == [c.sentence]


def test_a_dropped_or_added_not_is_another_claim():
    assert check("Tram 28 does not run from Martim Moniz to Campo de Ourique.").checks[0].status \
        == "unsupported"
    negative = source(1, "Pets", "Cats do not need a daily bath.")
    assert check("Cats need a daily bath.", sources=[negative]).checks[0].status == "unsupported"
    assert check("Cats do not need a daily bath.", sources=[negative]).checks[0].status == "added"


def test_what_is_no_claim_is_never_shown():
    got = check("Here is what I found:\nHow to keep a sourdough starter alive\nFeeding Your "
                "Starter\nHow often should I feed it? I couldn't find that in your pages. Yes.")
    assert [c.status for c in got.checks] == [
        "lead_in", "title", "heading", "question", "no_claim", "no_claim"]
    assert got.answer == "" and not got.supported and got.unsupported == []


def test_the_same_claim_twice_is_said_once():
    said = "In the fridge a starter needs feeding once a week."
    got = check(f"{said} {said}")
    assert [c.status for c in got.checks] == ["added", "repeat"]
    assert got.answer == "In the fridge a starter needs feeding once a week [Source 1]."


def test_the_questions_own_words_need_no_source_what_a_sentence_adds_does():
    q = "How often does my sourdough starter Bubbles need feeding in the fridge?"
    assert check("Bubbles needs feeding once a week.", question=q).checks[0].status == "added"
    assert check("Bubbles needs feeding once a week.").checks[0].status == "unsupported"


# ---- meaning: the similarity floor, on the reference scale ---------------------------------


SAID = "In the fridge a starter needs feeding once a week."


@pytest.mark.parametrize(("cos", "status"), [(0.9, "added"), (0.2, "added"),
                                             (0.12, "unsupported"), (-0.5, "unsupported")])
def test_the_passages_words_in_a_sentence_far_from_it_in_meaning_are_not_backed(cos, status):
    """The floor (citation_min_similarity, 0.1) is on MiniLM's scale: the fake's cosine is
    calibrated first (its points 0.6/0.45 against 0.55/0.40: 0.05 lower), so a raw 0.12 is
    0.07 there, under the floor, though over it as written."""
    fake = FakeEmbedder()
    assert calibrated(fake.confidence, cos) == pytest.approx(cos - 0.05)
    assert fake.confidence != REFERENCE and S.citation_min_similarity == 0.1
    (c,) = check(SAID, Pinned(SAID, FRIDGE, cos)).checks
    assert c.status == status
    if status == "unsupported":
        assert c.support == 1.0 and c.missing == ()  # every word there: meaning decided it


def test_the_scale_comes_with_the_function_never_from_it():
    """A wrapped `embed_documents` (a cache, a counter) is read on the scale it is given:
    the fake's own, a raw 0.12 is under the floor as the fake itself has it; said to be on
    the reference scale, the same cosine is over it."""
    fake = Pinned(SAID, FRIDGE, 0.12)

    def wrapped(texts):
        return fake.embed_documents(texts)

    on_its_scale = check_answer(SAID, SOURCES, Meaning(wrapped, fake.confidence), S)
    assert [c.status for c in on_its_scale.checks] == ["unsupported"]
    as_reference = check_answer(SAID, SOURCES, Meaning(wrapped, None), S)
    assert [c.status for c in as_reference.checks] == ["added"]


def test_without_an_embedder_the_words_alone_decide():
    got = check_answer(f"{SAID} Cats purr.", SOURCES, None, S)
    assert [c.status for c in got.checks] == ["added", "unsupported"]


def test_stored_vectors_are_not_embedded_again_and_the_claims_go_in_one_batch():
    counting = Counting()
    stored = [source(1, "How to keep a sourdough starter alive", STARTER, FRIDGE,
                     vectors=FakeEmbedder()),
              source(2, "Riding tram 28 in Lisbon", TRAM, vectors=FakeEmbedder())]
    got = check(f"Feeding Your Starter\n{SAID} Tram 28 runs from Martim Moniz.", counting,
                sources=stored)
    assert [c.status for c in got.checks] == ["heading", "added", "added"]
    assert counting.batches == [[SAID, "Tram 28 runs from Martim Moniz."]]  # no passage, no heading
    counting.batches.clear()
    check(SAID, counting)  # no stored vectors: the passages once, then the claim
    assert counting.batches == [[STARTER, FRIDGE, TRAM], [SAID]]


def test_a_quote_is_its_sources_own_words_in_quotation_marks():
    checker = Checker(SOURCES, Meaning.of(FakeEmbedder()), S)
    c = checker.quote("Keep it at room temperature between feeds.", 1, STARTER)
    assert (c.status, c.sources, c.support) == ("quoted", [1], 1.0)
    assert STARTER[c.mark[0]:c.mark[1]] == c.sentence
    assert shown_text([c]) == "“Keep it at room temperature between feeds.” [Source 1]"
    assert checker.check("Keep it at room temperature between feeds.", []).status == "repeat"
    with pytest.raises(ValueError):
        checker.quote("Keep it in the oven.", 1, STARTER)
