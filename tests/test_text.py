"""Words and sentences (text.py): what every stage counts as a word, a sentence, a claim."""

from rewind.text import (
    SENTENCE_END,
    STOP_WORDS,
    content_words,
    letter_words,
    names,
    numbers,
    sentence_spans,
    sentences,
    spaced_words,
    stem,
    terms,
    words,
)


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


def test_spaced_words_are_what_length_limits_count():
    assert spaced_words("  How does  HNSW prune?\n") == ["How", "does", "HNSW", "prune?"]
    assert spaced_words("") == []


def test_terms_keep_hyphens_and_apostrophes_lower_case():
    assert terms("RNG-pruning HNSW, don't_stop!") == ["rng-pruning", "hnsw", "don't_stop"]
    assert terms("Größe 42") == ["größe", "42"]  # letters of every script


def test_letter_words_start_with_a_letter_and_keep_their_case():
    assert letter_words("The 3 O'Brien-style rules, 2nd edition") == [
        "The", "O'Brien-style", "rules", "nd", "edition"]


def test_names_are_capitalised_words_that_open_no_sentence():
    assert names("The language was made by Guido. Then Python grew.") == ["Guido", "Python"]
    assert names("Ada wrote it") == []  # the first word opens the text


def test_numbers_as_written():
    assert numbers("Version 3.12 came 2 years after 3.10, not 3.") == ["3.12", "2", "3.10", "3"]


def test_sentence_spans_cut_a_block_at_end_marks_and_cjk_full_stops():
    text = "One. Two!  東京です。人口は多い？Three"
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == ["One.", "Two!", "東京です。", "人口は多い？", "Three"]
    assert sentence_spans("no end") == [(0, 6)]
    assert sentence_spans("Ends. ") == [(0, 5), (6, 6)]


def test_answer_sentences_break_at_cjk_full_stops_and_lines_a_block_only_at_the_first():
    """SENTENCE_BREAK (answers) and SENTENCE_END (a page's blocks) agree on full stops in
    every script and differ on line breaks, which a page's blocks do not hold."""
    tokyo = "東京です。人口は多い"
    assert sentences(tokyo) == ["東京です。", "人口は多い"]
    assert [s for s in SENTENCE_END.split(tokyo) if s] == ["東京です。", "人口は多い"]
    assert sentences("a\nb") == ["a", "b"]
    assert [s for s in SENTENCE_END.split("a\nb") if s] == ["a\nb"]
