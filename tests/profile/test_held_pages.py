"""Pages held for the person's decision, in the engine (rewind.profile.held_pages): a page the check
is unsure about is held, not stored; kept, it is indexed and later visits are not held;
not kept or expired, nothing of it is left in the store, its WAL, the text index or the
holding area; the audit log says what happened, never the text. (The model's thresholds are
set here so that every page is unsure: the real model's borderline pages are tested in
tests/capture/test_sensitive.py and in the browser.)"""

import dataclasses

import pytest
from rewind.capture.ingest import PageInput, PassageInput
from rewind.capture.sensitive import ContentCheck, Model
from rewind.config import Settings
from rewind.errors import RewindError
from rewind.models.embedder import FakeEmbedder
from rewind.profile.engine import Rewind
from rewind.search import SearchQuery

WORD = "quokkazephyr"
PAGE = PageInput("https://diary.example/entries/2025-11-04", "My diary — 4 November",
                 [PassageInput(f"Today I told Anna about the {WORD} and the new job offer.", 1),
                  PassageInput("We walked by the river until it got dark and cold.", 2)],
                 visited_at=1.7e9, signals={"controls": ["Sign out"], "lang": "en"})


def unsure(eng: Rewind, hold: float = 0.0, refuse: float = 2.0) -> None:
    gate = eng.gate()
    model = dataclasses.replace(gate.check.model, hold=hold, refuse=refuse)
    gate.check = ContentCheck(model=Model(**{f.name: getattr(model, f.name)
                                             for f in dataclasses.fields(Model)}))


def raw_bytes(eng: Rewind) -> bytes:
    return b"".join(p.read_bytes() for p in eng.data_dir.rglob("*") if p.is_file())


@pytest.fixture
def eng(tmp_path):
    e = Rewind.open(tmp_path / "data", dataclasses.replace(Settings(), encrypt_at_rest=False),
                    embedder=FakeEmbedder())
    unsure(e)
    yield e
    e.close()


def test_an_unsure_page_is_held_not_stored(eng):
    res = eng.index_page(PAGE).to_dict()
    assert res["status"] == "held" and res["page_id"] is None and res["held_id"]
    assert eng.list_pages(0, 10) == [] and eng.stats()["held"] == 1
    [held] = eng.held_pages()
    assert held.title == PAGE.title and held.site == "diary.example"
    assert WORD.encode() not in raw_bytes(eng)  # sealed: not in the store, WAL or index
    events = eng.audit.tail(10)
    assert events[-1]["event"] == "held" and "title" not in events[-1] and "url" not in events[-1]


def test_kept_it_is_indexed_and_its_revisits_are_not_held(eng):
    held_id = eng.index_page(PAGE).to_dict()["held_id"]
    res = eng.decide_held(held_id, keep=True)
    assert res.status == "new"
    assert [h.url for h in eng.search(SearchQuery(WORD, mode="keyword")).results] == [
        "https://diary.example/entries/2025-11-04"]
    again = dataclasses.replace(PAGE, passages=[*PAGE.passages, PassageInput(
        "Later that week the offer came in writing, with a start date.", 3)], visited_at=1.8e9)
    assert eng.index_page(again).status == "updated"  # the person said keep: not held again
    assert eng.holding().count() == 0
    assert [e["event"] for e in eng.audit.tail(4)][:3] == ["held", "held_kept", "indexed"]


def test_not_kept_nothing_is_left_anywhere(eng):
    held_id = eng.index_page(PAGE).to_dict()["held_id"]
    assert eng.decide_held(held_id, keep=False) is None
    assert eng.list_pages(0, 10) == [] and eng.held_pages() == []
    assert WORD.encode() not in raw_bytes(eng)
    assert eng.audit.tail(1)[0] | {"at": 0} == {"at": 0, "event": "held_dropped",
                                                 "site": "diary.example",
                                                 "category": eng.audit.tail(1)[0]["category"],
                                                 "by": "person"}
    with pytest.raises(RewindError, match="No page"):
        eng.decide_held(held_id, keep=True)


def test_after_its_time_it_is_wiped_unasked(eng, monkeypatch, tmp_path):
    clock = tmp_path / "clock"
    monkeypatch.setenv("REWIND_TEST_CLOCK_FILE", str(clock))
    eng.index_page(PAGE)
    clock.write_text(str(eng.settings.held_hours * 3600 + 1))
    assert eng.held_pages() == []
    assert eng.audit.tail(1)[0]["by"] == "expiry"
    assert not any((eng.data_dir / "held").iterdir())
    assert WORD.encode() not in raw_bytes(eng)


def test_not_asked_an_unsure_page_is_not_recorded(eng):
    eng.settings = dataclasses.replace(eng.settings, hold_unsure=False)
    res = eng.index_page(PAGE).to_dict()
    assert res["status"] == "skipped" and eng.holding().count() == 0
    # a file from `rewind index` is never held either: nobody is there to be asked
    eng.settings = dataclasses.replace(eng.settings, hold_unsure=True)
    assert eng.index_page(dataclasses.replace(PAGE, source="file")).status == "skipped"


def test_a_category_switched_off_is_recorded(eng):
    payslip = PageInput("https://lohn.example/abrechnung", "Entgeltabrechnung Oktober",
                        [PassageInput("Bruttobezüge 3.850,00 € · Lohnsteuer 512,33 € · "
                                      "Nettoentgelt 2.514,66 €", 1)], visited_at=1.7e9)
    unsure(eng, hold=0.0, refuse=0.0)  # refused, were it not switched off
    res = eng.index_page(payslip).to_dict()
    assert (res["status"], res["category"]) == ("skipped", "payroll")
    eng.set_rules({"disabled_categories": ["payroll"]})
    unsure(eng, hold=0.0, refuse=0.0)
    assert eng.index_page(payslip).status == "new"
