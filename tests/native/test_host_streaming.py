"""The real host over stdio: replies stream in frames of at most 1 MiB, a queued request
can be cancelled, and a search is not held up behind queued writes."""

from __future__ import annotations

from support.host_process import MIB, frame_bytes, page


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
