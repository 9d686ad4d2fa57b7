"""Forget, backup and import through the real host process, as the extension drives them
(native/backups.py and the forget handler), checked through search via the host and by
reading each store directly: SQLite, tantivy, the vectors and the audit log."""

from __future__ import annotations

import base64

import pytest
from rewind.index.derived import vector_file
from rewind.profile.engine import Rewind
from support.host_process import HostProcess

TOPICS = ["lichen on granite boulders", "copper kettle polishing", "kestrel hovering flight",
          "sourdough crumb structure", "tidal pools at low water", "violin bow rehair"]


def page(i: int, site: str, visited: float) -> dict:
    topic = TOPICS[i % len(TOPICS)]
    return {"url": f"https://{site}/notes/{i}", "title": f"Notes on {topic}",
            "passages": [{"text": f"These notes on {topic} describe what I saw, step by "
                          f"step, in page {i} of my reading.", "position": 0},
                         {"text": f"More about {topic}: the second passage adds detail "
                          "and a few words of its own.", "position": 1}],
            "visited_at": visited, "dwell_s": 40.0}


@pytest.fixture
def host(tmp_path, model_dir):
    h = HostProcess(tmp_path, model_dir=model_dir)
    h.hello()
    pages = [page(0, "a.example", 1.7e9), page(1, "a.example", 1.7e9 + 10),
             page(2, "blog.b.example", 1.7e9 + 20), page(3, "c.example", 1.8e9),
             page(4, "c.example", 1.8e9 + 5), page(5, "d.example", 1.9e9)]
    for p in pages:
        assert h.ok("index_page", page=p)["result"]["status"] == "new"
    yield h
    h.stop()


def urls_found(h: HostProcess, query: str) -> set[str]:
    frames = h.replies(h.send("search", query=query, limit=50))
    return {r["url"] for f in frames for r in f.get("results", [])}


def stores(data_dir, model_dir) -> dict:
    """What each store holds, read directly (a reader of the same data directory)."""
    with Rewind.open(data_dir, writer=False, model_dir=model_dir) as eng:
        text = eng.text_index_state()
        vec = eng.vector_state()
        urls = {p["url"] for p in eng.list_pages(0, 100)}
        passages = eng.reader().passages_by_ids(text.stored)
        page_of = {pid: page_id for pid, (page_id, _p) in passages.items()}
        pages = eng.reader().pages_by_ids(set(page_of.values()))
        on_disk = set()  # pages with rows in the vector snapshots (a forget zeroes them)
        for f in (data_dir / vector_file.DIRECTORY).glob("*.rvec"):
            snap = vector_file.load(f, eng.cipher)  # sealed: the store's key opens them
            held = snap.int8.any(axis=1) | snap.codes.any(axis=0)
            on_disk |= set(snap.page_ids[held].tolist())
        return {"urls": urls, "text_index": {pages[page_of[p]].url for p in text.indexed},
                "vectors": {pages[page_of[p]].url for p in vec.vector_ids},
                "audit": {e.get("url") for e in eng.audit.entries()} - {None},
                "text_in_sync": text.indexed == text.stored and text.applied == text.seq,
                "snapshot": {pages[i].url if i in pages else i for i in on_disk}}


def test_forget_at_every_level(host, model_dir):
    h = host
    everything = {f"https://a.example/notes/{i}" for i in (0, 1)} | {
        "https://blog.b.example/notes/2", "https://c.example/notes/3",
        "https://c.example/notes/4", "https://d.example/notes/5"}
    assert urls_found(h, "notes") == everything  # a search writes the vector snapshot
    before = stores(h.data_dir, model_dir)
    assert before["vectors"] == before["snapshot"] == everything
    steps = [({"url": "https://a.example/notes/0#frag"}, {"https://a.example/notes/0"}),
             ({"domain": "b.example"}, {"https://blog.b.example/notes/2"}),
             ({"since": 1.8e9, "until": 1.85e9}, {"https://c.example/notes/3",
                                                  "https://c.example/notes/4"})]
    left = set(everything)
    for fields, gone in steps:
        assert h.ok("forget", **fields)["removed"] == len(gone)
        left -= gone
        for u in gone:  # search through the host no longer finds them, by any word
            i = int(u.rsplit("/", 1)[1])
            assert not urls_found(h, TOPICS[i]) & gone
            assert not urls_found(h, f"page {i} of my reading") & gone
        s = stores(h.data_dir, model_dir)
        assert s["urls"] == s["text_index"] == s["vectors"] == s["snapshot"] == left, (fields, s)
        assert s["audit"] <= left and s["text_in_sync"]
    assert h.ok("clear", confirm=True)["removed"] == len(left)
    s = stores(h.data_dir, model_dir)
    assert s["urls"] == s["text_index"] == s["vectors"] == s["audit"] == s["snapshot"] == set()
    assert not urls_found(h, "notes")


def test_backup_through_the_host_and_import_in_pieces(host, model_dir, tmp_path):
    h = host
    before = {q: urls_found(h, q) for q in TOPICS}
    frames = h.replies(h.send("backup", passphrase="pass phrase"), timeout=120)
    data = b"".join(base64.b64decode(f["data"]) for f in frames)
    assert frames[-1]["pages"] == 6 and frames[-1]["bytes"] == len(data)
    assert data.startswith(b"REWINDBK") and b"kettle" not in data
    assert h.ok("clear", confirm=True)["removed"] == 6
    piece = 4096  # many pieces: the paging is exercised
    for off in range(0, len(data), piece):
        r = h.ok("import_chunk", upload="up1", offset=off,
                 data=base64.b64encode(data[off:off + piece]).decode())
        assert r["received"] == min(len(data), off + piece)
    bad = h.call("import_chunk", upload="up1", offset=5, data="AAAA")
    assert bad["error"]["code"] == "bad_request" and "offset" in bad["error"]["message"]
    wrong = h.replies(h.send("import_backup", upload="up1", passphrase="nope"))
    assert wrong[-1]["error"]["code"] == "bad_input"
    assert not (h.data_dir / "uploads" / "up1.part").exists()  # deleted whatever happened
    for off in range(0, len(data), 1 << 20):
        h.ok("import_chunk", upload="up2", offset=off,
             data=base64.b64encode(data[off:off + (1 << 20)]).decode())
    done = h.replies(h.send("import_backup", upload="up2", passphrase="pass phrase"),
                     timeout=120)
    assert done[-1]["result"]["new"] == 6 and done[-1]["result"]["embedded"] == 0
    assert {q: urls_found(h, q) for q in TOPICS} == before
    assert not list((h.data_dir / "uploads").glob("*"))


def test_hello_says_when_the_key_is_lost(tmp_path, model_dir):
    """The host cannot open an encrypted store without its key: it says so, where it
    looked, and offers `rewind reset`; the store is left as it was."""
    import json

    from rewind.index.crypto import keys

    h = HostProcess(tmp_path, model_dir=model_dir)
    h.hello()
    h.ok("index_page", page=page(0, "a.example", 1.7e9))
    h.close_stdin()
    h.wait_exit()
    h.stop()
    with Rewind.open(h.data_dir, writer=False, model_dir=model_dir) as eng:
        key_id = json.loads(eng.reader().get_meta("encryption"))["key_id"]
    keys.delete(key_id)
    before = (h.data_dir / "rewind.db").read_bytes()
    again = HostProcess(tmp_path, data_dir=h.data_dir, model_dir=model_dir)
    try:
        reply = again.call("hello", protocol=1, profile="default")
        assert reply["ok"] is False and reply["error"]["code"] == "key_missing"
        assert "rewind reset" in reply["error"]["message"]
        assert "encrypted" in reply["error"]["message"]
    finally:
        again.stop()
    assert (h.data_dir / "rewind.db").read_bytes() == before
