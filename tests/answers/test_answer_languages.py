"""An English question over a history that holds the answer on a German page, with the
multilingual model (multilingual-e5-small) and the real offline GGUF: the German page is
found, the answer cites it and says it is a German page. An English sentence cannot be
held to a German passage's words, so it is never shown as that page's: the page's own
sentences are (planted answers, real embedding model)."""

from __future__ import annotations

import pytest
from rewind.answers.answer import Answerer
from rewind.answers.citations import Meaning, check_answer
from rewind.answers.llm import ScriptedLlm
from rewind.capture.ingest import PageInput, PassageInput
from rewind.config import Settings
from rewind.models import specs
from rewind.models.multilingual import E5Embedder
from rewind.profile.engine import Rewind
from support.answer_fixtures import DAY, NOW, PAGES, page_input
from support.onnx_fixtures import real_model_dir

pytestmark = pytest.mark.slow

E5 = "multilingual-e5-small"
COFFEE = "https://kaffee.example/entkalken"
TITLE = "Kaffeemaschine entkalken"
GERMAN = [
    "Eine Kaffeemaschine sollte alle vier bis sechs Wochen entkalkt werden, bei hartem Wasser "
    "öfter. Kalk verlängert die Brühzeit und macht den Kaffee bitter.",
    "Zum Entkalken füllt man den Wassertank mit einer Mischung aus Wasser und Zitronensäure "
    "und lässt die Maschine ohne Kaffeepulver durchlaufen. Danach spült man zweimal mit "
    "klarem Wasser nach.",
]
QUESTION = "How often should I descale a coffee machine?"


@pytest.fixture(scope="module")
def history(tmp_path_factory, llm_dir):
    emb = E5Embedder(specs.embedding_spec(E5), real_model_dir(E5), Settings())
    eng = Rewind.open(tmp_path_factory.mktemp("de") / "data", Settings(), embedder=emb,
                      model_dir=llm_dir)
    for i, p in enumerate(PAGES):  # English pages on other topics
        eng.index_page(page_input(p, i))
    eng.index_page(PageInput(
        url=COFFEE, title=TITLE, visited_at=NOW - DAY, dwell_s=300.0,
        passages=[PassageInput(TITLE, 0, 0.6)]
        + [PassageInput(t, j + 1, 0.7) for j, t in enumerate(GERMAN)]))
    yield eng
    eng.close()


def test_the_real_model_answer_cites_the_german_page(history, llm_dir):
    answerer = Answerer(history, model_dir=llm_dir)
    try:
        assert answerer.llm() is not None, answerer.llm_problem
        result = answerer.ask(QUESTION)
    finally:
        answerer.close()
    assert result.sources[0]["url"] == COFFEE  # found first, by meaning
    # The 135M model cannot read German: what it writes is left out, and the answer is
    # the German page's own passage, quoted and cited, or a sentence it backs.
    assert result.outcome in ("answer", "closest"), result.to_dict()
    cited = {n for c in result.citations for n in c["sources"]
             if c["status"] in ("ok", "corrected", "added", "quoted")}
    assert 1 in cited and "[Source 1]" in result.answer
    if result.outcome == "closest":
        assert "Eine Kaffeemaschine sollte alle vier bis sechs Wochen" in result.answer
    assert "Cited from a German page (your question was in English)." in (result.notice or "")


def test_an_english_sentence_is_not_shown_as_the_german_pages_its_words_are(history):
    fake = ScriptedLlm("A coffee machine should be descaled every four to six weeks, more "
                       "often with hard water [Source 1].")
    result = Answerer(history, model=fake).ask(QUESTION)
    assert result.sources[0]["url"] == COFFEE
    assert "hard water" not in result.answer
    assert result.unsupported == ["A coffee machine should be descaled every four to six "
                                  "weeks, more often with hard water."]
    # What is shown is the German page's own sentence, quoted, in its own language.
    assert "Eine Kaffeemaschine sollte alle vier bis sechs Wochen" in result.answer
    assert "Cited from a German page" in (result.notice or "")


def test_a_made_up_english_sentence_is_not_backed_by_the_german_page(history):
    fake = ScriptedLlm("You should descale a coffee machine once a year with vinegar "
                       "[Source 1]. Descaling means replacing the filter with a new one.")
    result = Answerer(history, model=fake).ask(QUESTION)
    assert result.outcome != "answer" and "vinegar" not in result.answer
    assert all(c["status"] in ("unsupported", "quoted") for c in result.citations)


def test_the_german_passage_backs_its_own_german_sentence(history):
    emb = history.embedder()
    from support.answer_fixtures import sources_for
    sources = sources_for(history, QUESTION)
    checked = check_answer(f"{GERMAN[1].split('. ')[0]}. [Source 1]", sources,
                           Meaning.of(emb), history.settings, QUESTION)
    assert checked.supported and checked.checks[0].sources == [1]
