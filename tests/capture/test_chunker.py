import json
from pathlib import Path

from rewind.capture.chunker import approx_tokens, chunk_blocks
from rewind.capture.extract import Block
from rewind.capture.quality import passage_quality
from rewind.capture.units import count_words
from rewind.config import Settings

S = Settings()


def words(n: int, word: str = "word") -> str:
    return " ".join(f"{word}{i}" for i in range(n))


def test_neighbours_merge_up_to_the_limit():
    blocks = [Block(words(80)), Block(words(80)), Block(words(80))]
    text, chunks = chunk_blocks(blocks, S)
    assert [len(c.text.split()) for c in chunks] == [160, 80]
    assert text.count("\n\n") == 2


def test_hard_break_is_not_crossed_but_heading_stays_with_its_text():
    blocks = [Block(words(20, "a")), Block("Section title here", "heading", True),
              Block(words(20, "b"), "text", True)]
    _, chunks = chunk_blocks(blocks, S)
    assert len(chunks) == 2
    assert chunks[1].text.startswith("Section title here\nb0")  # a line of its own


def test_short_passages_dropped_and_long_blocks_split():
    blocks = [Block("too short"), Block(". ".join(words(10)) * 60)]
    _, chunks = chunk_blocks(blocks, S)
    assert all(5 <= len(c.text.split()) <= 200 for c in chunks)
    assert len(chunks) >= 3


def test_spans_point_into_the_page_text():
    blocks = [Block(words(10, "x")), Block(words(10, "y"), hard_break_before=True)]
    text, chunks = chunk_blocks(blocks, S)
    for c in chunks:
        assert text[c.span[0]:c.span[1]] == c.text


def test_token_limit_is_respected():
    blocks = [Block(words(200))]
    _, chunks = chunk_blocks(blocks, S, max_tokens=64, count_tokens=approx_tokens)
    assert all(approx_tokens(c.text) <= 64 for c in chunks)
    assert sum(len(c.text.split()) for c in chunks) == 200  # nothing lost


def test_max_passages():
    blocks = [Block(words(50), hard_break_before=True) for _ in range(50)]
    _, chunks = chunk_blocks(blocks, S, max_passages=30)
    assert len(chunks) == 30
    assert [c.position for c in chunks] == list(range(30))


def test_quality_prefers_structured_prose_over_menus():
    """The extension's formula (capture/quality.py, shared cases in test_quality.py)."""
    _, prose = chunk_blocks([Block("Section", "heading", True), Block(words(119) + ".")], S)
    _, menu = chunk_blocks([Block("Home | About | Us | Go | To | A | B | Sign up for it")], S)
    assert prose[0].quality == 0.85 and menu[0].quality == 0.3


def test_quality_reads_the_groups_structure():
    """A heading and list items count for every passage of their group; blocks carry no
    links or navigation."""
    blocks = [Block("Steps", "heading", True), Block(words(30), "list"), Block(words(10))]
    _, chunks = chunk_blocks(blocks, S)
    text = chunks[0].text
    chars = sum(len(b.text) for b in blocks)
    assert chunks[0].quality == passage_quality(
        text, 41, heading=True, chars=chars, list_chars=len(blocks[1].text)) == 0.8


def test_words_as_the_extension_counts_them():
    """Chinese and Japanese are counted by characters (those scripts write no spaces; a Han
    character half a word, a kana a third: capture/units.py): the extension's countWords
    runs the same cases (tests/data/word_count_cases.json, and chunk_units.json)."""
    cases = json.loads((Path(__file__).parents[1] / "data" / "word_count_cases.json")
                       .read_text(encoding="utf-8"))
    for case in cases:
        assert count_words(case["text"]) == case["words"], case["text"]
