"""Speed and memory benchmarks: each prints its figures and writes its section of
docs/benchmarks.md."""
