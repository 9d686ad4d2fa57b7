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
    # --- passages (host-side chunking; the extension's chunker uses the same numbers) ---
    max_passage_words: int = 200  # Chrome's DocumentChunker
    min_passage_words: int = 5  # shorter passages are dropped (the title is kept apart)
    max_passages_per_page: int = 30  # pages sent by the browser
    max_passages_per_document: int = 2000  # `ingest` / `rewind index` of a long file
    max_document_bytes: int = 5 * 1024 * 1024  # larger files are refused, not truncated
    max_passage_chars: int = 4000  # a passage longer than this is cut (hostile input)
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
    multi_passage_bonus: float = 0.05  # * log(matching passages of the page), seed 001
    mmr_lambda: float = 0.5
    max_pages_per_domain: int = 3  # soft cap: further pages of a domain move down
    title_boost: float = 3.0
    url_boost: float = 2.0
    text_boost: float = 1.0
    snippet_chars: int = 240

    # --- store ---
    busy_timeout_s: float = 10.0  # SQLite waits this long for a lock
    writer_lock_timeout_s: float = 10.0  # a second writer waits this long, then errors

    # --- native host (protocol.py, host.py; PROTOCOL.md documents every number) ---
    max_reply_frame_bytes: int = 1_048_576  # host -> browser, header included: Chrome kills
    #                                         the port on a larger frame
    max_request_bytes: int = 8 * 1024 * 1024  # browser -> host frame; larger ones are refused
    #                                           and skipped (Chrome itself allows 64 MiB)
    max_request_passage_chars: int = 20_000  # refused above; the engine cuts at max_passage_chars
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
