"""What arrives is bounded and cleaned before it is stored (ingest.py)."""

from __future__ import annotations

import pytest
from rewind.capture.ingest import PageInput, PassageInput, prepare
from rewind.config import Settings
from rewind.errors import Code, RewindError


def test_control_characters_never_reach_the_store():
    page = PageInput(
        "https://x.example/p",
        "Evil \x1b]0;pwned\x07 title",
        [PassageInput("Words about \x1b[2J clearing the screen\x00 and\x9b more\tkept\nlines")],
        visited_at=1.0,
    )
    prepared = prepare(page, Settings())
    texts = [prepared.title, *(p.text for p in prepared.passages)]
    assert not any(ch in text for text in texts for ch in "\x1b\x07\x00\x9b")
    assert prepared.title == "Evil  ]0;pwned  title"
    assert "\tkept\nlines" in prepared.passages[0].text


def test_a_browser_page_counts_its_title_among_its_passages():
    s = Settings()
    words = "a passage with enough words to keep"
    n = s.max_passages_per_page
    ok = [PassageInput("Title", 0)] + [PassageInput(words, i) for i in range(1, n)]
    assert len(prepare(PageInput("https://x.example/p", "Title", ok), s).passages) == len(ok)
    over = ok + [PassageInput(words, s.max_passages_per_page)]
    with pytest.raises(RewindError) as info:
        prepare(PageInput("https://x.example/p", "Title", over), s)
    assert info.value.code == Code.TOO_LARGE and "title included" in info.value.message
