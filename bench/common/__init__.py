"""What the benchmarks share: evaluation data (data with faq_html, devsets with devset_make
and devset_sources, corpus, real_pages, labelled_pages), metrics, and the writer of
docs/benchmarks.md (report, plot)."""
