"""Which runs rewrite each section of docs/benchmarks.md: `python3 build.py bench NAME`.

A section NAME (its `<!-- bench:NAME -->` markers) maps to the runs, in order, that
rewrite it: each a module of bench/ and its arguments, run as `python -m bench.<that module>`
from the checkout's root. build.py reads this table with ast (bench/common/catalog.py);
tests/test_bench_doc.py checks that every section of the report is here and every module
exists. A plain table: one section a line, no logic.
"""

SECTIONS: dict[str, tuple[str, ...]] = {
    # Search speed and recall by store size, beside the peers
    "scale": ("perf.scale --passages 10000", "perf.scale --passages 100000",
              "perf.scale --passages 1000000", "perf.scale --passages 10000 --report"),
    "peers": ("perf.peers --sizes 100000 --systems rewind lancedb-flat lancedb-ann-tuned "
              "sqlite-vec", "perf.peers --sizes 1000000 --systems rewind lancedb-ann-tuned"),
    "peers-ann-sweep-1000000": ("perf.peers --ann-sweep --sizes 1000000",),
    "latency": ("perf.latency",),
    "host": ("perf.host --write",),
    "panel": ("perf.panel",),
    # Search quality
    "quality": ("quality.quality",),
    "devsets": ("quality.relevance",),
    "relevance-gate": ("quality.fit_relevance",),
    "fusion-lab": ("labs.fusion",),
    # Search in every language
    "multilingual": ("quality.multilingual",),
    "multilingual-engine": ("perf.multilingual_engine",),
    # Answers
    "answer-quality": ("quality.answer_quality --ask 15",),
    "first-words": ("perf.first_words --variant budget-200",),
    "first-words-sets": ("perf.first_words --questions 20 --variant budget-300 --variant "
                         "budget-200 --set python-faq --set debian-faq --set sqlite-faq "
                         "--set git-faq --set wiki",),
    "answers": ("quality.answers",),
    "checker": ("quality.checker --dump --sweep citation_min_coverage=0.8,0.9,1.0 --sweep "
                "citation_min_similarity=0.0,0.1,0.2,0.3",),
    "closest-threshold": ("quality.fit_relevance --closest-from build/devsets-signals.jsonl",),
    "answerability": ("labs.answerability --every 3",),
    # Ingest and re-embedding
    "ingest": ("perf.ingest",),
    "text-merges": ("perf.text_merges",),
    "text-merges-bulk": ("perf.text_merges --scenario bulk",),
    "reembed": ("perf.reembed",),
    "reembed-multilingual": ("perf.reembed_multilingual --passages 10000 --write",),
    # Memory, history import, AI tools, encryption
    "ladder": ("perf.ladder",),
    "rest": ("perf.rest",),
    "history-import": ("perf.history_import",),
    "mcp": ("perf.mcp",),
    "encryption": ("perf.encryption",),
    # Crash safety and the soak
    "crash": ("perf.crash --scenario engine",),
    "crash-serve": ("perf.crash",),
    "soak": ("perf.soak",),
    # Capture quality
    "sensitive": ("quality.sensitive",),
    "extract": ("perf.extract",),
    "records": ("quality.records",),
}
