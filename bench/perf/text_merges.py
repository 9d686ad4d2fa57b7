"""Do tantivy's merges block a page write? Write latency with and without waiting for them.

An index of `--base` real passages (bench/common/corpus.py) is built in commits of 50k (none by
default); then `--writes` pages of 20 passages are written one at a time, as the browser's
host does, each through the store and `TextIndex.catch_up`, timed: months of reading, during
which tantivy's log merge policy merges ever larger segments (segments under 10k documents
are one layer, merged 8 at a time; 8 segments of ~10k come together after ~4,100 writes).
Two policies, each on a fresh copy:
- wait: every write waits for the merges it started (Rewind before this change: a write
  ended with `wait_merging_threads`);
- background: the writer is kept between writes and merges finish on tantivy's threads
  (what `TextIndex` does now).

    python3 -m bench.perf.text_merges [--scenario browse|bulk] [--base 0] [--writes 4600]

Scenario bulk: a base of 7 segments of 40k passages, then 40k passages another process
wrote are caught up in one commit (the eighth large segment: tantivy merges all eight),
then 100 page writes.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rewind.config import Settings
from rewind.index.derived.text_index import TextIndex
from rewind.index.store.records import PageRecord, PassageRecord
from rewind.index.store.store import Store

from bench.common.corpus import passages
from bench.common.report import load_average, machine, quantile, table, today, update_section

PER_PAGE = 20


def add_pages(store: Store, texts: list[str], first_page: int) -> None:
    for i in range(0, len(texts), PER_PAGE):
        page = first_page + i // PER_PAGE
        rec = PageRecord(url=f"https://bench.example/p{page}", domain="bench.example",
                         title=f"Page {page}", content_hash=str(page), source="bench",
                         first_visit=1e9, last_visit=1e9, visit_count=1, dwell_s=60.0)
        store.upsert_page(rec, [PassageRecord(t, j, (0, 1)) for j, t in
                                enumerate(texts[i:i + PER_PAGE])], None, None)


def run(base_dir: Path, texts: list[str], base: int, writes: int, policy: str,
        bulk: int = 0) -> list[float]:
    """Times (ms) of: one catch-up applying `bulk` passages (if any), then each page write."""
    work = Path(tempfile.mkdtemp(prefix="rewind-merges-"))
    try:
        shutil.copytree(base_dir, work / "d")
        store = Store(work / "d" / "rewind.db")
        index = TextIndex(work / "d" / "text", Settings())
        ms = []
        if bulk:  # pages another process wrote (a CLI import): caught up in one commit
            add_pages(store, texts[base:base + bulk], 2 * 10**6)
            t = time.perf_counter()
            index.catch_up(store)
            if policy == "wait":
                index.close()
            ms.append((time.perf_counter() - t) * 1000)
            base += bulk
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
    ap.add_argument("--scenario", choices=("browse", "bulk"), default="browse")
    ap.add_argument("--base", type=int, default=0)
    ap.add_argument("--segment", type=int, default=50_000, help="passages a base commit")
    ap.add_argument("--bulk", type=int, default=0)
    ap.add_argument("--writes", type=int, default=4600)
    args = ap.parse_args()
    if args.scenario == "bulk" and not args.bulk:
        args.base, args.segment, args.bulk, args.writes = 280_000, 40_000, 40_000, 100
    texts = [p.text for _, p in passages(args.base + args.bulk + args.writes * PER_PAGE)]
    with tempfile.TemporaryDirectory(prefix="rewind-merges-base-") as tmp:
        base_dir = Path(tmp)
        store = Store(base_dir / "rewind.db")
        index = TextIndex(base_dir / "text", Settings())
        for start in range(0, args.base, args.segment):
            add_pages(store, texts[start:min(args.base, start + args.segment)],
                      start // PER_PAGE)
            index.catch_up(store)
            index.close()  # one settled segment per commit
        store.close()
        results = {p: run(base_dir, texts, args.base, args.writes, p, args.bulk)
                   for p in ("wait", "background")}
    if args.bulk:
        rows = [(p, f"{ms[0]:.0f}", f"{statistics.median(ms[1:]):.1f}",
                 f"{quantile(ms[1:], 0.95):.1f}", f"{max(ms[1:]):.0f}")
                for p, ms in results.items()]
        header = ("policy", "bulk catch-up ms", "then: page write p50 ms", "p95 ms", "max ms")
        what = (f"A text index of {args.base:,} passages in {args.base // args.segment} "
                f"segments of {args.segment:,}; another process's {args.bulk:,} passages are "
                "caught up in one commit (the eighth large segment: tantivy merges all eight), "
                f"then {args.writes} page writes of 20 passages, each timed through "
                "`TextIndex.catch_up`.")
        name, title = "text-merges-bulk", "A large merge and the page writes after it"
    else:
        rows = [(p, f"{statistics.median(ms):.1f}", f"{quantile(ms, 0.95):.1f}",
                 f"{quantile(ms, 0.99):.1f}", f"{max(ms):.0f}", sum(m > 1000 for m in ms))
                for p, ms in results.items()]
        header = ("policy", "p50 ms", "p95 ms", "p99 ms", "max ms", "writes > 1 s")
        what = (f"{args.writes:,} page writes (20 real passages each) into a text index of "
                f"{args.base:,} passages at first, each timed through `TextIndex.catch_up` "
                "(store write excluded).")
        name, title = "text-merges", "Page writes and tantivy's merges"
    text = "\n".join([
        f"## {title} (bench/perf/text_merges.py --scenario {args.scenario})", "",
        f"{today()} · {machine()} · load average {load_average():.1f} at the end", "",
        what + " wait: each write waits for the merges it started; background (the host's "
        "policy): the writer is kept and merges run on tantivy's threads. The two policies run "
        "one after the other on copies of the same base.", "",
        table(header, rows)])
    print(text)
    update_section(name, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
