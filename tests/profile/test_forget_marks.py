"""Forget marks (forget_marks.py through the engine): a copy of a forgotten page that was
on its way (visited before the forget) is refused, a later visit is recorded, and the
marks never hold the forgotten address."""

import time

import pytest
from rewind.capture.ingest import PageInput, PassageInput
from rewind.config import Settings
from rewind.models.embedder import FakeEmbedder
from rewind.profile.engine import Rewind
from rewind.profile.forget_marks import FILE

WORDS = "A page about kayaking on the lake before breakfast, with the mist still low."


def copy(url: str, visited: float) -> PageInput:
    return PageInput(url, "Kayaking", [PassageInput(WORDS)], visited_at=visited)


@pytest.mark.parametrize("forget", [
    lambda e: e.forget_url("https://lake.example/kayak"),
    lambda e: e.forget_domain("lake.example"),
    lambda e: e.forget_range(time.time() - 3600, time.time() + 60),
    lambda e: e.clear(),
])
def test_a_queued_copy_is_refused_a_later_visit_is_not(tmp_path, forget):
    with Rewind.open(tmp_path / "d", Settings(), embedder=FakeEmbedder()) as eng:
        visited = time.time() - 60
        eng.index_page(copy("https://lake.example/kayak", visited))
        eng.index_page(copy("https://other.example/kept", visited - 7200))
        assert forget(eng) >= 1
        again = eng.index_page(copy("https://lake.example/kayak", visited))  # on its way
        assert again.status == "skipped" and again.skipped["category"] == "forgotten"
        assert eng.page_info("https://lake.example/kayak") is None
        later = eng.index_page(copy("https://lake.example/kayak", time.time() + 1))
        assert later.status == "new"
        raw = (eng.data_dir / FILE).read_text()
        assert "lake" not in raw and "kayak" not in raw


def test_marks_of_a_plain_store_are_salted_hashes(tmp_path):
    import dataclasses

    s = dataclasses.replace(Settings(), encrypt_at_rest=False)
    with Rewind.open(tmp_path / "d", s, embedder=FakeEmbedder()) as eng:
        eng.index_page(copy("https://lake.example/kayak", 1.7e9))
        eng.forget_url("https://lake.example/kayak")
        assert eng.index_page(copy("https://lake.example/kayak", 1.7e9)).status == "skipped"
        assert "lake.example" not in (eng.data_dir / FILE).read_text()


def test_old_marks_expire(tmp_path):
    import dataclasses

    s = dataclasses.replace(Settings(), forget_mark_days=0.0)
    with Rewind.open(tmp_path / "d", s, embedder=FakeEmbedder()) as eng:
        eng.index_page(copy("https://lake.example/kayak", 1.7e9))
        eng.forget_url("https://lake.example/kayak")
        assert eng.index_page(copy("https://lake.example/kayak", 1.7e9)).status == "new"


def test_files_indexed_again_after_a_forget_are_not_refused(tmp_path):
    with Rewind.open(tmp_path / "d", Settings(), embedder=FakeEmbedder()) as eng:
        note = PageInput("file:///home/me/notes/kayak.md", "Kayak", [PassageInput(WORDS)],
                         visited_at=1.7e9, source="file")
        eng.index_page(note)
        eng.clear()
        assert eng.index_page(note).status == "new"  # the person indexes the folder again
