"""Two browser hosts and a CLI writer on one profile at once, with a CLI reader searching
meanwhile (real processes, the real model, a fresh encrypted store they all open
together): no corruption, no lost write, every reply a success."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

from support.host_process import HostProcess

N = 25  # pages each host sends, pipelined
FILES = 20  # files the CLI indexes meanwhile


def page(who: str, i: int) -> dict:
    return {"url": f"https://{who}.example/page/{i}", "title": f"{who} page {i}",
            "passages": [{"text": f"Page {i} from {who} tells about topic{who}{i} and a few "
                          "more ordinary words for the passage.", "position": 0}],
            "visited_at": 1.75e9 + i, "dwell_s": 20.0}


def cli(data, *args, env):
    return subprocess.run([sys.executable, "-m", "rewind", "--data-dir", str(data), *args],
                          capture_output=True, text=True, timeout=600, env=env)


def test_two_hosts_and_a_cli_writer(tmp_path, model_dir):
    data = tmp_path / "data"
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(FILES):
        (docs / f"note{i}.md").write_text(f"# Note {i}\n\nThe note number {i} is about "
                                          f"clitopic{i} and other plain words to index.\n")
    env = {**os.environ, "REWIND_MODEL_DIR": str(model_dir)}
    hosts = [HostProcess(tmp_path, data_dir=data, model_dir=model_dir) for _ in range(2)]
    try:
        for h in hosts:  # both open the fresh store at once (and agree on its one key)
            h.send("hello", protocol=1, profile="default", client="tests")
        for h in hosts:
            first = h.next_frame(timeout=120)
            assert first["ok"], first
        sent = {}
        for who, h in zip("ab", hosts, strict=True):
            sent[who] = [h.send("index_page", page=page(who, i)) for i in range(N)]
        writer = {}
        writer_thread = threading.Thread(
            target=lambda: writer.setdefault("out", cli(data, "index", str(docs), env=env)))
        writer_thread.start()
        searches = [cli(data, "search", "ordinary words", "--json", env=env) for _ in range(3)]
        for who, h in zip("ab", hosts, strict=True):
            for rid in sent[who]:
                [reply] = h.replies(rid, timeout=300)
                assert reply["ok"] and reply["result"]["status"] == "new", reply
        writer_thread.join(600)
        assert writer["out"].returncode == 0, writer["out"].stderr
        for s in searches:  # the reader never waited for a writer, nor failed
            assert s.returncode == 0, s.stderr
            json.loads(s.stdout)
        for h in hosts:  # each host sees the others' writes
            stats = h.ok("stats")["stats"]
            assert stats["pages"] == 2 * N + FILES
    finally:
        for h in hosts:
            h.stop()
    out = cli(data, "doctor", "--json", env={**env, "HOME": str(tmp_path / "home")})
    checks = {c["name"]: c for c in json.loads(out.stdout)["checks"]}
    for name in ("store", "text index", "vectors"):
        assert checks[name]["ok"], checks[name]
    from rewind.profile.engine import Rewind
    from rewind.search import SearchQuery

    with Rewind.open(data, writer=False, model_dir=model_dir) as eng:
        urls = {p["url"] for p in eng.list_pages(0, 500)}
        want = {page(w, i)["url"] for w in "ab" for i in range(N)}
        assert want <= urls and len(urls) == 2 * N + FILES
        for term in ("topica3", "topicb17", "clitopic11"):
            assert eng.search(SearchQuery(term, mode="keyword")).results, term
