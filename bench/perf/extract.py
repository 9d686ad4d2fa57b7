"""Extraction time in real Chromium with the built extension: ordinary and 10 MB pages.

The extension's own extraction (the visible copy of the live DOM, Readability, the
chunker, redaction) runs in a page served on 127.0.0.1, started from the worker as the
indexer starts it; the content script reports its time (`took_ms`, from injection done to
passages ready) and the worker round trip (injecting the scripts included) is timed too.
Pages: a 60 KB article; 10 MB of text in one paragraph ("wall"); 10 MB as ~100,000 small
paragraphs ("many"); the same with every other paragraph hidden by a stylesheet rule
("half hidden"). The stated budget is BUDGET_MS for a 10 MB page: the visible copy stops
at 1.5 s of walking (and at 250,000 nodes or 1,000,000 characters), Readability and the
chunker are bounded in elements and characters.

    .venv/bin/python -m bench.perf.extract [--runs 5]
"""

from __future__ import annotations

import argparse
import html
import statistics
import tempfile
import time
from pathlib import Path

from bench.common.report import machine, quantile, table, today, update_section
from demo.harness import RewindBrowser, build_extension, find_chromium
from demo.sites import LocalSite

MB = 1_000_000
BUDGET_MS = 2000  # the stated budget for extracting a 10 MB page, injection included
SENTENCE = ("Glaciers carve valleys over thousands of years, and the meltwater they leave "
            "behind feeds rivers that farmers downstream depend on. ")


def _page(title: str, body: str, head: str = "") -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"{head}</head><body><header><nav><a href='/'>Home</a></nav></header>"
            f"<main><article><h1>{title}</h1>{body}</article></main></body></html>")


def pages() -> dict[str, str]:
    para = f"<p>{html.escape(SENTENCE * 3)}</p>"
    hidden = f"<p class='h'>{SENTENCE}</p>"
    n_many = 10 * MB // len(para)
    n_pairs = 10 * MB // (len(hidden) + len(para))
    return {
        "article 60 KB": _page("An article", "".join(
            f"<h2>Part {i}</h2>{para * 4}" for i in range(60_000 // (4 * len(para))))),
        "wall 10 MB": _page("A wall of text", f"<p>{SENTENCE * (10 * MB // len(SENTENCE))}</p>"),
        "many 10 MB": _page("Many paragraphs", para * n_many),
        "half hidden 10 MB": _page(
            "Half hidden", (hidden + para) * n_pairs,
            head="<style>.h{display:none}</style>"),
    }


def measure(browser: RewindBrowser, url: str, runs: int) -> dict[str, object]:
    tab = browser.reading_tab()
    tab.goto(url, wait_until="load", timeout=120_000)
    tab.bring_to_front()
    tab_id = browser.evaluate(
        "u => chrome.tabs.query({}).then(ts => ts.find(t => t.url === u).id)", url)
    inner, outer, last = [], [], {}
    for _ in range(runs):
        start = time.perf_counter()
        last = browser.evaluate("id => globalThis.__rewind.extract(id)", tab_id)
        outer.append((time.perf_counter() - start) * 1000)
        inner.append(float(last["took_ms"]))
    visible = last.get("stats", {}).get("visible", {})
    return {
        "inner": inner, "outer": outer, "passages": len(last["passages"]),
        "method": last["method"], "truncated": visible.get("truncated"),
        "copy_ms": last.get("stats", {}).get("copy_ms"), "chars": visible.get("chars"),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    chromium = find_chromium()
    if not chromium:
        print("bench/perf/extract.py: Chromium is not installed (apt-get install chromium)")
        return 2
    from playwright.sync_api import sync_playwright

    rows = []
    worst_10mb = 0.0
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        root = Path(tmp)
        site_dir = root / "site"
        site_dir.mkdir()
        sizes = {}
        for i, (name, text) in enumerate(pages().items()):
            (site_dir / f"p{i}.html").write_text(text, encoding="utf-8")
            sizes[name] = len(text.encode())
        site = LocalSite(site_dir)
        browser = RewindBrowser.launch(pw, root / "b", chromium=chromium,
                                       extension=build_extension(root / "ext"), registered=False)
        try:
            for i, name in enumerate(sizes):
                m = measure(browser, site.url(f"p{i}.html"), args.runs)
                inner, outer = m["inner"], m["outer"]
                if sizes[name] >= 5 * MB:
                    worst_10mb = max(worst_10mb, max(outer))
                rows.append([
                    name, f"{sizes[name] / MB:.2f}", f"{statistics.median(inner):.0f}",
                    f"{max(inner):.0f}", f"{statistics.median(outer):.0f}",
                    f"{quantile(outer, 1.0):.0f}", m["copy_ms"], m["chars"], m["truncated"],
                    m["method"], m["passages"],
                ])
                print(name, rows[-1], flush=True)
        finally:
            browser.close()
            site.close()
    header = ["page", "MB", "extract ms (median)", "max", "with injection ms (median)", "max",
              "visible copy ms (last)", "chars copied", "copy truncated", "method", "passages"]
    body = "\n".join([
        "## Extraction (bench/perf/extract.py)",
        "",
        f"{today()}, {machine()}; headless Chromium, the built extension, {args.runs} runs per "
        "page in one tab. `extract ms`: the content script's own time from the start of "
        "`RewindExtract.run` to passages ready (visible copy, Readability, chunker, redaction); "
        "`with injection`: the worker's round trip, injecting the scripts included.",
        "",
        table(header, rows),
        "",
        f"Stated budget: {BUDGET_MS:,} ms to extract a 10 MB page, injection included; worst "
        f"run measured here: {worst_10mb:.0f} ms "
        f"({'within' if worst_10mb <= BUDGET_MS else 'OVER'} the budget).",
        "",
        "How it is bounded: the visible copy walks the live DOM for at most 1.5 s (and "
        "250,000 nodes or 1,000,000 characters), then stops and marks the copy truncated; "
        "Readability runs only "
        "on a copy under 2,000,000 characters and 30,000 elements; the chunker reads at most "
        "400,000 characters and 60,000 nodes.",
    ])
    update_section("extract", body)
    print(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
