"""Quality benchmarks (search, answers, relevance, the content check) and the fitters
that write the models the host ships (fit_relevance, sensitive --fit: `build.py fit`)."""
