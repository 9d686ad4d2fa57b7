"""Black-box tests of the real host process over stdio, as a browser drives it.

Every test starts `.venv/bin/python -m rewind serve chrome-extension://<ID>/` on a
temporary data dir, writes frames to its stdin and reads frames from its stdout.
Every frame read is checked against the 1 MiB limit a browser enforces. Without a
model dir the host searches by keyword; `test_semantic_search_through_the_host` uses
the real MiniLM model.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import time

import pytest
from rewind.native import requests
from support.host_process import MIB, ORIGIN, ROOT, HostProcess, frame_bytes

EXIT_S = 1.0  # the host must be gone this long after EOF


@pytest.fixture
def start(tmp_path):
    hosts: list[HostProcess] = []

    def _start(**kwargs) -> HostProcess:
        h = HostProcess(tmp_path, **kwargs)
        hosts.append(h)
        return h

    yield _start
    for h in hosts:
        h.stop()


def page(i: int, words: str = "", n: int = 3, size: int = 0, visited: float = 1.7e9) -> dict:
    body = f"passage number {{}} of page {i} about {words} and graph index pruning " + "filler " * (
        size // 7
    )
    return {
        "url": f"https://site{i % 3}.example/p/{i}",
        "title": f"Page {i} {words}",
        "passages": [{"text": body.format(j), "position": j, "quality": 0.6} for j in range(n)],
        "content_hash": f"h{i}",
        "visited_at": visited + i,
        "dwell_s": 30.0,
    }


# ---- handshake and every request type -----------------------------------------------------


def test_hello_reply(start):
    h = start()
    r = h.hello("work")
    assert r["protocol_version"] == requests.PROTOCOL_VERSION
    assert r["host_version"] and r["profile"] == "work"
    assert {m["name"] for m in r["models"]} >= {"all-minilm-l6-v2-int8"}
    assert r["stats"]["pages"] == 0
    assert r["limits"] == {"max_request_bytes": 8 * MIB, "max_reply_frame_bytes": MIB}
    # The same profile again is fine; another profile on this connection is not.
    assert h.hello("work")["ok"]
    other = h.call("hello", profile="home")
    assert other["ok"] is False and other["error"]["code"] == "bad_request"


def test_list_profiles_answers_before_hello_and_page_info_after(start):
    h = start()
    # The extension asks which stores exist before it says which profile it is.
    r = h.ok("list_profiles")
    assert r["profiles"] == [] and r["forced_data_dir"] == str(h.data_dir)
    assert not (h.data_dir / "rewind.db").exists(), "list_profiles created a store"
    r = h.hello()
    assert r["capture"]["max_passages_per_page"] == 30
    assert h.ok("page_info", url=page(1)["url"])["page"] is None
    h.ok("index_page", page=page(1, "hnsw"))
    info = h.ok("page_info", url=page(1)["url"] + "#frag")["page"]
    assert info["url"] == page(1)["url"] and info["visit_count"] == 1


def test_requests_before_hello_are_refused(start):
    h = start()
    r = h.call("stats")
    assert r["ok"] is False and r["error"]["code"] == "bad_request"
    assert "hello" in r["error"]["message"]
    h.hello()
    assert h.ok("stats")["stats"]["pages"] == 0


def test_every_request_type(start, tmp_path):
    h = start()
    h.hello()
    r = h.ok("index_page", page=page(1, "hnsw"))
    assert r["result"]["status"] == "new" and r["result"]["passages"] == 3
    assert h.ok("index_page", page=page(1, "hnsw"))["result"]["status"] == "unchanged"
    h.ok("index_page", page=page(2, "ivf"))
    h.ok(
        "index_page",
        page={
            "url": "https://x.example/t",
            "title": "Plain",
            "text": "A page sent as plain text, chunked by the host itself.",
        },
    )
    assert h.ok("record_visit", url=page(1)["url"], visited_at=1.8e9, dwell_s=5)["known"]
    assert h.ok("record_visit", url="https://never.example/", dwell_s=5)["known"] is False

    r = h.ok("search", query="hnsw", mode="keyword", limit=5)
    assert r["results"][0]["url"] == page(1)["url"]
    hit = r["results"][0]
    for key in (
        "url",
        "title",
        "score",
        "confidence",
        "snippet",
        "highlights",
        "passage",
        "visited_at",
        "visit_count",
        "dwell_s",
    ):
        assert key in hit
    assert hit["visit_count"] == 2
    assert isinstance(r["took_ms"], float) and "notice" in r
    r = h.ok("search", query="hnsw")  # hybrid without a model: keyword, with a notice
    assert r["results"] and r["notice"]
    assert (
        h.ok("search", query="pruning", domain="site2.example")["results"][0]["url"]
        == page(2)["url"]
    )

    assert h.ok("stats")["stats"]["pages"] == 3
    first = h.ok("list_pages", offset=0, limit=2)
    assert len(first["pages"]) == 2 and first["next_offset"] == 2
    rest = h.ok("list_pages", offset=2, limit=2)
    assert len(rest["pages"]) == 1 and rest["next_offset"] is None

    exported = h.replies(h.send("export"))
    assert exported[-1]["done"] and exported[-1]["pages_total"] == 3
    urls = {p["url"] for f in exported for p in f["pages"]}
    assert page(1)["url"] in urls and all(f["ok"] for f in exported)

    s = h.ok("get_settings")
    assert s["settings"] == s["defaults"]
    s = h.ok("set_settings", settings={"rrf_alpha": 0.25, "default_limit": 1})
    assert s["settings"]["rrf_alpha"] == 0.25 and s["defaults"]["rrf_alpha"] != 0.25
    assert len(h.ok("search", query="pruning", mode="keyword")["results"]) == 1
    s = h.ok("set_settings", settings={"default_limit": None})
    assert s["settings"]["default_limit"] == s["defaults"]["default_limit"]

    assert h.ok("cancel", target_id=999)["found"] is False
    # No models in this data dir: ask streams an extractive answer, cited and checked.
    rid = h.send("ask", question="what about hnsw graph index pruning?")
    frames = h.replies(rid)
    *chunks, last = frames
    assert chunks and all(f["ok"] and not f["done"] and f["chunk"] for f in chunks)
    assert last["ok"] and last["done"] and last["model"] is None
    assert last["supported"] and "[Source 1]" in last["answer"], last
    assert last["sources"][0]["url"] == page(1)["url"]
    # only checked text streams: it adds up to the answer (no model: no draft)
    assert "".join(f["chunk"] for f in chunks).strip() == last["answer"] and not last["raw_answer"]
    assert {"retrieval_ms", "first_token_ms", "total_ms"} <= last["timings"].keys()
    built = h.ok("build_context", query="hnsw graph index pruning", token_budget=100)
    assert 0 < built["total_tokens"] <= 100 and built["items"]
    assert built["context"].startswith("[Source 1]")
    assert built["sources"][0]["url"] == page(1)["url"]

    assert h.ok("forget", url=page(2)["url"])["removed"] == 1
    assert h.ok("forget", domain="x.example")["removed"] == 1
    assert not h.ok("search", query="ivf", mode="keyword")["results"]
    assert h.ok("forget", since=0, until=1.6e9)["removed"] == 0
    refused = h.call("clear", confirm=False)
    assert refused["ok"] is False and refused["error"]["code"] == "bad_request"
    assert h.ok("clear", confirm=True)["removed"] == 1
    assert h.ok("stats")["stats"]["pages"] == 0

    h.close_stdin()
    assert h.wait_exit()[0] == 0
    # Settings persist in the profile; the log is in the data dir and holds no page text.
    h2 = start()
    h2.hello()
    assert h2.ok("get_settings")["settings"]["rrf_alpha"] == 0.25
    log = (h.data_dir / "host.log").read_text()
    assert "type=search" in log and "hnsw" not in log and "pruning" not in log


def test_engine_errors_come_back_as_codes(start):
    h = start()
    h.hello()
    r = h.call("index_page", page={"url": "javascript:alert(1)", "text": "some words here ok"})
    assert r["ok"] is False and r["error"]["code"] in ("bad_request", "bad_input")
    r = h.call("index_page", page={"url": "https://e.example/", "passages": []})
    assert r["ok"] is False and r["error"]["code"] == "bad_input"
    assert r["error"]["message"]


# ---- streaming and the 1 MiB limit --------------------------------------------------------


def long_text(i: int, chars: int) -> str:
    """Paragraphs of ~150 words, so the host's chunker makes many passages."""
    para = " ".join(f"w{i}x{j} bülk prüning tëxt" for j in range(30))  # 1.1 bytes/char
    return "\n\n".join([para] * (chars // (len(para) + 2)))


def test_5_mb_export_arrives_in_frames_of_at_most_1_mib(start):
    h = start()
    h.hello()
    n_pages = 5  # plain text chunked by the host: ~1.1 MB each, 5.5 MB in all
    for i in range(n_pages):
        h.send(
            "index_page",
            page={
                "url": f"https://long.example/{i}",
                "title": f"Long {i}",
                "text": long_text(i, 990_000),
                "visited_at": 1.7e9 + i,
            },
        )
    for req_id in range(2, 2 + n_pages):
        assert h.replies(req_id)[-1]["ok"]
    stored = h.ok("stats")["stats"]
    exported = h.replies(h.send("export"))
    sizes = h.sizes[-len(exported) :]
    assert sum(sizes) > 5_000_000
    assert len(exported) >= 6
    assert max(sizes) <= MIB
    assert [f["done"] for f in exported] == [False] * (len(exported) - 1) + [True]
    parts = [p for f in exported for p in f["pages"]]
    heads = [p for p in parts if not p.get("continued")]
    assert len(heads) == n_pages == exported[-1]["pages_total"]
    assert any(p.get("continued") for p in parts)  # a page over 1 MiB came in parts
    assert sum(len(p["passages"]) for p in parts) == stored["passages"]

    # A search whose results carry big passages stays under the limit as well.
    r = h.replies(h.send("search", query="bulk pruning", mode="keyword", limit=100))
    assert r[-1]["ok"] and max(h.sizes[-len(r) :]) <= MIB


def test_a_queued_request_can_be_cancelled(start):
    h = start()
    h.hello()
    for i in range(20):
        h.send("index_page", page=page(i, "bulk", n=30, size=2000))
    h.replies(h.send("stats"))
    # Two exports share the slow lane: the second waits, so cancelling it is certain.
    h.write(
        frame_bytes({"id": "e1", "type": "export"})
        + frame_bytes({"id": "e2", "type": "export"})
        + frame_bytes({"id": "c", "type": "cancel", "target_id": "e2"})
    )
    assert h.replies("c")[0]["found"] is True
    cancelled = h.replies("e2")
    assert cancelled[-1]["ok"] is False and cancelled[-1]["error"]["code"] == "cancelled"
    assert h.replies("e1")[-1]["ok"] is True


def test_a_search_is_not_blocked_by_queued_writes(start):
    h = start()
    h.hello()
    h.ok("index_page", page=page(0, "needle"))
    writes = [h.send("index_page", page=page(i, "bulk", n=30, size=2000)) for i in range(1, 25)]
    search = h.send("search", query="needle", mode="keyword")
    order = []
    while len(order) < len(writes) + 1:
        frame = h.next_frame()
        assert frame is not None
        order.append(frame["id"])
    assert order.index(search) < order.index(writes[-1])


# ---- malformed input ----------------------------------------------------------------------

MALFORMED = {
    "bad_json": (b"{not json", "bad_json"),
    "not_an_object": (b"[1, 2, 3]", "bad_json"),
    "invalid_utf8": (b'{"id": 9, "type": "\xff"}', "bad_json"),
    "zero_length": (b"", "bad_json"),
    "unknown_type": (b'{"id": 5, "type": "rm -rf"}', "unknown_type"),
    "wrong_field_type": (b'{"id": 6, "type": "search", "query": ["a"]}', "bad_request"),
    "missing_id": (b'{"type": "stats"}', "bad_request"),
    "deep_nesting": (b"[" * 50_000 + b"]" * 50_000, "bad_json"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_frames_get_an_error_and_the_host_goes_on(start, name):
    payload, code = MALFORMED[name]
    h = start()
    h.hello()
    h.write(struct.pack("=I", len(payload)) + payload)
    err = h.next_frame()
    assert err["ok"] is False and err["done"] is True and err["error"]["code"] == code
    assert err["error"]["message"]
    assert err["id"] == {"unknown_type": 5, "wrong_field_type": 6, "invalid_utf8": 9}.get(name)
    assert h.ok("stats")["stats"]["pages"] == 0  # still serving


def test_100_mb_declared_length_is_refused_then_eof_exits(start):
    h = start()
    h.hello()
    h.write(struct.pack("=I", 100 * 1024 * 1024) + b'{"id": 77, "type": "index_page"')
    err = h.next_frame()
    assert err["id"] == 77 and err["error"]["code"] == "too_large"
    h.close_stdin()
    code, took = h.wait_exit()
    assert code == 0 and took < EXIT_S


def test_an_oversized_frame_is_skipped_and_the_stream_stays_in_sync(start):
    h = start()
    h.hello()
    big = b'{"id": "big", "type": "index_page", "x": "' + b"a" * (9 * MIB) + b'"}'
    h.write(struct.pack("=I", len(big)) + big + frame_bytes({"id": "after", "type": "stats"}))
    err = h.replies("big")[0]
    assert err["error"]["code"] == "too_large" and "skipped" in err["error"]["message"]
    assert h.replies("after")[0]["ok"]


def test_truncated_frame_then_eof_exits_cleanly(start):
    h = start()
    h.hello()
    h.write(struct.pack("=I", 500) + b'{"id": 3, "type": "sta')
    h.close_stdin()
    code, took = h.wait_exit()
    assert code == 0 and took < EXIT_S
    err = h.next_frame()
    assert err["id"] == 3 and err["error"]["code"] == "bad_frame"
    assert h.next_frame() is None


def test_truncated_header_exits_cleanly(start):
    h = start()
    h.write(b"\x10\x00")
    h.close_stdin()
    assert h.wait_exit()[0] == 0


def test_duplicate_id_in_flight_is_refused(start):
    h = start()
    h.hello()
    for i in range(10):
        h.send("index_page", page=page(i, "bulk", n=30, size=2000))
    h.write(frame_bytes({"id": "same", "type": "export"}) * 2)
    frames = h.replies("same")
    if frames[-1]["ok"]:  # the first export ended; the second must have been refused
        frames = h.replies("same")
    assert any(f.get("error", {}).get("code") == "bad_request" for f in frames)


# ---- lifetime, origin, profiles -----------------------------------------------------------


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


# ---- the real model ---------------------------------------------------------------------------


def test_semantic_search_through_the_host(start, model_dir):
    h = start(model_dir=model_dir)
    hello = h.hello()
    assert hello["stats"]["embedder_ready"] is True
    h.ok(
        "index_page",
        page={
            "url": "https://blog.example/hnsw",
            "title": "Pruning neighbours in HNSW graphs",
            "passages": [
                {
                    "text": "HNSW keeps a small set of diverse neighbours for each node by "
                    "pruning candidates that are closer to an existing neighbour.",
                    "position": 1,
                    "quality": 0.8,
                }
            ],
            "visited_at": 1.7e9,
            "dwell_s": 120,
        },
    )
    h.ok(
        "index_page",
        page={
            "url": "https://news.example/markets",
            "title": "Stocks fell today",
            "passages": [
                {
                    "text": "The stock market fell sharply today as investors worried "
                    "about interest rates and inflation.",
                    "position": 1,
                    "quality": 0.8,
                }
            ],
            "visited_at": 1.7e9,
            "dwell_s": 60,
        },
    )
    r = h.ok("search", query="removing edges from a proximity graph index", mode="semantic")
    assert r["results"][0]["url"] == "https://blog.example/hnsw"
    h.close_stdin()
    code, took = h.wait_exit()
    assert code == 0 and took < EXIT_S


# ---- rewind send ------------------------------------------------------------------------------


def run_send(tmp_path, *args) -> subprocess.CompletedProcess:
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT / "host"),
        REWIND_ALLOWED_ORIGINS=ORIGIN,
        REWIND_DATA_DIR=str(tmp_path / "data"),
        REWIND_MODEL_DIR=str(tmp_path / "nm"),
    )
    return subprocess.run(
        [sys.executable, "-m", "rewind", "send", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_rewind_send_prints_every_reply_frame(tmp_path):
    r = run_send(tmp_path, '{"type": "stats"}', '{"type": "export"}')
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert sorted(x["id"] for x in lines) == ["send-0", "send-1", "send-2"]
    assert lines[0]["protocol_version"] == 1  # send starts with hello, like the extension
    assert all(x["ok"] and x["done"] for x in lines)
    r = run_send(tmp_path, '{"type": "search", "query": 1}')
    assert r.returncode == 1
    assert json.loads(r.stdout.splitlines()[-1])["error"]["code"] == "bad_request"


def test_rewind_send_raw_reproduces_a_bad_frame(tmp_path):
    raw = tmp_path / "bad.bin"
    raw.write_bytes(struct.pack("=I", 4) + b"{{{{" + struct.pack("=I", 100) + b"{")
    r = run_send(tmp_path, "--raw", str(raw))
    assert r.returncode == 1
    codes = [json.loads(line)["error"]["code"] for line in r.stdout.splitlines()]
    assert codes == ["bad_json", "bad_frame"]


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
