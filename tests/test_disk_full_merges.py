"""tantivy's own segment merges on a full disk, for real: the data folder on a small tmpfs.

tantivy merges segments on its own threads after a commit (its log merge policy: 8
segments of a size). Seven big pages make seven segments; the disk is then filled up to
a little room — enough for a small page, not for the merge of eight segments. The small
page's commit starts the merge, which runs out of room. Nothing is lost (the merged
segments stay, checksums whole), searches answer, the merge's half-written segment is
deleted so the room it took is there again (it held the disk's last bytes until tantivy's
next commit, which never came: the store's next write failed first), and once there is
room the next write goes on and the index catches up. Needs root (mount); skipped
otherwise, with the reason. The fake embedder: the merge is the subject, not the vectors.
"""

from __future__ import annotations

import random
import shutil
import time
from pathlib import Path

import pytest
from rewind.capture.ingest import PageInput
from rewind.config import Settings
from rewind.errors import Code, RewindError
from rewind.index.derived import integrity
from rewind.models.embedder import FakeEmbedder
from rewind.profile.engine import Rewind
from rewind.search.pages import SearchQuery

SIZE = "8m"
ROOM = 200_000  # bytes left: a small page's store write and segment, not the merge (~0.5 MB)


@pytest.fixture
def small_disk(small_tmpfs):
    return small_tmpfs(SIZE)


def free(where: Path) -> int:
    return shutil.disk_usage(where).free


def big_page(i: int, rng: random.Random, vocab: list[str]) -> PageInput:
    """~25 KB of made-up words: a segment of ~120 KB, mostly its term dictionary."""
    sentences = (" ".join(rng.choice(vocab) for _ in range(12)).capitalize() + "."
                 for _ in range(300))
    return PageInput(f"https://big{i}.example/", f"Big {i}",
                     text=f"Marker{i} opens it. " + "\n\n".join(sentences))


def small_page(word: str) -> PageInput:
    return PageInput(f"https://{word.lower()}.example/", word,
                     text=f"{word} is a short page about nothing much, a few words only.")


def found(eng: Rewind, word: str) -> list[str]:
    return [hit.url for hit in eng.search(SearchQuery(word, mode="keyword")).results]


def wait_for(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (got := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)
    return got


def test_a_merge_that_runs_out_of_room_loses_nothing_and_gives_the_room_back(small_disk):
    data = small_disk / "data"
    text_dir = data / "text_index"
    rng = random.Random(7)
    vocab = ["".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3))
             for _ in range(20_000)]
    eng = Rewind.open(data, Settings(), embedder=FakeEmbedder())
    try:
        for i in range(7):  # one write, one commit, one segment each
            eng.index_page(big_page(i, rng, vocab), check_content=False)
        index_bytes = sum(p.stat().st_size for p in text_dir.iterdir() if p.is_file())
        filler = small_disk / "filler"
        filler.write_bytes(b"\0" * (free(small_disk) - ROOM))
        assert index_bytes > 2 * ROOM, "the merge must need more room than is left"

        # The eighth segment: its commit goes through, the merge it starts runs out of room.
        assert eng.index_page(small_page("Tinymarker"), check_content=False).status == "new"
        # Its half-written segment holds the disk's last bytes until it is deleted.
        room = wait_for(lambda: not integrity.leftovers(text_dir) and free(small_disk) > ROOM // 4
                        and free(small_disk), 30, "the failed merge's leftovers to be deleted")

        assert integrity.problems(text_dir, full=True) == [], "no segment lost or damaged"
        for i in (0, 3, 6):
            assert found(eng, f"Marker{i}") == [f"https://big{i}.example/"], "searches answer"
        assert found(eng, "Tinymarker") == ["https://tinymarker.example/"]

        # Still full: the store takes the next small page (the room is back); the keyword
        # index may not (the merge, tried again, takes the room first): then it says so,
        # the page stored, and catches up later.
        try:
            eng.index_page(small_page("Secondtiny"), check_content=False)
        except RewindError as exc:
            assert exc.code == Code.DISK_FULL, exc
        assert eng.page_info("https://secondtiny.example/"), "the page is stored"
        assert found(eng, "Marker3") == ["https://big3.example/"], "searches still answer"

        filler.unlink()  # room again
        assert free(small_disk) > room
        assert eng.index_page(small_page("Thirdtiny"), check_content=False).status == "new"
        for word in ("Secondtiny", "Thirdtiny", "Tinymarker"):
            assert found(eng, word) == [f"https://{word.lower()}.example/"], word
        assert all(found(eng, f"Marker{i}") == [f"https://big{i}.example/"] for i in range(7))
    finally:
        eng.close()
    assert integrity.problems(text_dir, full=True) == []
    assert not integrity.leftovers(text_dir)
    assert len(integrity.segment_files(text_dir)) < 9 * len(integrity.COMPONENTS), \
        "with room, the segments were merged"
