"""The MCP server reads while the browser's host writes to the same profile (real processes:
`rewind serve` started as Chrome starts it, `rewind mcp` through the SDK's stdio client,
the real model, one encrypted store): every write is kept, every read answers, and a read
never waits for the write lock (SQLite WAL; the MCP server never takes the lock)."""

from __future__ import annotations

import threading
import time

import filelock
from rewind.config import Settings
from rewind.mcp.access import AccessBook
from support.host_process import HostProcess
from support.mcp_session import McpSession

N = 40  # pages the host writes, pipelined


def page(i: int) -> dict:
    return {"url": f"https://reading.example/article/{i}", "title": f"Article {i}",
            "passages": [{"text": f"Article {i} is about topicmcp{i}, with a few more plain "
                          "words so that it makes a passage worth keeping.", "position": 0}],
            "visited_at": time.time() - 60, "dwell_s": 30.0}


def test_the_mcp_server_reads_while_the_browsers_host_writes(tmp_path, model_dir):
    data = tmp_path / "data"
    host = HostProcess(tmp_path, data_dir=data, model_dir=model_dir)
    try:
        host.hello()  # the browser's host opens (creates) the profile
        host.ok("index_page", page=page(0))
        AccessBook.load(data).set("claude-desktop", {"enabled": True, "window_days": 1})
        with McpSession(data, model_dir, errlog=tmp_path / "mcp-stderr.txt") as mcp:
            calls: list[tuple[float, float, bool]] = []  # (start, end, is_error)
            stop = threading.Event()

            def read() -> None:
                i = 0
                while not stop.is_set():
                    t = time.monotonic()
                    tool, args = [("search_history", {"query": f"article topicmcp{i % N}"}),
                                  ("recent_pages", {"since": "1d", "limit": 100}),
                                  ("build_context", {"query": "plain words",
                                                     "token_budget": 300})][i % 3]
                    r = mcp.call(tool, **args)
                    calls.append((t, time.monotonic(), r.is_error))
                    i += 1

            reader = threading.Thread(target=read)
            reader.start()
            sent = [host.send("index_page", page=page(i)) for i in range(1, N)]
            acked = []
            for rid in sent:
                [reply] = host.replies(rid, timeout=300)
                assert reply["ok"] and reply["result"]["status"] == "new", reply
                acked.append(time.monotonic())
            while len(calls) < 3 or calls[-1][0] < acked[-1]:  # a read after the last write
                time.sleep(0.05)
            stop.set()
            reader.join(120)

            assert calls and not any(err for _s, _e, err in calls)
            during = [c for c in calls if c[1] < acked[-1]]
            assert len(during) >= 3, "the reads did not overlap the writes"

            # nothing lost: every page the host kept, the server sees
            listed = mcp.call("recent_pages", since="1d", limit=100).structured_content
            assert {p["url"] for p in listed["pages"]} == {page(i)["url"] for i in range(N)}
            missing = set(range(N))
            deadline = time.monotonic() + 60  # the text index may trail the store briefly
            while missing and time.monotonic() < deadline:
                for i in sorted(missing):
                    r = mcp.call("search_history", query=f"topicmcp{i}", mode="keyword")
                    if page(i)["url"] in [x["url"] for x in r.structured_content["results"]]:
                        missing.discard(i)
            assert not missing

            # a read never waits for the write lock: held here as a writer holds it
            lock = filelock.FileLock(str(data / "write.lock"))
            with lock.acquire(timeout=30):
                t = time.monotonic()
                r = mcp.call("search_history", query="topicmcp7")
                held = time.monotonic() - t
            assert not r.is_error
            assert held < Settings().writer_lock_timeout_s  # a waiting reader would time out
        assert host.ok("stats")["stats"]["pages"] == N
    finally:
        host.stop()
