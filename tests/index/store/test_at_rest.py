"""Encryption at rest with the real engine, model and tantivy: nothing of a page's text in
any file of its data directory (WAL included), search unchanged, a lost key said plainly."""

import dataclasses
import os
import shutil

import pytest
from rewind.capture.ingest import PageInput, PassageInput
from rewind.config import Settings
from rewind.errors import Code, RewindError
from rewind.index.crypto import keys
from rewind.index.derived import vector_file
from rewind.index.store import at_rest
from rewind.index.store.at_rest import describe
from rewind.profile.engine import Rewind
from rewind.search import SearchQuery

SECRET = "Quetzalcoatlus flamingo telescopes"
SECRET_WORDS = ["quetzalcoatlus", "Quetzalcoatlus", "flamingo", "telescope", "telescop"]


def page(n: int, extra: str = "") -> PageInput:
    return PageInput(
        f"https://site{n}.example/article", f"{SECRET} {n}" if extra else f"Page {n}",
        [PassageInput(f"{extra} The article number {n} talks about sky watching with a few "
                      "more words to make a passage.")], visited_at=1_700_000_000.0 + n)


def grep(directory, words) -> list[str]:
    """Files of `directory` (every one: db, WAL, tantivy, logs) holding any of `words`."""
    hits = []
    for f in directory.rglob("*"):
        if f.is_file():
            data = f.read_bytes()
            hits += [f"{f.name}: {w}" for w in words
                     if w.encode() in data or w.encode("utf-16-le") in data]
    return hits


def test_no_plaintext_anywhere_and_search_works(tmp_path, embedder, model_dir):
    data = tmp_path / "data"
    with Rewind.open(data, embedder=embedder, model_dir=model_dir) as eng:
        for n in range(5):
            eng.index_page(page(n, SECRET if n == 2 else ""))
        assert (data / "rewind.db-wal").exists()  # the WAL is there and searched too
        assert grep(data, SECRET_WORDS) == []
        hits = eng.search(SearchQuery("flamingo telescopes", mode="keyword")).results
        assert [h.url for h in hits] == ["https://site2.example/article"]
        assert hits[0].highlights  # highlights come from Python when terms are keyed
        assert eng.search(SearchQuery(SECRET)).results[0].url == "https://site2.example/article"
        assert eng.stats()["encryption"]["encrypted"] is True
        assert eng.integrity() == []
        assert eng.vector_state().missing == 0
        # the vector snapshot's codes and int8 rows say what the sealed rows say: sealed too
        snaps = list((data / "vectors").glob("*.rvec"))
        assert snaps and all(f.read_bytes()[:8] == vector_file.SEALED_MAGIC for f in snaps)
    with Rewind.open(data, writer=False, embedder=embedder, model_dir=model_dir) as reader:
        assert reader.page_info("https://site2.example/article")["title"] == f"{SECRET} 2"


def test_a_plaintext_store_is_sealed_in_place(tmp_path, embedder, model_dir):
    data = tmp_path / "data"
    plain = dataclasses.replace(Settings(), encrypt_at_rest=False)
    with Rewind.open(data, plain, embedder=embedder, model_dir=model_dir) as eng:
        eng.index_page(page(1, SECRET))
    assert grep(data, SECRET_WORDS)  # the test can see plaintext when it is there
    with Rewind.open(data, embedder=embedder, model_dir=model_dir) as eng:
        assert grep(data, SECRET_WORDS) == []
        hits = eng.search(SearchQuery("flamingo", mode="keyword")).results
        assert [h.url for h in hits] == ["https://site1.example/article"]


def test_a_full_disk_at_the_compaction_after_sealing(tmp_path, embedder, model_dir,
                                                    monkeypatch):
    """The VACUUM after sealing a plaintext store finds no room (faults.py): the store opens
    sealed and searchable, the compaction is left noted, and the next writer with room does
    it: then no plaintext is anywhere."""
    data = tmp_path / "data"
    plain = dataclasses.replace(Settings(), encrypt_at_rest=False)
    with Rewind.open(data, plain, embedder=embedder, model_dir=model_dir) as eng:
        eng.index_page(page(1, SECRET))
    monkeypatch.setenv("REWIND_FAULT", "store_compact")
    monkeypatch.setenv("REWIND_FAULT_KIND", "enospc")
    with Rewind.open(data, embedder=embedder, model_dir=model_dir) as eng:
        assert eng.stats()["encryption"]["encrypted"] is True
        assert eng.reader().get_meta(at_rest.COMPACT_PENDING) == "1"
        hits = eng.search(SearchQuery("flamingo", mode="keyword")).results
        assert [h.url for h in hits] == ["https://site1.example/article"]
        eng.index_page(page(2))  # and writes go on
    monkeypatch.delenv("REWIND_FAULT")
    with Rewind.open(data, embedder=embedder, model_dir=model_dir) as eng:
        assert eng.reader().get_meta(at_rest.COMPACT_PENDING) is None
        assert eng.integrity() == [] and eng.stats()["pages"] == 2
    assert grep(data, SECRET_WORDS) == []


def test_lost_key_is_said_and_reset_offered(tmp_path, embedder, model_dir):
    data = tmp_path / "data"
    with Rewind.open(data, embedder=embedder, model_dir=model_dir) as eng:
        eng.index_page(page(1))
        key_id = describe(eng.reader())["key_id"]
    keys.delete(key_id)
    for writer in (True, False):
        with pytest.raises(RewindError) as err:
            Rewind.open(data, writer=writer, embedder=embedder, model_dir=model_dir)
        assert err.value.code == Code.KEY_MISSING
        assert "rewind reset" in err.value.hint and "key" in err.value.message


def test_a_wrong_key_is_not_taken_for_the_key(tmp_path, embedder, model_dir):
    data = tmp_path / "data"
    with Rewind.open(data, embedder=embedder, model_dir=model_dir) as eng:
        eng.index_page(page(1))
        key_id = describe(eng.reader())["key_id"]
    path = keys.key_dir() / f"{key_id}.key"
    shutil.copy(path, tmp_path / "saved")
    os.chmod(path, 0o600)
    keys.create(key_id, os.urandom(32))
    with pytest.raises(RewindError) as err:
        Rewind.open(data, embedder=embedder, model_dir=model_dir)
    assert err.value.code == Code.KEY_MISSING and "not its key" in err.value.message
    shutil.copy(tmp_path / "saved", path)  # the right key back: the store opens again
    with Rewind.open(data, embedder=embedder, model_dir=model_dir) as eng:
        assert eng.stats()["pages"] == 1
