"""Every tunable of the host in one place, with one default each.

`Settings` is frozen: code receives a Settings object and never reads globals,
so tests override a field with `dataclasses.replace(Settings(), field=...)`.
Paths (data and model directories) are resolved here too, once.
This module must never import the heavy stages (numpy, onnxruntime, tantivy).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "rewind"


@dataclass(frozen=True)
class Settings:
    # --- passages: the one place for chunking limits. The extension's chunker receives
    # them in hello's `capture` (CAPTURE_LIMITS); the protocol's limits derive from them. ---
    max_passage_words: int = 200  # Chrome's DocumentChunker
    min_passage_words: int = 5  # shorter passages are dropped (the title is kept apart)
    max_passages_per_page: int = 30  # a page from the browser, its title passage included
    max_passages_per_document: int = 2000  # `ingest` / `rewind index` of a long file
    max_document_bytes: int = 5 * 1024 * 1024  # larger files are refused, not truncated
    max_passage_chars: int = 2400  # 200 long words; the protocol refuses longer passages
    max_title_chars: int = 1000
    max_url_chars: int = 8192

    # --- embedding ---
    default_embedding_model: str = "all-minilm-l6-v2-int8"
    embed_batch_size: int = 16
    onnx_threads: int = 2
    query_cache_size: int = 512

    # --- search ---
    default_limit: int = 10
    max_limit: int = 100
    candidates_per_retriever: int = 100  # passages each retriever hands to fusion
    fusion: str = "adaptive"  # "adaptive" (measured best, docs/benchmarks.md) or "rrf"
    rrf_k: int = 60
    rrf_alpha: float = 0.7  # weight of the semantic ranking in weighted RRF
    fusion_keyword_weight: float = 3.0  # adaptive fusion: BM25's vote per unit of its margin
    fusion_keyword_rescue: float = 0.5  # BM25 margin above which its top page leads (>1: off)
    fusion_remembered_max_terms: int = 4  # up to this many words, none a stop word: ...
    fusion_remembered_gap: float = 1.0  # ... BM25 votes as if it had this margin
    # * log(matching passages of the page). Seed 001 had 0.05; on the Python FAQ it cost
    # semantic MRR .02, 0.02 keeps a small preference for pages that say more (benchmarks.md).
    multi_passage_bonus: float = 0.02
    # 1 = relevance only. 0.5 (the value) cost FAQ MRR .011 against 0.8, which still
    # pushes near-duplicate pages (cosine > 0.9) below distinct ones (docs/benchmarks.md).
    mmr_lambda: float = 0.8
    max_pages_per_domain: int = 3  # soft cap: further pages of a domain move down
    title_boost: float = 3.0
    url_boost: float = 2.0
    text_boost: float = 1.0
    snippet_chars: int = 240

    # --- answers and context (context.py, answer.py, llm.py; docs/answers.md) ---
    llm_model: str = ""  # "" = the largest installed LLM of models.json (a pulled one wins)
    # llama.cpp threads. Reading the prompt is compute-bound and scales with threads;
    # writing the answer is memory-bound: 1 thread writes as fast as 2 on an idle machine,
    # and 2 spin-waiting threads slow down ~8x when another process takes a core (measured:
    # docs/benchmarks.md, answers).
    llm_threads: int = 1  # generation
    llm_batch_threads: int = 2  # prompt processing
    llm_seed: int = 0  # fixed sampling seed: the same question on the same sources, same answer
    llm_repeat_penalty: float = 1.15  # a 135M model loops on one sentence without it
    answer_max_tokens: int = 120  # generated tokens at most (also capped by the model spec)
    answer_top_k: int = 5  # passages given to the model (seed 001)
    answer_candidates: int = 50  # passages each retriever hands to answer retrieval
    answer_passages_per_page: int = 2  # seed 001: max passages per page
    answer_pages_per_domain: int = 3  # seed 001: max pages per domain
    answer_quality_weight: float = 0.3  # score = (1 - w) relevance + w passage quality (seed 001)
    answer_min_similarity: float = 0.3  # a passage below this cosine (and no keyword hit) is
    #                                     not evidence: with none left, no model is run at all
    # Source tokens packed for the model. Reading the prompt dominates the first token on
    # 2 cores (~310 tokens/s): with the offline 135M model, 600 gave first token 1.9 s p50
    # and 42 % supported answers, 300 gave 0.75 s and 28 % (same prompt; docs/benchmarks.md).
    # A larger pulled model answers better from the same sources: raise it with set_settings.
    answer_token_budget: int = 300
    tab_passages: int = 2  # best passages of the current tab added as sources
    context_token_budget: int = 1000  # build_context / `rewind context` without a budget
    context_min_trim_tokens: int = 24  # a passage is trimmed into the room left if at least
    #                                    this much is left; less, and smaller ones are tried
    citation_overlap_weight: float = 0.5  # support = (1 - w) cosine + w word overlap
    citation_support: float = 0.45  # support at or above which a source backs a sentence
    citation_clear: float = 0.55  # ... and at or above which a missing citation is added
    citation_min_overlap: float = 0.5  # and at least this share of the sentence's words must
    #                                    be in the source (a made-up detail adds new words) ...
    citation_strong_similarity: float = 0.8  # ... unless the meaning is this close (cosine)
    citation_min_words: int = 3  # an extractive answer uses sentences with at least this many
    #                              content words (shorter ones are headings and fragments)
    stream_flush_s: float = 0.05  # streamed text goes out at most this often (frames)
    # Facets (facets.py, seed 000): the LLM splits the question, each part is retrieved and
    # gets a share of answer_token_budget by importance. Off: the offline 135M model cannot
    # split a question well, and it costs one more model call before the answer.
    answer_facets: bool = False
    facet_count: int = 4  # facets at most, the question itself (always kept) included
    facet_max_tokens: int = 100  # tokens the model may write for the sub-questions (~25 each)
    facet_default_importance: float = 0.5  # a sub-question the model gave no number for
    facet_max_chars: int = 200  # a longer sub-question is cut (it becomes a search query)

    # --- store ---
    busy_timeout_s: float = 10.0  # SQLite waits this long for a lock
    writer_lock_timeout_s: float = 10.0  # a second writer waits this long, then errors

    # --- native host (protocol.py, host.py; PROTOCOL.md documents every number) ---
    max_reply_frame_bytes: int = 1_048_576  # host -> browser, header included: Chrome kills
    #                                         the port on a larger frame
    max_request_bytes: int = 8 * 1024 * 1024  # browser -> host frame; larger ones are refused
    #                                           and skipped (Chrome itself allows 64 MiB)
    max_page_text_chars: int = 1_000_000  # index_page.page.text (no passages)
    max_query_chars: int = 2_000  # search.query, ask.question, build_context.query
    max_context_chars: int = 200_000  # ask.page_text, build_context.raw_context
    max_token_budget: int = 32_768  # build_context.token_budget
    max_list_limit: int = 500  # list_pages.limit
    export_batch_pages: int = 100  # pages read from the store per export step
    host_read_workers: int = 2  # searches/stats in parallel with the writer and the slow lane
    host_queue_size: int = 256  # requests waiting per lane; the reader blocks beyond it
    host_exit_grace_s: float = 0.5  # on EOF, in-flight work gets this long, then the host exits
    host_log_bytes: int = 1_000_000  # host.log rotates at this size (2 backups)


# The Settings fields the extension's chunker must use (hello's `capture`, PROTOCOL.md).
CAPTURE_LIMITS = (
    "max_passage_words",
    "min_passage_words",
    "max_passages_per_page",
    "max_passage_chars",
    "max_title_chars",
)

DEFAULT_PROFILE = "default"
_PROFILE_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def valid_profile(profile: str) -> bool:
    """Profile ids become directory names: keep them to a safe alphabet."""
    return bool(_PROFILE_RE.match(profile))


def app_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


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
    return app_data_dir() / "profiles" / profile


def model_dir() -> Path:
    """Where model files are installed: $REWIND_MODEL_DIR, else the per-user data dir."""
    env = os.environ.get("REWIND_MODEL_DIR")
    if env:
        return Path(env).expanduser()
    return app_data_dir() / "models"
