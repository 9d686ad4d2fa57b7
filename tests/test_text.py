"""Words and sentences (text.py): what every stage counts as a word, a sentence, a claim."""

from rewind.text import STOP_WORDS, content_words, sentences, stem, words


def test_words_are_lower_case_letter_and_digit_runs():
    assert words("The GIL's 2 locks: HNSW-pruning!") == ["the", "gil", "s", "2", "locks",
                                                          "hnsw", "pruning"]


def test_sentences_split_at_end_marks_and_lines():
    assert sentences("One. Two?  Three!\nFour") == ["One.", "Two?", "Three!", "Four"]
    assert sentences("  \n ") == []


def test_content_words_drop_stop_words_and_source_talk_and_stem():
    assert content_words("According to the sources, the starter needs feeding daily") == {
        "accord", "starter", "need", "feed", "daily"}
    assert stem("prunes") == "prun" and stem("runs") == "runs"  # short words stay whole
    assert "the" in STOP_WORDS and "page" not in STOP_WORDS  # BM25 keeps "page"
