"""The citation checker (citations.py) on a small real history with the real embedding model:
planted wrong citations, made-up sentences, restated questions, fragments."""

from __future__ import annotations

from rewind.answers.citations import Meaning, check_answer, split_answer, with_citations
from rewind.answers.streaming import drop_fragment
from support.answer_fixtures import HNSW, SOURDOUGH, number_of, sources_for


def test_split_and_place_citations():
    parts = split_answer(
        "It is a lock [Source 1]. It runs one thread. [Sources 1 and 2]\nUse processes (Source 3)!"
    )
    assert parts == [
        ("It is a lock.", [1]),
        ("It runs one thread.", [1, 2]),
        ("Use processes!", [3]),
    ]
    assert with_citations("It is a lock.", [1, 2]) == "It is a lock [Source 1] [Source 2]."
    assert with_citations("No stop", [4]) == "No stop [Source 4]."
    assert drop_fragment("One. Two is cut") == "One."
    assert drop_fragment("One. Two [Source 1]") == "One. Two [Source 1]"


def test_checker_corrects_a_wrong_citation_and_flags_a_made_up_sentence(history, embedder):
    sources = sources_for(history, "sourdough starter feeding and HNSW neighbour pruning")
    bread, graph = number_of(sources, SOURDOUGH), number_of(sources, HNSW)
    planted = (
        f"Feed the starter once a day with equal weights of flour and water "
        f"[Source {graph}]. The starter was invented in Paris in 1850 by a famous "
        f"baker [Source {bread}]. HNSW keeps at most M neighbours per layer. "
        "Sourdough starters are made from rye flour and apple juice."
    )
    checked = check_answer(planted, sources, Meaning.of(embedder), history.settings)
    wrong, made_up, uncited, invented = checked.checks
    assert (wrong.status, wrong.cited, wrong.sources) == ("corrected", [graph], [bread])
    assert made_up.status == "unsupported" and made_up.sources == []
    assert (uncited.status, uncited.sources) == ("added", [graph])
    assert invented.status == "unsupported"
    assert checked.supported
    assert checked.unsupported == [made_up.sentence, invented.sentence]
    assert "1850" not in checked.answer and "apple" not in checked.answer
    assert f"water [Source {bread}]." in checked.answer
    assert f"per layer [Source {graph}]." in checked.answer


def test_a_leading_the_answer_is_is_dropped():
    assert split_answer("The answer is: Feed it daily [Source 1].") == [("Feed it daily.", [1])]
    assert split_answer("Answer: yes.")[0][0] == "yes."


def test_list_markers_and_code_fences_are_not_sentences():
    text = "Do this: 1. Feed it daily [Source 1]. 2. Keep it warm.\n```bash\n- It costs 45."
    assert split_answer(text) == [
        ("Do this:", []),
        ("Feed it daily.", [1]),
        ("Keep it warm.", []),
        ("It costs 45.", []),
    ]


def test_a_short_false_claim_is_checked_not_waved_through(history, embedder):
    question = "How often should I feed a sourdough starter?"
    sources = sources_for(history, question)
    bread = number_of(sources, SOURDOUGH)
    answer = f"Feed it once a day [Source {bread}]. Use vinegar. Yes."
    checked = check_answer(answer, sources, Meaning.of(embedder), history.settings, question)
    assert [c.status for c in checked.checks] == ["ok", "unsupported", "no_claim"]
    assert "vinegar" not in checked.answer


def test_repeating_the_question_does_not_back_an_invented_detail(history, embedder):
    question = "How often should I feed a sourdough starter?"
    sources = sources_for(history, question)
    bread = number_of(sources, SOURDOUGH)
    answer = (
        f"You should feed a sourdough starter once a day [Source {bread}]. "
        f"You should feed a sourdough starter by the light of the full moon [Source {bread}]. "
        "The answer is:"
    )
    checked = check_answer(answer, sources, Meaning.of(embedder), history.settings, question)
    true, invented = checked.checks  # the dangling lead-in is no sentence at all
    assert true.status == "ok" and invented.status == "unsupported"
    assert checked.answer == f"You should feed a sourdough starter once a day [Source {bread}]."


def test_an_answer_with_no_supported_sentence_is_not_supported(history, embedder):
    sources = sources_for(history, "sourdough starter")
    checked = check_answer(
        "Tokyo is the capital of Japan [Source 1]. The moon is made of green cheese.",
        sources,
        Meaning.of(embedder),
        history.settings,
    )
    assert not checked.supported and checked.answer == ""
    assert [c.status for c in checked.checks] == ["unsupported", "unsupported"]


# ---- what is not an answer sentence is never shown (issue 11: one test per rule) ----------


def test_a_heading_is_not_shown(history, embedder):
    question = "How often should I feed a sourdough starter?"
    sources = sources_for(history, question)
    bread = number_of(sources, SOURDOUGH)
    answer = ("Feeding Schedule\n"
              f"Feed it once a day with equal weights of flour and water [{bread}].")
    checked = check_answer(answer, sources, Meaning.of(embedder), history.settings, question)
    assert [c.status for c in checked.checks] == ["heading", "ok"]
    assert not checked.answer.startswith("Feeding Schedule")


def test_a_list_of_page_titles_is_not_shown(history, embedder):
    question = "How often should I feed a sourdough starter?"
    sources = sources_for(history, question)
    bread = number_of(sources, SOURDOUGH)
    answer = (f"Feed it once a day with equal weights of flour and water [Source {bread}]. "
              f"How to keep a sourdough starter alive [Source {bread}].")
    checked = check_answer(answer, sources, Meaning.of(embedder), history.settings, question)
    assert [c.status for c in checked.checks] == ["ok", "title"]
    assert "alive" not in checked.answer


def test_an_invented_question_is_not_shown(history, embedder):
    question = "How often should I feed a sourdough starter?"
    sources = sources_for(history, question)
    bread = number_of(sources, SOURDOUGH)
    answer = (f"Feed it once a day with equal weights of flour and water [Source {bread}]. "
              'Question: What does "hooch" mean? What else do you want to know?')
    checked = check_answer(answer, sources, Meaning.of(embedder), history.settings, question)
    assert [c.status for c in checked.checks] == ["ok", "question", "question"]
    assert "?" not in checked.answer


def test_a_boilerplate_lead_in_is_cut_and_its_claim_kept(history, embedder):
    question = "How often should I feed a sourdough starter?"
    sources = sources_for(history, question)
    bread = number_of(sources, SOURDOUGH)
    for lead in ("The answer to your question is:", "According to the sources,",
                 "Based on the provided sources,", "Sure!"):
        answer = f"{lead} Feed it once a day with equal weights of flour and water [{bread}]."
        checked = check_answer(answer, sources, Meaning.of(embedder), history.settings,
                               question)
        assert checked.answer.startswith("Feed it once a day"), (lead, checked.answer)
        assert [c.status for c in checked.checks] == ["ok"]


def test_a_citation_points_at_the_passage_the_sentence_came_from(history, embedder):
    question = "sourdough starter hooch and feeding"
    sources = sources_for(history, question)
    bread = number_of(sources, SOURDOUGH)
    graph = number_of(sources, HNSW) if any(s.url == HNSW for s in sources) else None
    src = next(s for s in sources if s.n == bread)
    assert len(src.texts) >= 2, "the fixture packs two passages of the sourdough page"
    cited = graph or bread
    answer = f"A layer of grey liquid on top is called hooch [Source {cited}]."
    checked = check_answer(answer, sources, Meaning.of(embedder), history.settings,
                           question)
    [c] = checked.checks
    assert c.sources == [bread] and c.status == ("corrected" if graph else "ok")
    assert c.quote is not None and "hooch" in c.quote  # the passage, not just the page
