"""The audit log (audit.py) and what the engine writes to it: events, no page text,
rotation, and forgetting that takes the forgotten pages' lines with it."""

import json

import pytest
from rewind.capture.ingest import PageInput, PassageInput
from rewind.profile.audit import AuditLog


def test_append_tail_rotate_and_drop(tmp_path):
    log = AuditLog(tmp_path, max_bytes=300)
    for i in range(20):
        log.write("indexed", url=f"https://a.example/{i}", passages=3)
    files = log.files()
    assert len(files) == 3  # the file and its two backups; older lines were dropped
    assert all(f.stat().st_size <= 300 + 100 for f in files)
    tail = log.tail(5)
    assert [e["url"] for e in tail] == [f"https://a.example/{i}" for i in range(15, 20)]
    assert log.drop(lambda e: e.get("url") == "https://a.example/19") == 1
    assert "https://a.example/19" not in {e["url"] for e in log.entries()}
    with pytest.raises(ValueError):
        log.write("read a secret")


def test_drop_within_reads_only_lines_that_hold_a_needle_and_finds_escaped_ones(tmp_path):
    log = AuditLog(tmp_path)
    odd = 'https://b.example/caf\u00e9?q="x"'  # a quote JSON escapes, a letter it keeps
    for url in ["https://a.example/1", odd, "https://a.example/10"]:
        log.write("indexed", url=url, passages=1)
    log.write("skipped", site="shop.b.example", category="payments")
    read = []

    def forgotten(entry):
        read.append(entry)
        return entry.get("url") in {odd, "https://a.example/1"} or entry.get("site") == "x"

    assert log.drop(forgotten, within=[odd, "https://a.example/1"]) == 3 - 1
    # a.example/10 holds a.example/1 and is read (and kept); the skipped line is not read
    assert [e.get("url") for e in read] == ["https://a.example/1", odd, "https://a.example/10"]
    assert [e.get("url") for e in log.entries()] == ["https://a.example/10", None]
    assert log.drop(lambda e: e.get("site") == "shop.b.example", within=["b.example"]) == 1
    assert [e.get("url") for e in log.entries()] == ["https://a.example/10"]


def test_engine_events_never_hold_page_text(fake_engine):
    eng = fake_engine
    words = "The quince marmalade recipe needs patience and a copper pan to set well."
    eng.index_page(PageInput("https://jam.example/quince", "Quince marmalade",
                             [PassageInput(words)]))
    eng.index_page(PageInput("https://www.paypal.com/myaccount/summary", "Summary",
                             [PassageInput(words)]))
    eng.forget_url("https://jam.example/quince")
    raw = "".join(f.read_text() for f in eng.audit.files())
    assert "quince" not in raw.lower().replace("https://jam.example/quince", "")
    assert "marmalade" not in raw.lower() and "copper" not in raw
    events = [json.loads(line) for line in raw.splitlines()]
    kinds = [e["event"] for e in events]
    assert "skipped" in kinds and kinds[-1] == "forgotten"
    skipped = next(e for e in events if e["event"] == "skipped")
    assert skipped["site"] == "paypal.com" and "url" not in skipped  # the site, not the URL
    # the forgotten page's "indexed" line went with it
    assert not any(e.get("url") == "https://jam.example/quince" for e in events)
    assert events[-1] == {**events[-1], "kind": "page", "pages": 1}


def test_forget_everything_leaves_no_page_in_the_log(fake_engine):
    for i in range(3):
        fake_engine.index_page(PageInput(f"https://s{i}.example/", f"Page {i}", [PassageInput(
            f"Page {i} has some words about gardens and quiet afternoons in the sun.")]))
    fake_engine.clear()
    entries = list(fake_engine.audit.entries())
    assert not any("url" in e or "site" in e for e in entries)
    assert entries[-1]["event"] == "forgotten" and entries[-1]["pages"] == 3
