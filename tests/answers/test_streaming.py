"""A model's answer cut into sentences as it streams (answers/streaming.py): each handed on
once, complete, with the citation that follows it."""

from __future__ import annotations

from rewind.answers.streaming import SentenceStream, drop_fragment

DRAFT = ("Feed it once a day [Source 1]. Keep it warm. [Source 2] In the fridge it needs "
         "feeding once a week [Source 1]. And then it")


def pieces(text: str, size: int) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


def test_every_sentence_is_handed_on_once_whole_with_its_citations():
    for size in (1, 3, 7, len(DRAFT)):  # however the model's tokens fall
        stream = SentenceStream()
        got = [part for p in pieces(DRAFT, size) for part in stream.feed(p)]
        got += stream.close(drop_fragment(DRAFT))
        assert got == [("Feed it once a day.", [1]), ("Keep it warm.", [2]),
                       ("In the fridge it needs feeding once a week.", [1])], size


def test_a_sentence_waits_while_its_citation_may_still_follow():
    stream = SentenceStream()
    assert stream.feed("Keep it warm. ") == []
    assert stream.feed("[Sou") == []  # the tag is being written: still the same sentence
    assert stream.feed("rce 2] Then") == [("Keep it warm.", [2])]


def test_a_cut_off_last_sentence_is_never_handed_on():
    stream = SentenceStream()
    text = "It is a lock. It runs one thre"
    assert [p for c in pieces(text, 4) for p in stream.feed(c)] == [("It is a lock.", [])]
    assert stream.close(drop_fragment(text)) == []
