"""The crash benchmark through `rewind serve`: fuzzed frames, and SIGKILLs across ingest,
re-embedding, history import and forget (bench/perf/crash.py runs it).

Job: start the real host as a browser does (`rewind serve` over pipes, an encrypted store,
the real model) and, round after round on the same store: send it `--frames`/`--kills`
fuzzed frames (random bytes, JSON that is not an object, envelopes with missing or wrong
ids and types, known requests with fields of the wrong type, range or name, mutated valid
requests, lone surrogates, deep nesting, now and then a frame over the 8 MiB limit) and
count one final reply for each with the host alive; then drive one kind of work — pages
(`index_page`), re-embedding (`reindex start`, the job running on the host's thread),
history imports (`import_history`, 200 visits a request) or forgets (`forget`), the kinds
in turn — and SIGKILL the host at a moment drawn uniformly from that kind's window. The
store is then opened as the next writer would (recovering) and checked: SQLite integrity,
the text index against the store, no vector of a passage that is gone, every page whose
write had been answered there, every page whose forget had been answered gone, and a
killed import all there or all missing (one write). At the end a host runs until the
vectors have caught up, and every passage must have one. Seeded: the same run each time.
Never: touch anything outside its temporary folder, or send a request that destroys
what it does not track (fuzzed frames never name forget, clear, settings or backups).
"""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from rewind import config
from rewind.checks import profile_checks
from rewind.profile.engine import Rewind

ORIGIN = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/"  # the bench's own caller
ROOT = Path(__file__).resolve().parents[2]
KINDS = ("ingest", "reembed", "import", "forget")
# Seconds after a kind's work begins in which its kill is drawn (uniformly).
# Wide enough that answers come back before most kills on a loaded 2-core machine, where a
# page takes ~1 s and a forget waits behind the vectors being filled in.
WINDOW_S = {"ingest": 3.0, "reembed": 3.0, "import": 3.0, "forget": 4.0}
SAFE_TYPES = ("search", "stats", "page_info", "list_pages", "get_settings", "index_page",
              "list_profiles", "hello", "answer_models", "list_held")
MODEL = "all-minilm-l6-v2-int8"
DIMS = (384, 256, 128)


class Serve:
    """One `rewind serve` process over pipes; final replies by id, and a count of them."""

    def __init__(self, data_dir: Path, model_dir: Path) -> None:
        env = dict(os.environ, REWIND_DATA_DIR=str(data_dir), REWIND_MODEL_DIR=str(model_dir),
                   REWIND_ALLOWED_ORIGINS=ORIGIN, PYTHONPATH=str(ROOT / "host"))
        self.proc = subprocess.Popen([sys.executable, "-m", "rewind", "serve", ORIGIN],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.cond = threading.Condition()
        self.replies: dict[str, dict] = {}
        self.finals = 0  # frames with done: true, whatever their id
        self.codes: dict[str, int] = {}
        self.eof = False
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            header = out.read(4)
            if len(header) < 4:
                break
            (n,) = struct.unpack("=I", header)
            reply = json.loads(out.read(n))
            if not reply.get("done"):
                continue
            with self.cond:
                self.finals += 1
                if not reply.get("ok"):
                    code = reply["error"]["code"]
                    self.codes[code] = self.codes.get(code, 0) + 1
                if isinstance(reply.get("id"), str):
                    self.replies[reply["id"]] = reply
                self.cond.notify_all()
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def raw(self, payload: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(struct.pack("=I", len(payload)) + payload)
        self.proc.stdin.flush()

    def send(self, type_: str, **fields) -> str:
        self.next_id += 1
        rid = f"r{self.next_id}"
        self.raw(json.dumps({"id": rid, "type": type_, **fields}).encode())
        return rid

    def wait(self, rid: str, timeout: float = 300) -> dict | None:
        """The final reply, or None when the host died first."""
        with self.cond:
            self.cond.wait_for(lambda: rid in self.replies or self.eof, timeout)
            return self.replies.pop(rid, None)

    def call(self, type_: str, **fields) -> dict | None:
        try:
            return self.wait(self.send(type_, **fields))
        except (BrokenPipeError, ValueError):  # killed while we wrote
            return None

    def wait_finals(self, n: int, timeout: float = 300) -> bool:
        with self.cond:
            got = self.cond.wait_for(lambda: self.finals >= n or self.eof, timeout)
            return got and not self.eof

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(60)
        with self.cond:
            self.cond.wait_for(lambda: self.eof, 10)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


def fuzz(rng: random.Random, n: int, big: bool) -> list[bytes]:
    """`n` frame payloads no request could be made of, but for harmless read requests."""
    valid = [
        {"type": "search", "query": "river gardens", "limit": 5},
        {"type": "index_page", "page": {"url": "https://fuzz.example/a", "title": "t",
                                        "text": "Some words of a fuzzed page about rivers."}},
        {"type": "page_info", "url": "https://site1.example/p3"},
        {"type": "stats"},
    ]
    junk_values = [None, True, -1, 2**64, 1e308, "", "x" * 3000, [], {}, [1, [2]],
                   "\ud800", {"a": {"b": None}}, 0.5, "https://", "ftp://x"]
    out: list[bytes] = []
    for i in range(n):
        k = rng.randrange(10)
        if k == 0:
            out.append(rng.randbytes(rng.randrange(0, 200)))
        elif k == 1:
            out.append(json.dumps(rng.choice([[1, 2], 3, "str", None, True, 1.5])).encode())
        elif k == 2:
            out.append(json.dumps({"type": rng.choice(SAFE_TYPES)}).encode())  # no id
        elif k == 3:
            bad_id = rng.choice([-5, 1.5, "x" * 80, "\u0001", [], {}, True, 2**60])
            out.append(json.dumps({"id": bad_id, "type": "stats"}).encode())
        elif k == 4:
            out.append(json.dumps({"id": i, "type": f"no_such_{rng.randrange(99)}"}).encode())
        elif k == 5:
            req = dict(rng.choice(valid))
            key = rng.choice([*req, "limit", "bogus_field", "page"])
            req[key] = rng.choice(junk_values)
            out.append(json.dumps({"id": i, **req}).encode())
        elif k == 6:
            text = bytearray(json.dumps({"id": i, **rng.choice(valid)}).encode())
            for _ in range(rng.randrange(1, 6)):
                text[rng.randrange(len(text))] = rng.randrange(256)
            if b"forget" in text or b"clear" in text:
                continue
            out.append(bytes(text))
        elif k == 7:
            out.append(b'{"id": %d, "type": "search", "query": "\\ud800\\udc00\\ud800"}' % i)
        elif k == 8:
            depth = rng.randrange(10, 3000)
            out.append(b'{"id": %d, "type": "stats", "x": ' % i + b"[" * depth + b"]" * depth
                       + b"}")
        else:
            out.append(b"")  # an empty frame
    if big:
        out.append(b'{"id": 1, "type": "stats", "pad": "' + b"x" * (8 * 1024 * 1024 + 10)
                   + b'"}')
    return out


def page_text(i: int) -> str:
    return (f"Page {i} of the crash run tells of topic{i} and of the weather on day {i % 31}, "
            f"with more words to make a passage. A second part: lists, gardens and rivers, {i}.")


def page_url(i: int) -> str:
    return f"https://site{i % 5}.example/p{i}"


@dataclass
class Ledger:
    """What the host said it did: the truth every restart is checked against."""

    committed: set[str] = field(default_factory=set)
    forgotten: set[str] = field(default_factory=set)
    imports_whole: list[list[str]] = field(default_factory=list)  # killed: all or nothing
    next_page: int = 0
    next_import: int = 0
    dim: int = 384


def ingest(s: Serve, led: Ledger, rng: random.Random) -> None:
    while True:
        i = led.next_page
        led.next_page += 1
        page = {"url": page_url(i), "title": f"Crash page {i}", "text": page_text(i),
                "visited_at": 1.7e9 + i}
        reply = s.call("index_page", page=page)
        if reply is None:
            return
        if reply["ok"]:
            led.committed.add(page_url(i))


def forget(s: Serve, led: Ledger, rng: random.Random) -> None:
    while True:
        pool = sorted(led.committed)
        if not pool:
            return
        url = rng.choice(pool)
        reply = s.call("forget", url=url)
        if reply is None:
            led.committed.discard(url)  # under way: either outcome is right
            return
        if reply["ok"]:
            led.committed.discard(url)
            led.forgotten.add(url)


def history(s: Serve, led: Ledger, rng: random.Random) -> None:
    while True:
        j = led.next_import
        led.next_import += 1
        urls = [f"https://hist{j % 7}.example/r{j}/v{k}" for k in range(200)]
        visits = [{"url": u, "title": f"History page {k} of import {j} about orchards",
                   "first_visit": 1.6e9 + k, "last_visit": 1.65e9 + k, "visit_count": 2}
                  for k, u in enumerate(urls)]
        reply = s.call("import_history", visits=visits)
        if reply is None:
            led.imports_whole.append(urls)
            return
        if reply["ok"] and reply["imported"] + reply["updated"] + reply["unchanged"] == 200:
            led.committed.update(urls)


def reembed(s: Serve, led: Ledger, rng: random.Random) -> None:
    state = s.call("reindex", action="status")
    while state is not None:
        if not state["ok"]:
            time.sleep(0.2)
            state = s.call("reindex", action="status")
            continue
        job = state.get("reembed") or {}
        if job.get("state") not in ("running", "waiting"):
            led.dim = rng.choice([d for d in DIMS if f"@{d}" not in state["embedding_model"]])
            state = s.call("reindex", action="start", model=MODEL, dim=led.dim)
            continue
        time.sleep(0.2)
        state = s.call("reindex", action="status")


WORK = {"ingest": ingest, "reembed": reembed, "import": history, "forget": forget}


def check(data: Path, model_dir: Path, led: Ledger) -> dict:
    """Open the store as the next writer would (recovering it) and hold it to the ledger."""
    t0 = time.perf_counter()
    with Rewind.open(data, model_dir=model_dir) as eng:
        reopen_ms = (time.perf_counter() - t0) * 1000
        checks = {c.name: c for c in profile_checks(eng)}
        stored = {p["url"] for p in eng.list_pages(0, 10**7)}
        vec = eng.vector_state()
        text = eng.text_index_state()
    problems = [f"{n}: {checks[n].detail}" for n in ("store", "text index") if not checks[n].ok]
    stale = len(vec.vector_ids - text.stored) if vec is not None else 0
    if stale:
        problems.append(f"{stale} vectors of passages that are gone")
    lost = led.committed - stored
    back = led.forgotten & stored
    split = [u for u in led.imports_whole if 0 < len(set(u) & stored) < len(u)]
    for urls in led.imports_whole:  # settled now: what is there was committed
        if urls[0] in stored:
            led.committed.update(urls)
    led.imports_whole.clear()
    return {"reopen_ms": reopen_ms, "problems": problems, "lost": lost, "back": back,
            "split_imports": len(split), "stored": len(stored),
            "missing_vectors": vec.missing if vec is not None else -1}


def run(kills: int, frames: int, seed: int, say=print) -> dict:
    import tempfile

    rng = random.Random(seed)
    model_dir = config.model_dir()
    led = Ledger()
    totals = {"frames": 0, "frame_replies": 0, "host_died_on_frames": 0, "lost": 0, "back": 0,
              "split_imports": 0, "failed_checks": 0, "kills": {k: 0 for k in KINDS},
              "reopen_ms": [], "codes": {}, "problems": [], "frames_s": 0.0}
    per_round = max(1, frames // max(1, kills))
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        os.environ.setdefault("REWIND_KEY_DIR", str(Path(tmp) / "keys"))
        os.environ.setdefault("REWIND_KEYRING", "off")
        for k in range(kills):
            kind = KINDS[k % len(KINDS)]
            s = Serve(data, model_dir)
            hello = s.call("hello", protocol=1, profile="crash", client="bench")
            if hello is None or not hello["ok"]:
                raise SystemExit(f"the host did not start: {hello}")
            before = s.finals
            batch = fuzz(rng, per_round, big=k % 25 == 24)
            t0 = time.perf_counter()
            for payload in batch:
                s.raw(payload)
            if not s.wait_finals(before + len(batch)):
                totals["host_died_on_frames"] += 1
                totals["problems"].append(f"round {k}: the host died on fuzzed frames")
            totals["frames_s"] += time.perf_counter() - t0
            totals["frames"] += len(batch)
            totals["frame_replies"] += s.finals - before
            delay = rng.uniform(0.0, WINDOW_S[kind])
            killer = threading.Timer(delay, s.kill)
            killer.start()
            WORK[kind](s, led, rng)
            killer.join()
            totals["kills"][kind] += 1
            for code, n in s.codes.items():
                totals["codes"][code] = totals["codes"].get(code, 0) + n
            got = check(data, model_dir, led)
            totals["reopen_ms"].append(got["reopen_ms"])
            totals["lost"] += len(got["lost"])
            totals["back"] += len(got["back"])
            totals["split_imports"] += got["split_imports"]
            if got["problems"] or got["lost"] or got["back"] or got["split_imports"]:
                totals["failed_checks"] += 1
                lost, back = sorted(got["lost"])[:3], sorted(got["back"])[:3]
                totals["problems"].append(
                    f"round {k} ({kind}): {got['problems']} lost {lost} back {back}")
            say(f"kill {k + 1:3}/{kills} during {kind:7} after {delay:4.2f} s: store "
                f"{got['stored']} pages, {len(led.committed)} committed, "
                f"{len(led.forgotten)} forgotten, {got['missing_vectors']} passages waiting "
                f"for a vector, {'ok' if not totals['problems'] else 'PROBLEMS'}")
        # The last host: the re-embedding and the history pages' vectors catch up.
        s = Serve(data, model_dir)
        s.call("hello", protocol=1, profile="crash", client="bench")
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            st = s.call("reindex", action="status") or {}
            if not st.get("reembed"):
                break
            time.sleep(1)
        s.close()
        final = check(data, model_dir, led)
        totals["final"] = {"stored": final["stored"], "missing_vectors": final["missing_vectors"],
                           "lost": len(final["lost"]), "back": len(final["back"]),
                           "problems": final["problems"]}
    totals["committed"] = len(led.committed)
    totals["forgotten"] = len(led.forgotten)
    totals["took_s"] = time.monotonic() - started
    totals["reopen_median_ms"] = statistics.median(totals["reopen_ms"]) if kills else 0.0
    return totals
