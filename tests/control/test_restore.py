"""Backup, forget, import with the real engine and model (control/dump.py, restore.py):
the same ranked results afterwards, idempotent imports, merged visits, the capture gate on
the way in, and damaged files refused with the store untouched."""

import json

import pytest
from rewind.capture.ingest import PageInput, PassageInput
from rewind.config import Settings
from rewind.control import dump, restore
from rewind.errors import RewindError
from rewind.profile.engine import Rewind
from rewind.search import SearchQuery
from support.answer_fixtures import index_pages

QUERIES = ["how often do I feed a sourdough starter", "tram 28 Lisbon seat",
           "pruning rule keeps diverse edges", "borrow checker", "hooch", "queue longer",
           "graph layers neighbours", "Campo de Ourique"]


def ranked(eng: Rewind) -> list:
    out = []
    for q in QUERIES:
        for mode in ("hybrid", "keyword", "semantic"):
            out.append([(h.url, round(h.score, 5), h.snippet)
                        for h in eng.search(SearchQuery(q, mode=mode)).results])
    return out


def write_backup(eng: Rewind, path, passphrase=None) -> None:
    path.write_bytes(b"".join(dump.backup_bytes(eng, passphrase)))


def state(eng: Rewind) -> tuple:
    store = eng.reader()
    return (store.seq(), [p["url"] for p in eng.list_pages(0, 500)],
            store.counts())


@pytest.fixture
def eng(tmp_path, embedder, model_dir):
    e = Rewind.open(tmp_path / "data", Settings(), embedder=embedder, model_dir=model_dir)
    index_pages(e)
    yield e
    e.close()


def test_backup_forget_all_import_gives_the_same_results(eng, tmp_path):
    before = ranked(eng)
    visits = {p["url"]: p for p in eng.list_pages(0, 100)}
    write_backup(eng, tmp_path / "b.rwb", "a passphrase")
    eng.clear()
    assert all(not r for r in ranked(eng))
    result = restore.restore(eng, tmp_path / "b.rwb", "a passphrase")
    assert result.new == len(visits) and result.embedded == 0  # vectors were reused
    assert ranked(eng) == before
    for p in eng.list_pages(0, 100):
        v = visits[p["url"]]
        assert (p["first_visit"], p["last_visit"], p["visit_count"], p["dwell_s"]) == \
            (v["first_visit"], v["last_visit"], v["visit_count"], v["dwell_s"])
    # importing again changes nothing: not a row, not the change sequence
    seq = state(eng)
    again = restore.restore(eng, tmp_path / "b.rwb", "a passphrase")
    assert again.unchanged == len(visits) and again.new == again.merged == 0
    assert state(eng) == seq


def test_portable_export_is_embedded_again(eng, tmp_path):
    before = ranked(eng)
    with open(tmp_path / "e.json", "w") as fh:
        dump.export_json(eng, fh)
    assert "vector" not in (tmp_path / "e.json").read_text()
    eng.clear()
    result = restore.restore(eng, tmp_path / "e.json")
    assert result.kind == "export" and result.embedded == result.new > 0
    assert [[u for u, _s, _t in r] for r in ranked(eng)] == \
        [[u for u, _s, _t in r] for r in before]


def test_visits_merge_and_newer_text_wins(eng, tmp_path):
    write_backup(eng, tmp_path / "b.rwb")
    url = "https://bakery.example/sourdough-starter"
    old = eng.page_info(url)
    eng.record_visit(url, old["last_visit"] + 86400, 30)  # visited again after the backup
    now = eng.page_info(url)
    restore.restore(eng, tmp_path / "b.rwb")
    merged = eng.page_info(url)
    assert merged["visit_count"] == now["visit_count"] == old["visit_count"] + 1
    assert merged["last_visit"] == now["last_visit"]
    # another computer's older backup does not replace newer text here
    eng.index_page(PageInput(url, "Sourdough, revised", [PassageInput(
        "A revised note on keeping a starter: feed it twice a day in warm weather.")],
        visited_at=now["last_visit"] + 10))
    restore.restore(eng, tmp_path / "b.rwb")
    assert eng.page_info(url)["title"] == "Sourdough, revised"


def test_the_capture_gate_applies_to_imports(eng, tmp_path):
    eng.index_page(PageInput("https://notes.example/private-diary", "My diary", [PassageInput(
        "Today I wrote about the garden and the weather and the neighbours' cat.")]))
    write_backup(eng, tmp_path / "b.rwb")
    eng.clear()
    eng.set_rules({"blocklist": ["private-diary"]})
    result = restore.restore(eng, tmp_path / "b.rwb")
    assert result.skipped == 1
    assert eng.page_info("https://notes.example/private-diary") is None
    assert any(e["event"] == "skipped" and e["site"] == "notes.example"
               for e in eng.audit.entries())


def test_masking_applies_and_forces_new_vectors(tmp_path, embedder, model_dir):
    plain = Rewind.open(tmp_path / "a", Settings(), embedder=embedder, model_dir=model_dir)
    plain.set_rules({}, redact=False)
    plain.index_page(PageInput("https://club.example/members", "Members", [PassageInput(
        "Write to the secretary at jane.doe@example.org about the rowing club's Sunday "
        "outings on the river.")]))
    write_backup(plain, tmp_path / "b.rwb")
    plain.close()
    with Rewind.open(tmp_path / "b", Settings(), embedder=embedder,
                     model_dir=model_dir) as eng:
        result = restore.restore(eng, tmp_path / "b.rwb")
        assert result.new == 1 and result.embedded == 1
        hit = eng.search(SearchQuery("rowing club secretary")).results[0]
        assert "jane.doe" not in hit.passage and "[email]" in hit.passage


def test_damaged_or_cut_backups_change_nothing(eng, tmp_path):
    write_backup(eng, tmp_path / "b.rwb")
    data = (tmp_path / "b.rwb").read_bytes()
    eng.clear()
    seq = state(eng)
    damaged = bytearray(data)
    damaged[len(data) * 2 // 3] ^= 1
    for name, content in [("cut.rwb", data[: len(data) - 100]), ("bad.rwb", bytes(damaged)),
                          ("foreign.rwb", b"\x89PNG\r\n" + data[8:]),
                          ("cut.json", b'{"format": "rewind-export", "version": 1, "pages": [')]:
        (tmp_path / name).write_bytes(content)
        with pytest.raises(RewindError):
            restore.restore(eng, tmp_path / name)
        assert state(eng) == seq, name


def test_settings_come_with_a_backup_to_a_new_profile(eng, tmp_path, embedder, model_dir):
    from rewind.profile import settings as profile_settings

    profile_settings.update(Settings(), eng.data_dir, {"default_limit": 7})
    eng.set_rules({"paused_sites": ["news.example"]}, redact=True)
    write_backup(eng, tmp_path / "b.rwb")
    with Rewind.open(tmp_path / "new", Settings(), embedder=embedder,
                     model_dir=model_dir) as fresh:
        assert restore.restore(fresh, tmp_path / "b.rwb").settings
        assert profile_settings.load(fresh.data_dir) == {"default_limit": 7}
        rules = json.loads((fresh.data_dir / "capture_rules.json").read_text())
        assert rules["rules"]["paused_sites"] == ["news.example"]
