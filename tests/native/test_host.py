"""Black-box tests of the real host process over stdio, as a browser drives it: the
handshake and every request type.

Every test starts `.venv/bin/python -m rewind serve chrome-extension://<ID>/` on a
temporary data dir (the `start` fixture of tests/native/conftest.py), writes frames to its
stdin and reads frames from its stdout. Every frame read is checked against the 1 MiB limit
a browser enforces. Without a model dir the host searches by keyword;
`test_semantic_search_through_the_host` uses the real MiniLM model. The rest of the host's
behaviour over stdio: test_host_streaming.py (replies in frames, cancelling, queued work),
test_host_frames.py (malformed input), test_host_lifetime.py (EOF, origin, two hosts).
"""

from __future__ import annotations

from rewind.native import requests
from support.host_process import EXIT_S, MIB, page

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
