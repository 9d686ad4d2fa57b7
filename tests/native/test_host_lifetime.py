"""The real host's lifetime: it exits within a second of EOF (work in flight included),
refuses a wrong origin before opening anything, shares a profile with a second host, and
dies at the index_page fault point the browser tests use."""

from __future__ import annotations

import time

import pytest
from support.host_process import EXIT_S, ORIGIN, HostProcess, page


def test_eof_exits_within_a_second(start):
    h = start()
    h.hello()
    h.ok("index_page", page=page(1))
    h.close_stdin()
    code, took = h.wait_exit()
    assert code == 0 and took < EXIT_S


def test_eof_with_work_in_flight_still_exits_within_a_second(start):
    h = start()
    h.hello()
    for i in range(40):
        h.send("index_page", page=page(i, "bulk", n=30, size=2000))
    h.send("export")
    h.close_stdin()
    code, took = h.wait_exit()
    assert code == 0 and took < EXIT_S
    # Whatever was committed is there, and the store opens and answers again.
    again = start()
    committed = again.hello()["stats"]["pages"]
    assert 0 < committed <= 40
    assert len(again.ok("list_pages", limit=50)["pages"]) == committed
    assert again.ok("search", query="bulk", mode="keyword")["results"]


@pytest.mark.parametrize(
    "origin",
    [
        "chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/",
        "",
        "https://evil.example/",
        ORIGIN.rstrip("/"),
    ],
)
def test_wrong_origin_is_refused(start, origin):
    h = start(origin=origin)
    code, _ = h.wait_exit()
    assert code == 1
    err = h.next_frame()
    assert err["ok"] is False and err["error"]["code"] == "forbidden"
    assert h.next_frame() is None
    assert not (h.data_dir / "rewind.db").exists()  # nothing was opened


def _eventually(check, seconds: float = 15.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.25)
    return True


def test_two_hosts_on_one_profile_take_turns(start, tmp_path):
    data = tmp_path / "shared"
    a, b = start(data_dir=data), start(data_dir=data)
    a.hello()
    b.hello()
    ids_a = [a.send("index_page", page=page(i, "alpha")) for i in range(0, 20, 2)]
    ids_b = [b.send("index_page", page=page(i, "beta")) for i in range(1, 20, 2)]
    assert all(a.replies(i)[-1]["ok"] for i in ids_a)
    assert all(b.replies(i)[-1]["ok"] for i in ids_b)
    # Each host sees the other's pages, and a forget on one is seen by the other. The store
    # at once; the keyword index once the host holding tantivy's writer lets it go
    # (text_index.IDLE_RELEASE_S) and the other catches up: within seconds.
    assert a.ok("stats")["stats"]["pages"] == b.ok("stats")["stats"]["pages"] == 20

    def found(h: HostProcess, words: str) -> set[str]:
        return {r["url"] for r in h.ok("search", query=words, mode="keyword", limit=20)["results"]}

    alpha = {page(i)["url"] for i in range(0, 20, 2)}
    assert _eventually(lambda: found(b, "alpha") == alpha), found(b, "alpha")
    assert a.ok("forget", url=page(1)["url"])["removed"] == 1
    assert _eventually(lambda: page(1)["url"] not in found(b, "beta"))
    for h in (a, b):
        h.close_stdin()
        assert h.wait_exit()[0] == 0
    c = start(data_dir=data)
    c.hello()
    assert c.ok("stats")["stats"]["pages"] == 19


def test_the_index_page_fault_point_kills_the_host_for_one_page_only(tmp_path, monkeypatch):
    """The browser test's crashing page: REWIND_FAULT=index_page with a URL match."""
    monkeypatch.setenv("REWIND_FAULT", "index_page")
    monkeypatch.setenv("REWIND_FAULT_MATCH", "crash-me")
    h = HostProcess(tmp_path)
    try:
        h.hello()
        assert h.ok("index_page", page=page(1, "fine"))["result"]["status"] == "new"
        h.send("index_page", page={**page(2), "url": "https://a.example/crash-me"})
        code, _ = h.wait_exit()
        assert code == -9
    finally:
        h.stop()
