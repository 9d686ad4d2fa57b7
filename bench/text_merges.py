"""Do tantivy's merges block a page write? Write latency with and without waiting for them.

An index of `--base` real passages (bench/corpus.py) is built in commits of 50k (none by
default); then `--writes` pages of 20 passages are written one at a time, as the browser's
host does, each through the store and `TextIndex.catch_up`, timed: months of reading, during
which tantivy's log merge policy merges ever larger segments (segments under 10k documents
are one layer, merged 8 at a time; 8 segments of ~10k come together after ~4,100 writes). Two policies, each on a fresh copy:
- wait: every write waits for the merges it started (Rewind before this change: a write
  ended with `wait_merging_threads`);
- background: the writer is kept between writes and merges finish on tantivy's threads
  (what `TextIndex` does now).

    python3 bench/text_merges.py [--base 0] [--writes 4600]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rewind.config import Settings  # noqa: E402
from rewind.index.records import PageRecord, PassageRecord  # noqa: E402
from rewind.index.store import Store  # noqa: E402
from rewind.index.text_index import TextIndex  # noqa: E402

from bench.corpus import passages  # noqa: E402
from bench.report import load_average, machine, quantile, table, today, update_section  # noqa: E402

PER_PAGE = 20


def add_pages(store: Store, texts: list[str], first_page: int) -> None:
    for i in range(0, len(texts), PER_PAGE):
        page = first_page + i // PER_PAGE
        rec = PageRecord(url=f"https://bench.example/p{page}", domain="bench.example",
                         title=f"Page {page}", content_hash=str(page), source="bench",
                         first_visit=1e9, last_visit=1e9, visit_count=1, dwell_s=60.0)
        store.upsert_page(rec, [PassageRecord(t, j, (0, 1)) for j, t in
                                enumerate(texts[i:i + PER_PAGE])], None, None)


def run(base_dir: Path, texts: list[str], base: int, writes: int, policy: str) -> list[float]:
    work = Path(tempfile.mkdtemp(prefix="rewind-merges-"))
    try:
        shutil.copytree(base_dir, work / "d")
        store = Store(work / "d" / "rewind.db")
        index = TextIndex(work / "d" / "text", Settings())
        ms = []
        for w in range(writes):
            start = base + w * PER_PAGE
            add_pages(store, texts[start:start + PER_PAGE], 10**6 + w)
            t = time.perf_counter()
            index.catch_up(store)
            if policy == "wait":
                index.close()  # waits for the merges this write started, as writes used to
            ms.append((time.perf_counter() - t) * 1000)
        index.close()
        store.close()
        return ms
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=int, default=0)
    ap.add_argument("--writes", type=int, default=4600)
    args = ap.parse_args()
    texts = [p.text for _, p in passages(args.base + args.writes * PER_PAGE)]
    with tempfile.TemporaryDirectory(prefix="rewind-merges-base-") as tmp:
        base_dir = Path(tmp)
        store = Store(base_dir / "rewind.db")
        index = TextIndex(base_dir / "text", Settings())
        for start in range(0, args.base, 50_000):
            add_pages(store, texts[start:min(args.base, start + 50_000)], start // PER_PAGE)
            index.catch_up(store)
        index.close()
        store.close()
        results = {p: run(base_dir, texts, args.base, args.writes, p)
                   for p in ("wait", "background")}
    rows = [(p, f"{statistics.median(ms):.1f}", f"{quantile(ms, 0.95):.1f}",
             f"{quantile(ms, 0.99):.1f}", f"{max(ms):.0f}", sum(m > 1000 for m in ms))
            for p, ms in results.items()]
    text = "\n".join([
        "## Page writes and tantivy's merges (bench/text_merges.py)", "",
        f"{today()} · {machine()} · load average {load_average():.1f} at the end", "",
        f"{args.writes:,} page writes (20 real passages each) into a text index of "
        f"{args.base:,} passages at first, each timed through `TextIndex.catch_up` (store write "
        "excluded). wait: each write waits for the merges it started (before); background: "
        "the writer is kept and merges run on tantivy's threads (now).", "",
        table(("policy", "p50 ms", "p95 ms", "p99 ms", "max ms", "writes > 1 s"), rows)])
    print(text)
    update_section("text-merges", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
