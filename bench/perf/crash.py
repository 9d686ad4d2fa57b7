"""The crash benchmark: the host killed with SIGKILL at random moments, nothing committed lost.

Two scenarios. `serve` (the default: issue 23's benchmark, bench/perf/crash_serve.py): the
real host over stdio gets `--frames` fuzzed frames in all and `--kills` SIGKILLs spread
across ingest, re-embedding, history import and forget, the store checked after each.
`engine` (below): an in-process writer, ingest and forget only.

A writer process (the real engine, the real model, an encrypted store) indexes pages one
after another and forgets an older page now and then, printing each write once it has
returned. At a random moment (uniform over `--max-wait` seconds after it is ready) it is
killed with SIGKILL; then the store is opened again as the next host would open it (which
recovers the text index), and checked: SQLite's integrity, the text index against the
store, the vectors against the store (what `rewind doctor` checks), every page whose write
had returned is there, every page whose forget had returned is gone. Then the next writer
goes on where the last one stopped, on the same store. Seeded: the same run every time.

    .venv/bin/python -m bench.perf.crash [--scenario serve|engine] [--kills 100]
        [--frames 100000] [--max-wait 2.5] [--seed 12]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rewind import config
from rewind.checks import profile_checks
from rewind.profile.engine import Rewind

from bench.common.report import load_average, machine, table, today, update_section

WRITER = r"""
import json, sys
from rewind.profile.engine import Rewind
from rewind.capture.ingest import PageInput, PassageInput
eng = Rewind.open(sys.argv[1])
start = int(sys.argv[2])
eng.embedder(), eng.gate()  # loaded before "ready": the kills land among writes
print(json.dumps({"ready": True}), flush=True)
for i in range(start, start + 100000):
    text = [PassageInput(f"Page {i} of the crash run tells of topic{i} and of the weather "
                         f"on day {i % 31}, with more words to make a passage."),
            PassageInput(f"A second passage of page {i}: lists, gardens and rivers, {i}.")]
    eng.index_page(PageInput(f"https://site{i % 5}.example/p{i}", f"Crash page {i}", text,
                             visited_at=1.7e9 + i))
    print(json.dumps({"committed": i}), flush=True)
    if i % 7 == 0 and i >= 5:
        eng.forget_url(f"https://site{(i - 5) % 5}.example/p{i - 5}")
        print(json.dumps({"forgot": i - 5}), flush=True)
"""


def url(i: int) -> str:
    return f"https://site{i % 5}.example/p{i}"


def run_once(data: Path, start: int, wait: float, env: dict) -> tuple[list[int], list[int]]:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(data), str(start)],
                            stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    first = proc.stdout.readline()  # the writer has opened the store (and loaded the model)
    if "ready" not in first:
        proc.kill()
        raise SystemExit(f"the writer did not start: {first!r}")
    time.sleep(wait)
    proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=60)
    committed, forgot = [], []
    for line in out.splitlines():
        rec = json.loads(line)
        if "committed" in rec:
            committed.append(rec["committed"])
        elif "forgot" in rec:
            forgot.append(rec["forgot"])
    return committed, forgot


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--max-wait", type=float, default=2.5)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--scenario", choices=("serve", "engine"), default="serve")
    ap.add_argument("--frames", type=int, default=100_000, help="serve: fuzzed frames in all")
    args = ap.parse_args()
    if args.scenario == "serve":
        return serve_scenario(args)
    rng = random.Random(args.seed)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "host")}
    committed: set[int] = set()
    forgotten: set[int] = set()
    failures: list[str] = []
    lost_total = back_total = 0
    reopen_ms: list[float] = []
    next_page = 0
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        env.setdefault("REWIND_KEY_DIR", str(Path(tmp) / "keys"))
        env.setdefault("REWIND_KEYRING", "off")
        os.environ.update({k: env[k] for k in ("REWIND_KEY_DIR", "REWIND_KEYRING")})
        for kill in range(args.kills):
            wait = rng.uniform(0.0, args.max_wait)
            done, forgot = run_once(data, next_page, wait, env)
            committed |= set(done)
            forgotten |= set(forgot)
            committed -= set(forgot)
            last = max(done, default=-1)
            if last >= 5 and last % 7 == 0 and last - 5 not in forgot:
                committed.discard(last - 5)  # its forget was under way: either outcome is right
            inflight = max(done, default=next_page - 1) + 1
            next_page = inflight + 1  # the killed page's number is not reused
            t0 = time.perf_counter()
            with Rewind.open(data, model_dir=config.model_dir()) as eng:  # recovers
                reopen_ms.append((time.perf_counter() - t0) * 1000)
                checks = {c.name: c for c in profile_checks(eng)}
                stored = {p["url"] for p in eng.list_pages(0, 10**6)}
            for name in ("store", "text index", "vectors"):
                if not checks[name].ok:
                    failures.append(f"kill {kill}: {name}: {checks[name].detail}")
            lost = {i for i in committed if url(i) not in stored}
            back = {i for i in forgotten if url(i) in stored}
            lost_total += len(lost)
            back_total += len(back)
            if lost or back:
                failures.append(f"kill {kill}: lost {sorted(lost)[:5]}, back {sorted(back)[:5]}")
            print(f"kill {kill + 1:3}/{args.kills} after {wait:4.2f} s: {len(done):3} writes "
                  f"returned, store {len(stored)} pages, checks "
                  f"{'ok' if not failures else 'FAILED'}", flush=True)
    print(f"{args.kills} kills, {len(committed)} pages committed and kept, "
          f"{len(forgotten)} forgotten, lost {lost_total}, forgotten pages back "
          f"{back_total}, check failures {len(failures)}")
    for f in failures[:20]:
        print("  " + f)
    body = (
        "## Crash safety: SIGKILL at random moments (bench/perf/crash.py)\n\n"
        f"{today()} · {machine()} · load average {load_average():.1f} at the end\n\n"
        f"A writer (real engine, real MiniLM model, encrypted store) indexes two-passage "
        f"pages and forgets an older page every 7th write; it is killed with SIGKILL at "
        f"a moment drawn uniformly from 0-{args.max_wait:g} s after it opened the store "
        f"(seed {args.seed}), the store is opened again as the next host would open it "
        "(recovery) and checked like `rewind doctor` (SQLite integrity, text index and "
        "vectors against the store), and the next writer goes on on the same store.\n\n"
        + table(("measure", "value"), [
            ("kills", args.kills),
            ("pages whose write had returned (kept)", len(committed)),
            ("pages whose forget had returned", len(forgotten)),
            ("committed pages lost", lost_total),
            ("forgotten pages back", back_total),
            ("opens where a check failed", len({f.split(':')[0] for f in failures})),
            ("reopen + recovery, median ms", f"{statistics.median(reopen_ms):.0f}"),
        ])
        + "\n"
    )
    path = update_section("crash", body)
    print(f"wrote {path}")
    return 1 if failures else 0


def serve_scenario(args: argparse.Namespace) -> int:
    from bench.perf import crash_serve

    t = crash_serve.run(args.kills, args.frames, args.seed)
    failed = bool(t["problems"] or t["lost"] or t["back"] or t["final"]["problems"]
                  or t["final"]["missing_vectors"] or t["frame_replies"] != t["frames"])
    print(json.dumps({k: v for k, v in t.items() if k != "reopen_ms"}, indent=1, default=str))
    kinds = ", ".join(f"{n} {k}" for k, n in t["kills"].items())
    codes = ", ".join(f"`{c}` {n:,}" for c, n in sorted(t["codes"].items(), key=lambda x: -x[1]))
    body = (
        "## Crash safety across ingest, re-embedding, import and forget "
        "(bench/perf/crash.py, serve)\n\n"
        f"{today()} · {machine()} · load average {load_average():.1f} at the end · "
        f"{t['took_s'] / 60:.0f} min\n\n"
        "The real host (`rewind serve` over pipes, as a browser starts it; real MiniLM "
        "model, encrypted store), one store throughout. Each round: a new host, `hello`, a "
        "batch of fuzzed frames (random bytes, non-objects, bad ids and types, known "
        "requests with wrong fields, mutated valid requests, lone surrogates, nesting up to "
        "3,000 deep, every 25th round a frame over 8 MiB), each to be answered once with the "
        "host alive; then one kind of work in turn — `index_page`, `reindex start` (the "
        "re-embedding job on its thread), `import_history` (200 visits a request), "
        "`forget` — and SIGKILL at a moment drawn uniformly from that kind's window "
        f"(seed {args.seed}). After each kill the store is opened as the next writer would "
        "open it and checked: SQLite integrity, text index against the store, no vector of "
        "a passage that is gone, every answered write there, every answered forget gone, a "
        "killed import all there or all missing. At the end one host runs until the "
        "vectors have caught up.\n\n"
        + table(("measure", "value"), [
            ("fuzzed frames sent", f"{t['frames']:,}"),
            ("final replies to them (host alive)", f"{t['frame_replies']:,}"),
            ("rounds where the host died on a fuzzed frame", t["host_died_on_frames"]),
            ("fuzzed frames per second", f"{t['frames'] / max(t['frames_s'], 1e-9):,.0f}"),
            ("SIGKILLs", f"{sum(t['kills'].values())} ({kinds})"),
            ("pages kept whose write had been answered", f"{t['committed']:,}"),
            ("pages whose forget had been answered", f"{t['forgotten']:,}"),
            ("committed pages lost", t["lost"]),
            ("forgotten pages back", t["back"]),
            ("killed imports found half-written", t["split_imports"]),
            ("restarts where a check failed", t["failed_checks"]),
            ("reopen + recovery, median ms", f"{t['reopen_median_ms']:.0f}"),
            ("at the end: pages, passages without a vector",
             f"{t['final']['stored']:,}, {t['final']['missing_vectors']}"),
        ])
        + f"\n\nError codes answered to the fuzzed frames: {codes}.\n"
    )
    print(f"wrote {update_section('crash-serve', body)}")
    for line in t["problems"][:20]:
        print("  " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
