"""The form of a query: a question, or a few words a person remembers from a page.

One definition in two languages: the extension's lib/query-form.js has the same rules
and word lists, pinned by the cases both test suites read (tests/data/query_forms.json).
`remembered_words` makes search trust BM25 (search/fusion.py); `looks_like_question` is
the side panel's cue to answer at once (auto-answer), here so that both sides agree.
This module must never look anything up: it reads the query's text only.
"""

from __future__ import annotations

import re

from ..text import STOP_WORDS, spaced_words, terms

QUESTION_WORDS = ("what", "why", "how", "who", "when", "where", "which", "is", "are", "does",
                  "do", "did", "can", "could", "should", "explain", "compare")
# An ASCII word boundary, as the extension's regular expression has it.
_QUESTION_START = re.compile(rf"^(?:{'|'.join(QUESTION_WORDS)})(?![A-Za-z0-9_])")


def looks_like_question(text: str) -> bool:
    """Three words or more, ending with "?" or starting with a question word."""
    s = text.strip().lower()
    if len(spaced_words(s)) < 3:
        return False
    return s.endswith("?") or _QUESTION_START.match(s) is not None


def remembered_words(text: str, max_terms: int) -> bool:
    """A few content words and no function words ("RNG-pruning HNSW") read as words a
    person remembers from a page; a sentence ("how does HNSW prune ...") does not."""
    words = terms(text)
    return 0 < len(words) <= max_terms and not any(w in STOP_WORDS for w in words)
