"""The re-embedding job's logic, with the fake embedder at two dimensions (two "models"):
batches, resume after a restart, search on the old model until the switch, cancel, pages
indexed during the job, filling in what was indexed while the model was missing.
(tests/native/test_reindex.py kills the real host in the middle of a real job.)"""

from __future__ import annotations

import time

import numpy as np
import pytest
from rewind.capture.ingest import PageInput, PassageInput
from rewind.config import Settings
from rewind.models.embedder import FakeEmbedder
from rewind.profile import embedding_job as record
from rewind.profile.engine import Rewind
from rewind.profile.reembedding import Reembedder, model_id_for
from rewind.search import SearchQuery

SETTINGS = Settings(reembed_batch=4)


class CountingFake(FakeEmbedder):
    """The fake embedder, counting the texts it embeds."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.embedded = 0

    def embed_documents(self, texts):
        self.embedded += len(texts)
        return super().embed_documents(texts)


def pages(eng: Rewind, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        eng.index_page(PageInput(f"https://example.com/p{i}", f"Page {i}", [
            PassageInput(f"Topic{i} is about gardening tomatoes and beans number {i} here."),
            PassageInput(f"Another passage of page {i} talks about cooking soup slowly."),
        ]))


def maker(made: dict):
    def make(model_id: str) -> CountingFake:
        made[model_id] = made.get(model_id) or CountingFake(int(model_id.split("@")[1]))
        return made[model_id]
    return make


@pytest.fixture
def eng(tmp_path):
    e = Rewind.open(tmp_path / "data", SETTINGS, embedder=FakeEmbedder(64))
    pages(e, 10)
    yield e
    e.close()


def test_a_job_re_embeds_in_batches_then_switches_and_drops_the_old_vectors(eng):
    made: dict = {}
    job = Reembedder(eng, make_embedder=maker(made), background=False)
    status = job.start("fake@32")
    total = eng.reader().passage_count()
    assert status["model"] == "fake@32" and status["done"] == 0 and status["total"] == total
    # a few batches: search still answers from the old model's vectors
    for _ in range(3):
        assert job.step()
    mid = job.status()
    assert mid["done"] == 3 * SETTINGS.reembed_batch and mid["state"] == "running"
    assert eng.model_id() == "fake@64"
    hits = eng.search(SearchQuery("gardening tomatoes", mode="semantic")).results
    assert hits and eng.reader().vector_models() == {"fake@64": total, "fake@32": mid["done"]}
    job.run()
    assert eng.model_id() == "fake@32" and eng.embedder().model_id == "fake@32"
    assert eng.reader().vector_models() == {"fake@32": total}  # the old model's are gone
    assert record.read(eng.reader()) is None and job.status() is None
    assert made["fake@32"].embedded == total  # each passage once
    hits = eng.search(SearchQuery("Topic3 gardening", mode="semantic")).results
    assert hits and hits[0].url == "https://example.com/p3"


def test_a_restarted_job_resumes_where_its_last_batch_landed(tmp_path):
    data = tmp_path / "data"
    made: dict = {}
    with Rewind.open(data, SETTINGS, embedder=FakeEmbedder(64)) as e:
        pages(e, 10)
        job = Reembedder(e, make_embedder=maker(made), background=False)
        job.start("fake@32")
        for _ in range(2):
            job.step()
        first = made["fake@32"].embedded
    # a new process: another engine and runner read the job from the store
    with Rewind.open(data, SETTINGS, embedder=FakeEmbedder(64)) as e:
        assert record.read(e.reader()).done == first == 2 * SETTINGS.reembed_batch
        later: dict = {}
        Reembedder(e, make_embedder=maker(later), background=False).run()
        assert later["fake@32"].embedded == e.reader().passage_count() - first  # not again
        assert e.model_id() == "fake@32"


def test_pages_indexed_during_the_job_are_covered_before_the_switch(eng):
    job = Reembedder(eng, make_embedder=maker({}), background=False)
    job.start("fake@32")
    job.step()
    pages(eng, 3, start=100)  # embedded with the active model as they arrive
    assert eng.reader().unembedded("fake@64") == 0
    job.run()
    assert eng.model_id() == "fake@32" and eng.reader().unembedded("fake@32") == 0


def test_cancel_deletes_the_partial_vectors_and_keeps_the_model(eng):
    job = Reembedder(eng, make_embedder=maker({}), background=False)
    job.start("fake@32")
    job.step()
    assert "fake@32" in eng.reader().vector_models()
    job.cancel()
    job.run()
    assert eng.model_id() == "fake@64"
    assert set(eng.reader().vector_models()) == {"fake@64"}
    assert record.read(eng.reader()) is None


def test_pause_stops_the_steps_until_resumed(eng):
    job = Reembedder(eng, make_embedder=maker({}), background=False)
    job.start("fake@32")
    job.step()
    assert job.pause()["state"] == "paused"
    assert not job.step()  # nothing to do while paused
    job.resume()
    job.run()
    assert eng.model_id() == "fake@32"


def test_a_job_owned_by_a_live_process_is_left_to_it(eng, monkeypatch):
    job = Reembedder(eng, make_embedder=maker({}), background=False)
    job.start("fake@32")
    monkeypatch.setattr(record.JobRecord, "owner_alive", lambda self, now=None: True)
    assert not job.step()
    assert eng.model_id() == "fake@64"


def test_passages_stored_while_the_model_was_missing_are_filled_in(tmp_path):
    data = tmp_path / "data"
    with Rewind.open(data, SETTINGS, embedder=None) as e:
        pages(e, 5)
        with e.writing() as store:
            store.set_meta("embedding_model", "fake@64")  # as the default model's id would be
    with Rewind.open(data, SETTINGS, embedder=FakeEmbedder(64)) as e:
        assert e.stats()["unembedded_passages"] == 10
        Reembedder(e, background=False).run()
        assert e.stats()["unembedded_passages"] == 0
        hits = e.search(SearchQuery("Topic2 gardening", mode="semantic")).results
        assert hits and hits[0].url == "https://example.com/p2"


def test_the_background_thread_runs_the_job_to_the_end(eng):
    job = Reembedder(eng, make_embedder=maker({}))
    job.start("fake@32")
    job._thread.join(30)
    assert not job.running() and eng.model_id() == "fake@32"
    assert set(eng.reader().vector_models()) == {"fake@32"}


def test_going_back_to_the_active_model_clears_the_job(eng):
    job = Reembedder(eng, make_embedder=maker({}), background=False)
    job.start("fake@32")
    job.step()
    assert job.start("fake@64") is None  # nothing left to do: no job
    job.run()
    assert set(eng.reader().vector_models()) == {"fake@64"}


def test_model_ids_name_an_installed_kind_of_model_and_one_of_its_dimensions():
    assert model_id_for("all-minilm-l6-v2-int8", 256) == "all-minilm-l6-v2-int8@256"
    assert model_id_for("all-minilm-l6-v2-int8", None) == "all-minilm-l6-v2-int8@384"
    with pytest.raises(Exception, match="cannot give 100-dimensional"):
        model_id_for("all-minilm-l6-v2-int8", 100)
    with pytest.raises(Exception, match="no-such"):
        model_id_for("no-such-model", None)


def test_a_split_passage_is_found_by_its_tail_and_scored_by_its_best_piece(tmp_path):
    emb = FakeEmbedder(64, max_tokens=8)  # reads 8 words: the tail would never be seen
    eng = Rewind.open(tmp_path / "data", SETTINGS, embedder=emb)
    try:
        long = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu "
                "xi omicron pi rho sigma tau upsilon")
        eng.index_page(PageInput("https://example.com/long", "Long", [PassageInput(long)]))
        eng.index_page(PageInput("https://example.com/other", "Other", [
            PassageInput("rho is a letter of the Greek alphabet")]))
        assert eng.stats()["split_passages"] == 1
        rows = eng.reader().db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
        assert rows == 3 + 1  # 20 words in 3 pieces of at most 8, one short passage
        query = "omicron pi rho sigma tau upsilon"
        hits = eng.search(SearchQuery(query, mode="semantic")).results
        assert hits[0].url == "https://example.com/long"
        tail = emb.embed_documents(["omicron pi rho sigma tau upsilon"])[0]
        assert np.isclose(hits[0].similarity, float(tail @ emb.embed_query(query)), atol=2e-3)
        with eng.searcher() as s:
            s._vectors.refresh(s.store)
            dense = s._vectors.search(emb.embed_query(query), 10)
        assert len({h.passage_id for h in dense}) == len(dense)
    finally:
        eng.close()


def test_a_full_disk_pauses_the_background_job_until_there_is_room(tmp_path, monkeypatch):
    settings = Settings(reembed_batch=4, reembed_disk_full_wait_s=0.1)
    with Rewind.open(tmp_path / "data", settings, embedder=FakeEmbedder(64)) as e:
        pages(e, 10)
        job = Reembedder(e, make_embedder=maker({}), background=False)
        job.start("fake@32")
        monkeypatch.setenv("REWIND_FAULT", "store_commit")  # every commit: no room
        monkeypatch.setenv("REWIND_FAULT_KIND", "enospc")
        job.wake()
        deadline = time.monotonic() + 10
        while not job.problem and time.monotonic() < deadline:
            time.sleep(0.05)
        assert job.running(), "the job waits for room; it does not die"
        assert "is full" in job.problem and "re-embedding waits" in job.problem
        assert not e.reader().vector_models().get("fake@32"), "nothing stored half-way"
        monkeypatch.delenv("REWIND_FAULT")  # room again
        job._thread.join(30)
        assert not job.running() and job.problem is None and e.model_id() == "fake@32"
