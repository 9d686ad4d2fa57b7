"""Importing the browser's history: 10,000 visits, searchable at once.

Job: build 10,000 history entries (the titles of 10,000 Wikipedia articles as the pages
visited, their addresses under en.wikipedia.org, one in fifty a bank's or a mail
provider's address that the capture gate must refuse), send them to a real host process
over stdio in `import_history` requests of 2,000, then search by title at once (keyword:
the vectors come later, from the embedding job). Reports the time from the first request
to the last reply (target <= 10 s), the pages kept and refused, and the first search's
time and result; several rounds on fresh profiles, medians. With `--browser`, the whole
path in real Chromium too: the entries added to a profile's history (chrome.history.addUrl,
a third of them visited twice), then the extension's own import of the last 7 days
(chrome.history, its rules, getVisits, the host) timed from the click to its summary.
Never: download anything but the Wikipedia summaries wheel bench/common/corpus.py caches.

    .venv/bin/python -m bench.perf.history_import [--entries 10000] [--rounds 3] [--browser]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import urllib.parse
from pathlib import Path

from rewind import config

from bench.common import report
from bench.common.corpus import wiki_paragraphs
from bench.common.data import default_cache
from bench.perf.host import Host

BATCH = 2_000  # what the extension sends in one request (Settings.max_history_visits)
PRIVATE = ("https://www.chase.com/personal/checking?acct={i}",
           "https://mail.google.com/mail/u/0/#inbox/{i}")


def entries(n: int, now: float) -> list[dict]:
    titles = [t for t, _ in wiki_paragraphs(default_cache())]
    out = []
    for i in range(n):
        if i % 50 == 49:
            url, title = PRIVATE[i % 2].format(i=i), f"Account {i}"
        else:
            title = titles[i % len(titles)]
            url = "https://en.wikipedia.org/wiki/" + urllib.parse.quote(title.replace(" ", "_"))
            if i >= len(titles):
                url += f"?oldid={i}"
        out.append({"url": url, "title": title, "first_visit": now - 86400 * (1 + i % 90),
                    "last_visit": now - 3600 * (i % 48), "visit_count": 1 + i % 7})
    return out


def cpu_seconds(pid: int) -> float:
    """CPU time a process used so far, its threads together (Linux /proc): what a busy
    machine does not inflate as it does wall time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_round(visits: list[dict], query: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        host = Host(Path(tmp) / "data", config.model_dir())
        try:
            host.call("hello", protocol=1, profile="bench", client="bench")
            cpu0 = cpu_seconds(host.proc.pid)
            t0 = time.perf_counter()
            kept = refused = pending = 0
            for i in range(0, len(visits), BATCH):
                r = host.call("import_history", visits=visits[i:i + BATCH])
                kept += r["imported"]
                refused += sum(r["skipped"].values())
                pending += len(r["pending"])
            imported_s = time.perf_counter() - t0
            cpu_s = cpu_seconds(host.proc.pid) - cpu0
            t1 = time.perf_counter()
            found = host.call("search", query=query, mode="keyword", limit=5)["results"]
            search_ms = (time.perf_counter() - t1) * 1000
        finally:
            host.close()
    return {"seconds": imported_s, "cpu_s": cpu_s, "kept": kept, "refused": refused,
            "pending": pending,
            "search_ms": search_ms, "top": found[0]["title"] if found else None,
            "top_read": found[0]["read"] if found else None}


def in_browser(visits: list[dict], query: str) -> dict:
    """The extension's import in real Chromium, from a history of `visits`' addresses."""
    from playwright.sync_api import sync_playwright

    from demo.harness import RewindBrowser, build_extension, find_chromium

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        root = Path(tmp)
        browser = RewindBrowser.launch(pw, root / "b", chromium=find_chromium() or "chromium",
                                       extension=build_extension(root / "ext"),
                                       model_dir=config.model_dir())
        try:
            browser.wait_connected()
            urls = [v["url"] for v in visits]
            t0 = time.perf_counter()
            browser.evaluate("""async urls => {
                for (let i = 0; i < urls.length; i += 200)
                    await Promise.all(urls.slice(i, i + 200).map((url, j) =>
                        chrome.history.addUrl({url}).then(() =>
                            (i + j) % 3 ? null : chrome.history.addUrl({url}))));
            }""", urls)
            filled_s = time.perf_counter() - t0
            t1 = time.perf_counter()
            summary = browser.evaluate(
                "globalThis.__rewind.action('history_import', {days: 7})")
            took_s = time.perf_counter() - t1
            t2 = time.perf_counter()
            found = browser.search(query)
            search_ms = (time.perf_counter() - t2) * 1000
        finally:
            browser.close()
    return {"seconds": took_s, "fill_s": filled_s, "summary": summary, "search_ms": search_ms,
            "found": len(found)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--browser", action="store_true", help="also the extension's import in "
                    "real Chromium")
    args = ap.parse_args(argv)
    visits = entries(args.entries, time.time())
    query = visits[1234 % len(visits)]["title"]
    rounds = [one_round(visits, query) for _ in range(args.rounds)]
    med = statistics.median(r["seconds"] for r in rounds)
    last = rounds[-1]
    lines = [
        "## History import (bench/perf/history_import.py)",
        "",
        f"{report.today()} · {report.machine()} · load average {report.load_average():.1f} "
        "at the end",
        "",
        f"{args.entries:,} history entries (Wikipedia article titles and addresses; one in "
        "fifty a bank or webmail address) sent to a real host process over stdio in "
        f"`import_history` requests of {BATCH:,}, as the extension does; {args.rounds} rounds "
        "on fresh profiles (encrypted store, the default).",
        "",
        report.table(["", "value"], [
            ["import, first request to last reply (median)", f"**{med:.2f} s** (target <= 10 s)"],
            ["rounds", ", ".join(f"{r['seconds']:.2f} s" for r in rounds)],
            ["host CPU time during the import (median; its threads together)",
             f"{statistics.median(r['cpu_s'] for r in rounds):.2f} s"],
            ["pages kept / refused by the gate", f"{last['kept']:,} / {last['refused']:,}"],
            ["pages waiting for their text (backfill)", f"{last['pending']:,}"],
            ["first keyword search right after (title)", f"{last['search_ms']:.0f} ms"],
            ["its first result", f"{last['top']!r} (read: {last['top_read']})"],
        ]),
        "",
        f"The query was the title of entry 1,234 ({query!r}): found at once, before any "
        "vector exists; the embedding job gives the titles vectors in the background.",
    ]
    if args.browser:
        b = in_browser(visits, query.split("(")[0].strip() or query)
        sm = b["summary"]
        lines += [
            "",
            "The whole path in headless Chromium with the built extension and the real host: "
            f"{sm['found']:,} history entries (added with chrome.history.addUrl in "
            f"{b['fill_s']:.0f} s, a third of them twice, no titles: their addresses' words "
            "stand in), the extension's import of the last 7 days from the call to its "
            f"summary: **{b['seconds']:.2f} s** ({sm['imported']:,} kept, "
            f"{sum(sm['refusedHere'].values()):,} refused in the browser, "
            f"{sum(sm['refusedByHelper'].values()):,} by the helper); a keyword search right "
            f"after took {b['search_ms']:.0f} ms. Where the time went (ms): "
            + ", ".join(f"{k} {v:,.0f}" for k, v in sm.get("phasesMs", {}).items()) + ".",
        ]
    print("\n".join(lines))
    report.update_section("history-import", "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
