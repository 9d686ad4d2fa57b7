"""The helper at rest: its resident memory as the browser leaves it, and what the first
search and answer cost once its models were let go.

Job: index the demo's 8 pages of the Python docs (demo/browser_demo.py's PAGES) into a
temporary profile with the real models (`rewind index`), start the real host as a browser
starts it (`python -m rewind serve ORIGIN`, frames over pipes: bench/perf/host.py's Host),
set short idle times through the host's settings (`answer_model_idle_s`,
`embedder_idle_s`), then send hello, a search and a question, and wait while the host lets
its models go (host.log says when). Each round after that rests until both are gone, then
searches and asks again: the first search and answer after a rest (the models load again)
beside warm ones; a last round sends `warm` first, as the side panel does when it opens.
Prints and writes (unless --no-write) the resident memory (RSS, anonymous and file-backed)
after each step and the medians over the rounds.
Never: download anything (`python3 build.py install` provides the models).

    .venv/bin/python -m bench.perf.rest [--answer-idle 5] [--embedder-idle 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rewind import config
from rewind.models import installed, specs

from bench.common import data, report
from bench.perf.host import ROOT, Host

EMBEDDER = "all-minilm-l6-v2-int8"
LLM = "smollm2-135m-instruct-q8_0"
# demo/browser_demo.py's pages (not imported: it brings the browser harness with it).
PAGES = ["tutorial/appetite.html", "tutorial/interpreter.html", "tutorial/venv.html",
         "howto/sorting.html", "faq/installed.html", "faq/gui.html", "faq/windows.html",
         "tutorial/whatnow.html"]
QUESTIONS = ["How do I run a Python program under Windows?",
             "How do I make Python scripts executable?",
             "Can I delete Python from my computer?"]
SEARCHES = ["sort a list of objects by one of their attributes", "virtual environments",
            "GUI toolkits for Python", "what to read after the tutorial",
            "the interactive interpreter", "key functions for sorting", "pip install packages",
            "python on windows", "tkinter", "command line arguments"]


def memory(pid: int) -> dict[str, float]:
    """Resident memory of `pid` in MiB: all, anonymous, file-backed (/proc, Linux)."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile"):
            out[key] = int(value.split()[0]) / 1024
    return {"rss": out["VmRSS"], "anon": out["RssAnon"], "file": out["RssFile"]}


def build_store(data_dir: Path) -> int:
    """The demo's pages, indexed with the real models by the CLI; how many."""
    html = data.python_docs()
    pages = data_dir.parent / "pages"
    for rel in PAGES:
        (pages / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(html / rel, pages / rel)
    env = {"REWIND_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT / "host")}
    subprocess.run([sys.executable, "-m", "rewind", "index", str(pages), "--base-url",
                    "http://docs.python.local/"], check=True, capture_output=True,
                   env={**os.environ, **env})
    return len(PAGES)


class Rest:
    """The host, its log, and the steps measured."""

    def __init__(self, data_dir: Path, model_dir: Path) -> None:
        self.host = Host(data_dir, model_dir)
        self.log = data_dir / "host.log"
        self.steps: list[tuple[str, dict[str, float], float | None]] = []

    def call(self, type_: str, **fields) -> tuple[dict, float]:
        t0 = time.perf_counter()
        reply = self.host.call(type_, **fields)
        return reply, (time.perf_counter() - t0) * 1000

    def step(self, what: str, ms: float | None = None) -> dict[str, float]:
        m = memory(self.host.proc.pid)
        self.steps.append((what, m, ms))
        print(f"{what:60} {m['rss']:7.1f} MB rss {m['anon']:7.1f} anon"
              + (f" {ms:9.1f} ms" if ms is not None else ""), flush=True)
        return m

    def let_go(self, name: str) -> int:
        text = self.log.read_text(encoding="utf-8") if self.log.exists() else ""
        return sum(name in line for line in text.splitlines() if "at rest: let go" in line)

    def wait_let_go(self, name: str, before: int, timeout: float) -> float:
        """Seconds until the log says `name` was let go once more than `before` times."""
        t0 = time.monotonic()
        while self.let_go(name) <= before:
            if time.monotonic() - t0 > timeout:
                raise RuntimeError(f"{name} was not let go within {timeout:.0f} s")
            time.sleep(0.1)
        time.sleep(0.5)  # the allocator gives the memory back just after the log line
        return time.monotonic() - t0

    def rest(self, timeout: float) -> None:
        """Until both models are let go (each once more than now)."""
        answer, embedder = self.let_go("the answering model"), self.let_go("the embedding model")
        self.wait_let_go("the answering model", answer, timeout)
        self.wait_let_go("the embedding model", embedder, timeout)


def run(args: argparse.Namespace, data_dir: Path, model_dir: Path) -> dict:
    r = Rest(data_dir, model_dir)
    timeout = 3 * max(args.answer_idle, args.embedder_idle) + 60
    try:
        _, ms = r.call("list_profiles")  # answered once the host has imported itself
        r.step("started (no profile open yet)", ms)
        _, ms = r.call("hello", profile="bench", client="bench/perf/rest.py")
        r.step("after hello", ms)
        r.host.call("set_settings", settings={"answer_model_idle_s": args.answer_idle,
                                              "embedder_idle_s": args.embedder_idle})
        _, ms = r.call("search", query=SEARCHES[0])
        r.step("after a search", ms)
        reply, ms = r.call("ask", question=QUESTIONS[0])
        r.step(f"after a question (model loaded in {reply['timings']['load_ms']:.0f} ms)", ms)
        time.sleep(2.0)
        r.step("at rest 2 s after the question (both models held)")
        answer = r.let_go("the answering model")
        s = r.wait_let_go("the answering model", answer, timeout)
        r.step(f"answering model let go ({s + 2:.0f} s after the question)")
        embedder = r.let_go("the embedding model")
        s2 = r.wait_let_go("the embedding model", embedder, timeout)
        r.step(f"embedding model let go ({s + s2 + 2:.0f} s after the question)")

        rounds: list[dict[str, float]] = []
        for i in range(args.rounds):
            got: dict[str, float] = {"rest_rss": memory(r.host.proc.pid)["rss"]}
            _, got["search_cold"] = r.call("search", query=SEARCHES[1 + 2 * i])
            _, got["search_warm"] = r.call("search", query=SEARCHES[2 + 2 * i])
            q = QUESTIONS[i % len(QUESTIONS)]
            reply, got["ask_cold"] = r.call("ask", question=q)
            got["load_cold"] = reply["timings"]["load_ms"]
            got["first_cold"] = reply["timings"].get("first_token_ms") or 0.0
            reply, got["ask_warm"] = r.call("ask", question=QUESTIONS[(i + 1) % len(QUESTIONS)])
            got["load_warm"] = reply["timings"]["load_ms"]
            got["first_warm"] = reply["timings"].get("first_token_ms") or 0.0
            got["busy_rss"] = memory(r.host.proc.pid)["rss"]
            if i == 0:
                r.step("after the first search and question after the rest", None)
            rounds.append(got)
            print(f"round {i + 1}: " + ", ".join(f"{k} {v:.0f}" for k, v in got.items()),
                  flush=True)
            r.rest(timeout)
        r.step("at rest again after the rounds")
        reply, warm_ms = r.call("warm")
        r.step("after `warm` (the side panel opened)", warm_ms)
        _, search_after_warm = r.call("search", query=SEARCHES[-1])
        reply, ask_after_warm = r.call("ask", question=QUESTIONS[0])
        return {"steps": r.steps, "rounds": rounds, "warm_ms": warm_ms,
                "search_after_warm": search_after_warm, "ask_after_warm": ask_after_warm,
                "load_after_warm": reply["timings"]["load_ms"]}
    finally:
        r.host.close()


def med(rounds: list[dict[str, float]], key: str) -> float:
    return statistics.median(x[key] for x in rounds)


def body(res: dict, args: argparse.Namespace, pages: int, load: tuple[float, float]) -> str:
    steps = [(what, f"{m['rss']:.0f}", f"{m['anon']:.0f}", f"{m['file']:.0f}",
              "" if ms is None else f"{ms:,.0f}") for what, m, ms in res["steps"]]
    rs = res["rounds"]
    reload_rows = [
        ("search", f"{med(rs, 'search_cold'):,.0f}", f"{med(rs, 'search_warm'):,.0f}",
         f"{med(rs, 'search_cold') - med(rs, 'search_warm'):+,.0f}"),
        ("answer, whole", f"{med(rs, 'ask_cold'):,.0f}", f"{med(rs, 'ask_warm'):,.0f}",
         f"{med(rs, 'ask_cold') - med(rs, 'ask_warm'):+,.0f}"),
        ("answer, loading the model (`timings.load_ms`)", f"{med(rs, 'load_cold'):,.0f}",
         f"{med(rs, 'load_warm'):,.0f}", f"{med(rs, 'load_cold') - med(rs, 'load_warm'):+,.0f}"),
        ("answer, first words (`timings.first_token_ms`)", f"{med(rs, 'first_cold'):,.0f}",
         f"{med(rs, 'first_warm'):,.0f}",
         f"{med(rs, 'first_cold') - med(rs, 'first_warm'):+,.0f}"),
    ]
    rest_rss = [x["rest_rss"] for x in rs]
    return f"""## The helper at rest, and the first search and answer after (bench/perf/rest.py)

{report.today()} · {report.machine()} · load {load[0]:.1f} at the start, {load[1]:.1f} at the end

The real host, started as a browser starts it (`python -m rewind serve ORIGIN` over pipes),
on the demo's {pages} pages of the Python docs with {EMBEDDER} and {LLM}. Short idle times
are set through its settings: the answering model is let go {args.answer_idle} s after its
last use, the embedding model (with the vector index and the language detector)
{args.embedder_idle} s after its last use; the defaults are 120 s and 600 s, so with them
the helper holds what the row "at rest 2 s after the question" shows for 2 minutes after a
question (and, before models were let go at rest, for as long as the browser ran). Memory is
the process's resident set from /proc: anonymous (heap, the models' buffers) and
file-backed (libraries, model and index files mapped). Times are round trips through the
host, wall clock.

{report.table(("step", "RSS MB", "anonymous MB", "file MB", "ms"), steps)}

At rest after each of the {len(rs)} rounds: {min(rest_rss):.0f}-{max(rest_rss):.0f} MB. Each
round then searches and asks with both models let go (they load again), and again with them
loaded, other words each time so that no cache answers. Medians over the rounds, ms:

{report.table(("request", "after a rest", "warm", "difference"), reload_rows)}

A question's own time varies with what it retrieves and writes: the loading row is the cost
of a rest for an answer, the search row's difference for a search (the embedding model and
the language detector load again). With `warm` sent first, as the side panel does when it
opens: `warm` took {res['warm_ms']:,.0f} ms, then a search {res['search_after_warm']:,.0f} ms
and a question {res['ask_after_warm']:,.0f} ms, of which loading the model
{res['load_after_warm']:,.0f} ms.
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answer-idle", type=int, default=5, help="answer_model_idle_s, seconds")
    ap.add_argument("--embedder-idle", type=int, default=10, help="embedder_idle_s, seconds")
    ap.add_argument("--rounds", type=int, default=3, help="rests, each then searched and asked")
    ap.add_argument("--no-write", action="store_true", help="print, do not write the doc")
    args = ap.parse_args(argv)
    model_dir = config.model_dir()
    for spec in (specs.embedding_spec(EMBEDDER), specs.llm_spec(LLM)):
        if not installed.status(spec, model_dir).installed:
            print(f"{spec.name} is not installed in {model_dir}: run python3 build.py install")
            return 1
    load_start = report.load_average()
    with tempfile.TemporaryDirectory(prefix="rewind-bench-rest-") as tmp:
        data_dir = Path(tmp) / "profile"
        pages = build_store(data_dir)
        res = run(args, data_dir, model_dir)
    text = body(res, args, pages, (load_start, report.load_average()))
    print(text)
    if not args.no_write:
        print(report.update_section("rest", text))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
