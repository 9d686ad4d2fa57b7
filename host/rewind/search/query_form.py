"""The form of a query: a question, or a few words a person remembers from a page.

One definition in two languages: the extension's lib/query-form.js has the same rules
and word lists, pinned by the cases both test suites read (tests/data/query_forms.json).
`remembered_words` makes search trust BM25 (search/fusion.py); `looks_like_question` is
the side panel's cue to answer at once (auto-answer), here so that both sides agree.
This module must never look anything up: it reads the query's text only.
"""

from __future__ import annotations

import re

from ..text import DENSE, STOP_WORDS, spaced_words, terms

QUESTION_WORDS = ("what", "why", "how", "who", "when", "where", "which", "is", "are", "does",
                  "do", "did", "can", "could", "should", "explain", "compare")
# An ASCII word boundary, as the extension's regular expression has it.
_QUESTION_START = re.compile(rf"^(?:{'|'.join(QUESTION_WORDS)})(?![A-Za-z0-9_])")
# Function words of the languages search stems (German, French, Spanish, Italian, Portuguese,
# Dutch, Russian): "Gestión del sistema" is a phrase, not two words a person remembers. On
# the Spanish dev headings such phrases, read as remembered words, let BM25 override meaning
# in 3 of 4 cases. Words that are also English content words (die, den, con, sin, su, du,
# par, pour, van, met, come, la) are left out: no English query of the benches reads
# otherwise (Python FAQ questions and known items, English Debian Reference headings).
FUNCTION_WORDS: frozenset[str] = frozenset("""
der das des dem ein eine einer eines einem einen und oder mit von zu zum zur im ist
sind für auf bei aus nach wie wird werden nicht auch sich
le les un une des de et ou en au aux dans avec est sont ce cette ces qui que ne pas sur d l
el los las unos unas del y o para por es al como
il lo gli di da della dei delle e è nel nella che non
os um uma do dos das em na com não
het een op voor te niet dat
в и на с по для не что как это из к о от
""".split())


def looks_like_question(text: str) -> bool:
    """Three words or more, ending with "?" or starting with a question word."""
    s = text.strip().lower()
    if len(spaced_words(s)) < 3:
        return False
    return s.endswith("?") or _QUESTION_START.match(s) is not None


def term_count(word: str) -> int:
    """How many terms a word is to BM25: one, or for a run of a script written without
    spaces (Japanese, Chinese, Thai...) its character pairs (index/derived/analysis.py). A Japanese
    heading is one "word" between spaces but a dozen terms: not a few remembered words."""
    runs = DENSE.findall(word)
    rest = DENSE.sub("", word).strip("'-")
    return sum(max(1, len(r) - 1) for r in runs) + (1 if rest or not runs else 0)


def in_unspaced_script(text: str) -> bool:
    """Any run of a script written without spaces (Japanese, Chinese, Thai...)."""
    return DENSE.search(text) is not None


def remembered_words(text: str, max_terms: int) -> bool:
    """A few content words and no function words ("RNG-pruning HNSW") read as words a
    person remembers from a page; a sentence ("how does HNSW prune ...") does not."""
    words = terms(text)
    return (0 < sum(map(term_count, words)) <= max_terms
            and not any(w in STOP_WORDS or w in FUNCTION_WORDS for w in words))
