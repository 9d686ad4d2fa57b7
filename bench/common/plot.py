"""The p95-against-passages plot of docs/benchmarks.md, from bench/perf/peers.py's results.

Job: read a JSON list of {"system", "passages", "p95_ms"} on stdin, write a PNG (log-log).
Run with the benchmark venv's Python (matplotlib is a benchmark-only requirement, in
bench/perf/requirements-peers.txt). Never: read or write anything but stdin and the PNG named.

    python -m bench.common.plot OUT.png < results.json
"""

from __future__ import annotations

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main() -> int:
    results = json.load(sys.stdin)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for system in dict.fromkeys(r["system"] for r in results):
        pts = sorted((r["passages"], r["p95_ms"]) for r in results if r["system"] == system)
        ax.plot(*zip(*pts, strict=True), marker="o", label=system)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("passages")
    ax.set_ylabel("hybrid search p95, ms (query embedding excluded)")
    ax.set_title("Search latency against collection size (2 cores)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
