"""Every tunable of the host in one place, with one default, its range and a one-line doc.

`Settings` is frozen: code receives a Settings object and never reads globals, so tests
override a field with `dataclasses.replace(Settings(), field=...)`. Each field carries a
`Knob` (its doc, its range or choices, and whether a person may change it): the
protocol's validation of `set_settings`, the schema `get_settings` returns (which the
options page draws), the saved per-profile overrides and PROTOCOL.md's tables are all
derived from it (tests/test_config.py fails when the doc and the code disagree).
Numbers that follow from others are properties, not fields. Paths (data and model
directories) are resolved here too, once.
This module must never import the heavy stages (numpy, onnxruntime, tantivy).
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

APP_NAME = "rewind"


@dataclass(frozen=True)
class Knob:
    """What a Settings field is: a one-line doc, its range, and who may change it."""

    doc: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] | None = None
    user: bool = False  # a person may change it (set_settings, the options page)
    group: str = ""  # where the options page shows a user setting
    label: str = ""  # a user setting's name on the options page, in plain words ("" = doc)
    advanced: bool = False  # shown under the options page's collapsed "Advanced"
    pattern: str | None = None  # a text setting's allowed values (a regular expression)


def knob(default: Any, doc: str, *, lo: float | None = None, hi: float | None = None,
         choices: tuple[str, ...] | None = None, user: bool = False, group: str = "",
         label: str = "", advanced: bool = False, pattern: str | None = None) -> Any:
    return field(default=default, metadata={
        "knob": Knob(doc, lo, hi, choices, user, group, label, advanced, pattern)})


@dataclass(frozen=True)
class Settings:
    # --- passages: one set of limits for the extension's chunker (it gets them in hello)
    #     and the host's (files, `ingest`) ---
    max_passage_words: int = knob(200, "words in a passage at most (Chrome's DocumentChunker)")
    min_passage_words: int = knob(5, "shorter passages are dropped (the title is kept apart)")
    max_passages_per_page: int = knob(30, "passages a browser page may send, its title included")
    max_passages_per_document: int = knob(2000, "passages of one file or `ingest` text")
    max_document_bytes: int = knob(5 * 1024 * 1024, "larger files are refused, not truncated")
    max_passage_chars: int = knob(2400, "a longer passage is cut here (200 very long words)")
    max_title_chars: int = knob(1000, "a longer title is cut here")
    max_url_chars: int = knob(8192, "longer URLs are refused")
    extract_budget_ms: int = knob(
        4000, "wall-clock time the extension reads one page in (the page's own busy time "
        "included); past it what was read is kept, or the page is skipped with the reason",
        lo=500, hi=60_000)
    extract_slice_ms: int = knob(
        8, "the extension reads a page this long at a time, then gives the page its thread "
        "back (its reading never makes a long task)", lo=2, hi=50)

    # --- capture gate (capture/gate.py): every page, whoever sends it. (Masking personal
    #     data is the person's recording choice: the extension keeps it, set_rules tells us.)
    content_check: bool = knob(
        True, "refuse pages whose own text looks like an account page (an inbox, a statement)",
        user=True, group="capture",
        label="Skip pages whose text looks like an account page (an inbox, a statement)")
    hold_unsure: bool = knob(
        True, "ask before recording a page the content check is unsure about: it waits, "
        "encrypted, for your keep / don't keep (off: such pages are not recorded)",
        user=True, group="capture",
        label="Ask me before recording a page that may be private (it waits, encrypted)")
    held_hours: float = knob(
        24.0, "hours a page held for your decision waits before it is wiped", lo=1.0, hi=24.0,
        user=True, group="capture", label="Hours a page waits for your decision before it is wiped")
    max_held_pages: int = knob(50, "pages held at once at most; past it unsure pages are not "
                               "recorded")

    # --- embedding ---
    default_embedding_model: str = knob("all-minilm-l6-v2-int8", "a new store's model")
    embed_batch_size: int = knob(16, "passages embedded per ONNX run")
    # One thread a run, two runs at once: on 2 cores a second intra-op thread spins and
    # waits at every step of a small run, two single-threaded runs keep both cores busy
    # (multilingual-e5-small embeds +17 % a second alone, +6 % in the re-embedding job,
    # within its run-to-run spread; a query costs ~2 ms more;
    # `rewind mcp`, beside the browser's host, embedded a query in 12 ms p50 with one
    # thread and 33 ms with two on a busy machine). docs/benchmarks.md, "The MCP server"
    # and "The multilingual model's runtime".
    onnx_threads: int = knob(1, "onnxruntime intra-op threads of one run", lo=1, hi=64)
    embed_lanes: int = knob(2, "ONNX runs at once when a call has several (a page's "
                            "passages, a re-embedding batch)", lo=1, hi=64)
    query_cache_size: int = knob(512, "query embeddings kept (LRU)")
    reembed_batch: int = knob(32, "passages a re-embedding step embeds and stores at once")
    reembed_yield_max_s: float = knob(
        2.0, "a re-embedding step waits at most this long for interactive requests to finish")
    reembed_disk_full_wait_s: float = knob(
        30.0, "with the disk full, the embedding job tries again after this long", lo=0.1,
        hi=3600.0)
    # The popup and options offer the multilingual model when this share of the pages
    # (of a history of at least multilingual_offer_min_pages) is in other languages.
    multilingual_model: str = knob("multilingual-e5-small", "the model offered for languages")
    multilingual_offer_share: float = knob(
        0.2, "share of pages not in English from which the multilingual model is offered",
        lo=0.0, hi=1.0)
    multilingual_offer_min_pages: int = knob(10, "pages before the language mix means much",
                                             lo=1, hi=100_000)

    # --- search ---
    default_limit: int = knob(10, "results a search shows when it does not say",
                              lo=1, hi=100, user=True, group="search",
                              label="Results to show")
    max_limit: int = knob(100, "results a search may ask for")
    candidates_per_retriever: int = knob(100, "passages each retriever hands to fusion")
    # "adaptive" measured best (docs/benchmarks.md); "rrf" is the baseline it replaced.
    fusion: str = knob("adaptive", "how keyword and semantic rankings are fused",
                       choices=("adaptive", "rrf"), user=True, group="search", advanced=True,
                       label="How matches on your words and on meaning are combined")
    rrf_k: int = knob(60, "the k of reciprocal rank fusion (fusion: rrf)",
                      lo=1, hi=1000, user=True, group="search", advanced=True,
                      label="With \"rrf\": how much lower-ranked pages still count "
                      "(higher: more)")
    rrf_alpha: float = knob(0.7, "weight of the semantic ranking in weighted RRF (fusion: rrf)",
                            lo=0.0, hi=1.0, user=True, group="search", advanced=True,
                            label="With \"rrf\": meaning over exact words (1: meaning only)")
    fusion_keyword_weight: float = knob(3.0, "adaptive fusion: BM25's vote per unit of margin")
    fusion_keyword_rescue: float = knob(
        0.5, "BM25 margin above which its top page leads (> 1: off)")
    fusion_remembered_max_terms: int = knob(
        4, "a query of at most this many words, none a stop word, reads as remembered words")
    fusion_remembered_gap: float = knob(1.0, "... and BM25 then votes as if it had this margin")
    # 0.05 cost semantic MRR .02 on the Python FAQ; 0.02 keeps a small preference for
    # pages that say more (docs/benchmarks.md).
    multi_passage_bonus: float = knob(
        0.02, "a page's score grows by this * log(its matching passages)",
        lo=0.0, hi=1.0, user=True, group="search", advanced=True,
        label="Lift for pages where several passages match")
    # 0.5 cost FAQ MRR .011 against 0.8, which still pushes near-duplicate pages (cosine
    # > 0.9) below distinct ones (docs/benchmarks.md).
    mmr_lambda: float = knob(0.8, "diversity of results: 1 = relevance only",
                             lo=0.0, hi=1.0, user=True, group="search", advanced=True,
                             label="Relevance over variety (1: most relevant only; lower: "
                             "fewer near-duplicates)")
    max_pages_per_domain: int = knob(3, "further pages of a site move down the results",
                                     lo=1, hi=100, user=True, group="search", advanced=True,
                                     label="Pages of one site before its others move down")
    # Recency only breaks near-ties: with visit times that say nothing of relevance, 0.02
    # cost no MRR where 0.2 did (bench/quality/quality.py, docs/benchmarks.md).
    recency_weight: float = knob(0.02, "a page read lately moves up: score * (1 + w * recency)",
                                 lo=0.0, hi=1.0, user=True, group="search", advanced=True,
                                 label="Lift for pages read lately")
    recency_half_life_days: float = knob(
        30.0, "recency halves every this many days since the last visit",
        lo=1.0, hi=3650.0, user=True, group="search", advanced=True,
        label="Days after which a visit counts half as recent")
    confidence_keyword_share: float = knob(
        0.5, "a result matching over this share of the best BM25 score is at least medium")
    title_boost: float = knob(3.0, "BM25 weight of a title match")
    url_boost: float = knob(2.0, "BM25 weight of a URL match")
    text_boost: float = knob(1.0, "BM25 weight of a passage match")
    snippet_chars: int = knob(240, "characters of a result's snippet")

    # --- answers and context (answers/; docs/answers.md) ---
    llm_model: str = knob("", "the answering model; '' = the largest installed",
                          user=True, group="answers", pattern=r"[a-z0-9][a-z0-9._-]{0,99}|",
                          label="Answering model (empty: the largest installed)")
    # Reading the prompt is compute-bound and scales with threads; writing the answer is
    # memory-bound: 1 thread writes as fast as 2 on an idle machine, and 2 spin-waiting
    # threads slow down ~8x when another process takes a core (docs/benchmarks.md).
    llm_threads: int = knob(1, "llama.cpp threads writing the answer")
    llm_batch_threads: int = knob(2, "llama.cpp threads reading the prompt")
    llm_seed: int = knob(0, "sampling seed: the same question on the same sources, same answer")
    llm_repeat_penalty: float = knob(1.15, "a 135M model loops on one sentence without it")
    answer_max_tokens: int = knob(
        120, "answer tokens at most with a 4,096-token context, more with a larger one "
        "(also capped by the model)", lo=16, hi=2048, user=True, group="answers",
        advanced=True, label="Longest answer, in tokens (about ¾ of a word each; doubled "
        "for the larger downloadable models)")
    answer_top_k: int = knob(5, "passages given to the model")
    answer_passages_per_page: int = knob(2, "passages of one page at most")
    answer_pages_per_domain: int = knob(3, "pages of one site at most")
    answer_quality_weight: float = knob(
        0.3, "score = (1 - w) relevance + w passage quality")
    answer_min_similarity: float = knob(
        0.3, "a passage below this cosine is not evidence for an answer")
    answer_min_keyword_share: float = knob(
        0.5, "without an embedder: a passage under this share of the best BM25 is not evidence")
    # Reading the prompt dominates the first words on 2 cores (~310 tokens/s). With
    # one-line source headers (answer_source_details off), 200 holds about as much page
    # text as 300 did with the long ones: on the Python FAQ first words p95 1293 -> 818 ms,
    # the gold answer cited as often; on four more question sets (three held out) against
    # 300 in one run: docs/benchmarks.md "First words and answers across question sets".
    # A larger model (more context) gets proportionally more; raise it with set_settings.
    answer_token_budget: int = knob(
        200, "source tokens given to a language model with a 4,096-token context, more with a "
        "larger one (more: better supported, slower)", lo=50, hi=32_768, user=True,
        group="answers", advanced=True, label="How much of your pages an answer reads, in "
        "tokens (more: better grounded, slower; doubled for the larger downloadable models)")
    # The two above were measured with the offline 135M model, loaded with 4,096 tokens of
    # context; a larger model a person pulled is loaded with more (models.json n_ctx) and
    # gets proportionally more sources and a longer answer (answer_budget/answer_length).
    answer_scale_ctx: int = knob(
        4096, "the context answer_token_budget and answer_max_tokens are for (never less)")
    # Each source's address, visits and reading time cost the 135M model ~45 prompt tokens
    # (it reads a URL and a date digit by digit) before its first word; by default a source
    # is its title, site and date. An AI tool's context (build_context) always has them all.
    answer_source_details: bool = knob(
        False, "each source in an answer's prompt also gives its address, visits and reading "
        "time (more prompt tokens before the first word)")
    # An answer made of the sources' own sentences is read by no model: only its candidate
    # sentences are embedded, so it may draw on more than the model's prompt holds. On the
    # tune sets 300 -> 700 tokens put the gold page among the sources 78 % -> 86 % of the
    # time (held out: 76 % -> 87 %); 1,000 added nothing (docs/benchmarks.md).
    extract_token_budget: int = knob(
        700, "source tokens an answer made of the sources' own sentences draws from",
        lo=50, hi=32_768)
    # The reader (answers/extractive.py) reads no prompt: it may look at more of a page
    # than the model can (a page's answer is often a few short passages further down).
    reader_passages: int = knob(12, "passages the reader picks an answer's quotes from")
    reader_passages_per_page: int = knob(8, "of them, from one page at most")
    # Answerable questions answered citing the gold page whose quote holds half the gold
    # answer's key words: 3/2 61 %, 4/3 65 %, 5/3 67 % on tune (held out 62 / 65 / 66 %;
    # bench/labs/reader_gate.py); 4/3 reads one sentence more for most of that.
    reader_sentences: int = knob(4, "sentences the reader quotes at most")
    reader_sentences_per_page: int = knob(3, "of them, from one page at most")
    tab_passages: int = knob(2, "best passages of the current tab added as sources")
    # Only a shortlist of the given text (the tab, build_context's raw context), by words
    # shared with the query, is embedded: a long page has hundreds of passages and
    # embedding them all would take seconds before the first word.
    provided_shortlist: int = knob(
        8, "passages of the given text embedded and ranked at most (those sharing the "
        "most words with the query)", lo=1, hi=2000)
    context_passages: int = knob(25, "passages build_context considers")
    context_token_budget: int = knob(1000, "build_context / `rewind context` without a budget")
    context_min_trim_tokens: int = knob(
        24, "a passage is trimmed into the room left if at least this much is left")
    # A shown sentence must be in its source's words (answers/grounding.py): 1.0 is every
    # word it adds to the question, inflection allowed. Fitted on the checker's labelled
    # set (bench/quality/checker.py, docs/benchmarks.md "The citation checker").
    citation_min_coverage: float = knob(
        1.0, "share of a sentence's words (beyond the question's) its source must have",
        lo=0.5, hi=1.0)
    # On the labelled set the floor kept out no near miss the words did not (0.0, 0.1 and
    # 0.3 all 0.9 % false accepts on dev) and hid true sentences (2.3 / 3.2 / 10.9 %); 0.1
    # stays as a guard against a page's words strung into nonsense.
    citation_min_similarity: float = knob(
        0.1, "and the sentence at least this close to the passage in meaning (MiniLM's "
        "scale): words of the page strung into another claim are not backed")
    citation_min_words: int = knob(
        3, "content words an extracted sentence needs (shorter: headings, fragments)")
    stream_flush_s: float = knob(0.05, "streamed text goes out at most this often")
    # A follow-up question reuses its thread's sources and turns, kept in memory.
    answer_threads_kept: int = knob(
        8, "follow-up threads an answerer keeps (the oldest is forgotten)", lo=1, hi=1000)
    # Facets (answers/facets.py, docs/answers.md "Facets"): off, because the offline 135M
    # model cannot split a question well and it costs one more model call before the answer.
    answer_facets: bool = knob(
        False, "split a question into facets first (needs a capable language model)",
        user=True, group="answers", advanced=True,
        label="Split a question into its parts first (slower; needs a larger answering model)")
    facet_count: int = knob(4, "facets at most, the question itself included",
                            lo=1, hi=8, user=True, group="answers", advanced=True,
                            label="Parts of a question at most, the question itself included")
    facet_max_tokens: int = knob(100, "tokens the model may write for the sub-questions")
    facet_default_importance: float = knob(0.5, "a sub-question the model gave no number for")
    facet_max_chars: int = knob(200, "a longer sub-question is cut (it becomes a query)")
    # Flash attention reads a prompt in fewer, fused steps: fewer waits between the two
    # threads, which is most of the time lost when another process holds a core
    # (bench/perf/first_words.py; docs/benchmarks.md "First words of an answer").
    llm_flash_attn: bool = knob(True, "llama.cpp's flash attention while reading the prompt "
                                "and writing the answer")

    # --- choosing an answering model (`rewind models recommend`, models/recommend.py) ---
    recommend_memory_share: float = knob(
        0.25, "share of the machine's memory an answering model may take (the browser, the "
        "system and the embedding model need the rest)")
    # A person waits about this long for an answer's first words: a 4B model's ~17 s on a
    # 2-core machine was too long to recommend (docs/answers.md, the ladder);
    # `rewind models recommend --patience S` asks for another limit.
    recommend_max_wait_s: float = knob(
        8.0, "a model whose first words would take longer than this (estimated) is not "
        "recommended", lo=1.0, hi=600.0)

    # --- store ---
    busy_timeout_s: float = knob(10.0, "SQLite waits this long for a lock")
    writer_lock_timeout_s: float = knob(10.0, "a second writer waits this long, then errors")

    # --- your data: retention (off by default; the oldest pages go first), encryption at
    #     rest (index/store/at_rest.py), the audit log (profile/audit.py), backups
    #     (control/backup.py) ---
    retention_max_age_days: int = knob(
        0, "forget pages not visited for this many days (0: keep every page)",
        lo=0, hi=36_500, user=True, group="retention",
        label="Forget pages not visited for this many days (0: keep every page)")
    retention_max_mb: int = knob(
        0, "keep the stored history (text, vectors, visits) under this many MB, forgetting "
        "the oldest pages first (0: no limit)", lo=0, hi=1_000_000, user=True, group="retention",
        label="Keep your history under this many MB, forgetting the oldest pages first "
        "(0: no limit)")
    retention_every_writes: int = knob(50, "writes between two retention checks")
    encrypt_at_rest: bool = knob(
        True, "seal titles, passages and vectors (AES-GCM) in a store that is not yet")
    audit_log_bytes: int = knob(1_000_000, "audit.log rotates at this size (2 backups)")
    forget_mark_days: float = knob(
        30.0, "a copy of a forgotten page visited before the forget is refused this long")
    backup_segment_bytes: int = knob(1_048_576, "a backup is written and checked in "
                                     "segments of this size (each its own hash or tag)")
    max_import_chunk_bytes: int = knob(
        4 * 1024 * 1024, "import_chunk.data, base64 characters (under the request limit)")

    # --- native host (native/; PROTOCOL.md documents every number) ---
    max_reply_frame_bytes: int = knob(
        1_048_576, "host -> browser frame, header included (Chrome kills the port above)")
    max_request_bytes: int = knob(
        8 * 1024 * 1024, "browser -> host frame; larger ones are refused (Chrome allows 64 MiB)")
    max_page_text_chars: int = knob(1_000_000, "index_page.page.text")
    max_query_chars: int = knob(2_000, "search.query, ask.question, build_context.query")
    max_context_chars: int = knob(200_000, "ask.page_text, build_context.raw_context")
    max_token_budget: int = knob(32_768, "build_context.token_budget")
    max_list_limit: int = knob(500, "list_pages.limit")
    max_history_visits: int = knob(2_000, "import_history.visits: addresses in one request")
    export_batch_pages: int = knob(100, "pages read from the store per export step")
    host_read_workers: int = knob(2, "searches in parallel with the writer and the slow lane")
    # glibc gives each thread a malloc arena of its own: over 3,000 requests the host's RSS
    # grew 16 % with the default, 3 % with two (bench/perf/soak.py, docs/benchmarks.md)
    host_malloc_arenas: int = knob(2, "malloc arenas of the host process (glibc)", lo=1, hi=64)
    host_queue_size: int = knob(256, "requests waiting per lane; the reader blocks beyond")
    host_exit_grace_s: float = knob(0.5, "on EOF, in-flight work gets this long")
    host_log_bytes: int = knob(1_000_000, "host.log rotates at this size (2 backups)")

    # --- resting (native/resting.py): the helper lives as long as the browser, so the models
    #     it loads for a question or a search are let go when unused and loaded again by the
    #     next request that needs them (bench/perf/rest.py measures what that costs) ---
    answer_model_idle_s: int = knob(
        120, "seconds the answering model stays loaded after its last use (the next question "
        "loads it again)", lo=1, hi=86_400, user=True, group="answers", advanced=True,
        label="Seconds the answering model stays in memory after a question (the next "
        "question loads it again)")
    embedder_idle_s: int = knob(
        600, "seconds the search model (and the vectors it reads) stays loaded after its last "
        "use (the next search loads it again)", lo=1, hi=86_400, user=True, group="search",
        advanced=True, label="Seconds the search model stays in memory after a search (the "
        "next search loads it again)")

    @property
    def max_request_passage_chars(self) -> int:
        """A passage longer than this is refused as hostile; shorter ones are cut to
        max_passage_chars (an extension of another version may cut a little later)."""
        return 8 * self.max_passage_chars

    def answer_budget(self, n_ctx: int | None) -> int:
        """answer_token_budget for a model loaded with `n_ctx` tokens of context."""
        return self._for_context(self.answer_token_budget, n_ctx)

    def answer_length(self, n_ctx: int | None) -> int:
        """answer_max_tokens for a model loaded with `n_ctx` tokens of context."""
        return self._for_context(self.answer_max_tokens, n_ctx)

    def _for_context(self, n: int, n_ctx: int | None) -> int:
        if not n_ctx or n_ctx <= self.answer_scale_ctx:
            return n
        return n * n_ctx // self.answer_scale_ctx

    def capture_limits(self) -> dict[str, int]:
        """The chunking limits the extension uses (sent in hello): one set for both sides; and
        the time it may spend reading a page, a slice at a time."""
        return {
            "max_passage_words": self.max_passage_words,
            "min_passage_words": self.min_passage_words,
            "max_passages_per_page": self.max_passages_per_page,
            "max_passage_chars": self.max_passage_chars,
            "max_title_chars": self.max_title_chars,
            "extract_budget_ms": self.extract_budget_ms,
            "extract_slice_ms": self.extract_slice_ms,
        }


def knobs() -> dict[str, tuple[dataclasses.Field, Knob]]:
    """Every Settings field with its Knob, in declaration order."""
    return {f.name: (f, f.metadata["knob"]) for f in dataclasses.fields(Settings)}


def value_type(f: dataclasses.Field, k: Knob) -> str:
    """"bool" | "int" | "float" | "choice" | "str" (the schema's type names)."""
    if k.choices is not None:
        return "choice"
    return {bool: "bool", int: "int", float: "float", str: "str"}[type(f.default)]


def user_schema() -> dict[str, dict[str, Any]]:
    """The settings a person may change, as `get_settings` returns them (options page)."""
    out: dict[str, dict[str, Any]] = {}
    for name, (f, k) in knobs().items():
        if not k.user:
            continue
        entry: dict[str, Any] = {"type": value_type(f, k), "default": f.default,
                                 "doc": k.doc, "group": k.group, "label": k.label or k.doc,
                                 "advanced": k.advanced}
        if k.lo is not None:
            entry["min"] = k.lo
        if k.hi is not None:
            entry["max"] = k.hi
        if k.choices is not None:
            entry["choices"] = list(k.choices)
        if k.pattern is not None:
            entry["pattern"] = k.pattern
        out[name] = entry
    return out


def check_user_value(name: str, value: Any) -> Any:
    """`value` for the user setting `name` (an integral float counts as an integer, as
    JavaScript sends it), or ValueError saying what is wrong. The one check of a setting:
    set_settings and the saved overrides both use it."""
    entry = knobs().get(name)
    if entry is None or not entry[1].user:
        raise ValueError("not a setting a person may change")
    return check_value(name, value)


def check_value(name: str, value: Any) -> Any:
    """`value` for the Settings field `name`, checked against its knob (type, range,
    choices, pattern), or ValueError saying what is wrong."""
    f, k = knobs()[name]
    kind = value_type(f, k)
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError("expected true or false")
        return value
    if kind == "choice":
        if value not in (k.choices or ()):
            raise ValueError(f"must be one of {', '.join(k.choices or ())}")
        return value
    if kind == "str":
        if not isinstance(value, str):
            raise ValueError(f"expected text, got {type(value).__name__}")
        if k.pattern is not None and not re.fullmatch(k.pattern, value):
            raise ValueError(f"{value[:100]!r} is not a valid value")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a number, got {type(value).__name__}")
    if kind == "int":
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(f"expected an integer, got {value}")
        value = int(value)
    else:
        value = float(value)
    if not (k.lo is None or k.lo <= value) or not (k.hi is None or value <= k.hi):
        raise ValueError(f"{value:g} is outside {k.lo:g}..{k.hi:g}")
    return value


def user_values(s: Settings) -> dict[str, Any]:
    return {name: getattr(s, name) for name in user_schema()}


# ---- paths ------------------------------------------------------------------------------

DEFAULT_PROFILE = "default"
_PROFILE_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def valid_profile(profile: str) -> bool:
    """Profile ids become directory names: keep them to a safe alphabet."""
    return bool(_PROFILE_RE.match(profile))


def app_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def profiles_dir() -> Path:
    return app_data_dir() / "profiles"


def data_dir(
    profile: str = DEFAULT_PROFILE, override: str | os.PathLike[str] | None = None
) -> Path:
    """Where a profile's store lives: --data-dir, else $REWIND_DATA_DIR, else per-user dir."""
    if override:
        return Path(override).expanduser()
    env = os.environ.get("REWIND_DATA_DIR")
    if env:
        return Path(env).expanduser()
    if not valid_profile(profile):
        raise ValueError(f"invalid profile id {profile!r}")
    return profiles_dir() / profile


def model_dir() -> Path:
    """Where model files are installed: $REWIND_MODEL_DIR, else the per-user data dir."""
    env = os.environ.get("REWIND_MODEL_DIR")
    if env:
        return Path(env).expanduser()
    return app_data_dir() / "models"


# ---- how this copy was installed ----------------------------------------------------------

# A source checkout: the package sits in <checkout>/host/rewind, beside build.py.
_CHECKOUT = Path(__file__).resolve().parents[2]


def source_checkout() -> Path | None:
    """The checkout this package runs from, or None when it was installed (a wheel)."""
    return _CHECKOUT if (_CHECKOUT / "build.py").is_file() else None


def setup_command() -> str:
    """The one command that installs the models and registers the host, as the person
    would type it here: `python3 build.py install` in a checkout, `rewind setup` else."""
    return "python3 build.py install" if source_checkout() else "rewind setup"
