"""What the benchmarks share: evaluation data (data, devsets, corpus, real_pages,
labelled_pages), metrics, and the writer of docs/benchmarks.md (report, plot)."""
