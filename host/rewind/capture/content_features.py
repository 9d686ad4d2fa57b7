"""What the content check reads in a page's text: counts per passage, densities per window.

Counts (`COUNTS`, one row per passage, the title being a passage of its own) are what a
private screen is full of and an article is not, in any language: checked card numbers,
IBANs and national IDs (or their masks, when the text was redacted first), personal fields
with a value ("Geburtsdatum: ...", "生年月日：..."), masked account numbers, e-mail addresses,
phones, secrets and one-code lines, ledger lines (a date and an amount), clock and relative
times, interface phrases, lines listing files with their sizes, doses, lab values and
diagnosis codes, crypto amounts and addresses, search-result lines, greetings of a person,
lines repeating one record shape (a transaction, a message, a file, an appointment); a
person's particulars in any line, prose included (content_patterns.particulars: exact
amounts, full dates, long numbers, doses, message stamps); the words that address a reader,
that speak of the writer, and an article's framing, in the page's declared language
(`PAGE_LANGUAGE_GROUPS`); the topic words of each policy category (content_lexicon); and
what the text is made of: words
(a Chinese or Japanese word counts as two characters), lines, short lines, sentence lines,
code lines. Rows add up, so a window of passages is the sum of its rows.
`feature_matrix` turns a window's counts into numbers that do not grow with length: rates
per 1,000 words (smoothed by `PRIOR_WORDS`, so that one match in a 20-word page does not
look like a flood) and shares of lines. A browser page (at most 30 passages) is one window;
a long file is judged window by window (`windows`).
This module must never keep, log or send page text; it returns numbers only. It must stay
cheap: it runs on every page (the digit patterns run only on lines that hold a digit).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence

import numpy as np

from . import content_patterns as pat
from .content_lexicon import Hit, Lexicon, clean, is_cjk, lexicon, normalize
from .policy_file import load_policy
from .redact import MASKS, find_pii, url_spans

BASE_COUNTS = (
    "words", "lines", "short_lines", "sentence_lines", "code_lines", "record_lines",
    "number_lines",
    "strong_pii", "personal_fields", "masked_numbers", "emails", "phones", "secrets",
    "ledger_lines", "times", "ui_phrases", "file_lines", "dose_lines", "result_lines",
    "crypto_lines", "greetings", "signout_words", "signin_words", "account_words",
    "address_words", "self_words", "framing_words", *pat.PARTICULARS)
RATES = ("strong_pii", "personal_fields", "masked_numbers", "emails", "phones", "secrets",
         "ledger_lines", "times", "ui_phrases", "file_lines", "dose_lines", "result_lines",
         "crypto_lines", "greetings", "topic", "address_words", "self_words", "framing_words",
         "particulars")
SHARES = ("short_lines", "sentence_lines", "code_lines", "record_lines", "number_lines")
# How many kinds of a person's particulars a window shows at once: a record shows several (a
# date of birth, a dose and a case number), an article one at most (its example's amount).
KINDS = ("particular_kinds",)
_KINDS = (*pat.PARTICULARS, "times", "masked_numbers", "strong_pii", "personal_fields")
FEATURES = RATES + SHARES + KINDS
PRIOR_WORDS = 100  # rates are per 1,000 of (words + this)
WINDOW = 29  # passages judged together: what a browser page sends besides its title
SHORT_LINE = 6  # words; a line this short is interface, a label or a heading
RECORD_REPEATS = 3  # lines of one record shape that make a list of records
RECORD_LINE = 15  # words; a longer line is prose, whose dates, doses or fields are no record


TOPICS = tuple(c.id for c in load_policy().categories)  # one topic count per category
COUNTS = BASE_COUNTS + tuple(f"topic:{t}" for t in TOPICS)
_AT = {c: i for i, c in enumerate(COUNTS)}


def topics() -> tuple[str, ...]:
    return TOPICS


def _at() -> dict[str, int]:
    return _AT


_DIGIT = re.compile(r"\d")
_PII_HINT = re.compile(r"\d[\d \-.()/+\u00a0\u202f]{4,}\d")  # where a number can be personal
_MASKED_KEY = re.compile(r"\b[a-z]{2}-(?:[a-z]+-)?\.{3}[A-Za-z0-9]{4}\b")  # "sk-mw-...Q8aZ"
_SECRET = re.compile(r"(?<![\w/.=-])[A-Za-z0-9_\-]{20,}(?![\w/.-])")
# A line holding one code and nothing else: recovery codes, key ids.
_CODE_LINE = re.compile(r"(?=[^ ]*\d)(?=[^ ]*[a-zA-Z])[A-Za-z0-9]{4,}(?:-[A-Za-z0-9]{4,})+")
# Interface actions; a line made of them only ("Download · Print · Copy") is interface.
_ACTIONS = frozenset((
    "reply", "reply all", "forward", "compose", "delete", "revoke", "regenerate", "download",
    "print", "copy", "share", "edit", "archive", "export", "pay now", "place order", "transfer",
    "pay bills", "submit", "launch", "manage", "sign out", "log out", "view details",
    "buy it again", "track package", "copy username", "copy password", "deactivate", "cancel",
    "save"))
_ACTION_SPLIT = re.compile(r"[·•|]")
_SENTENCE_END = ".!?:;)\"'”’。！？」』）"
# Code: a call, an assignment or comparison, braces, a literal, a prompt, markup.
_CODE_CHARS = ("(", "{", "}", ";", "=", "`", ">>>", "->", "::", "</", "'", '"')
_CODE = re.compile(r"[A-Za-z_]\(|[{}`]|;$|['\"]\d|[=!<>]=|->|=>|>>>|</?[a-z]+>|::|\w=\w")
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]")
_FIELD_VALUE = re.compile(r"[:#№]|n°|nº|\d")
_SECTION = re.compile(r"^(?:[\dIVXivx]+[.)]|\d+(?:\.\d+)+\.?)\s")  # "28.1. ", "3) ", "IV. "


def line_words(line: str) -> float:
    """Words in a line; Chinese and Japanese, written without spaces, count two characters
    as a word."""
    if not is_cjk(line):
        return float(len(line.split()))
    cjk = len(_CJK_CHAR.findall(line))
    rest = len(_CJK_CHAR.sub(" ", line).split())
    return rest + cjk / 2


def _looks_secret(token: str) -> bool:
    """A random-looking key, not an identifier made of words ("iso_8859_5_to_koi8_r") nor
    a hash or hex literal as docs print them."""
    low = token.lower()
    if any(w in low for w in ("example", "your", "xxxx", "token", "key")):
        return False
    for part in re.split(r"[_\-]", token):
        if len(part) < 16 or re.fullmatch(r"(?:0?x)?[0-9a-f]+", part):
            continue
        if sum(c.isdigit() for c in part) >= 4 and sum(c.isalpha() for c in part) >= 4:
            return True
    return False


def _secrets(digit_lines: list[str]) -> int:
    """Secret-looking tokens outside URLs, and lines holding one code only."""
    n = sum(1 for ln in digit_lines if _CODE_LINE.fullmatch(ln))
    for ln in digit_lines:
        if any(len(w) >= 20 for w in ln.split()):
            urls = url_spans(ln)
            n += sum(1 for m in _SECRET.finditer(ln) if _looks_secret(m.group(0))
                     and not any(a <= m.start() < b for a, b in urls))
    return n


# A word's inclusive ending in brackets is no call: "nascido(a)", "Mitarbeiter(innen)".
_ENDING = re.compile(r"(?<=[^\W\d_])\((?:a|as|o|os|e|es|s|r|n|en|er|in|innen|ne|ra|ras|ice)\)",
                     re.IGNORECASE)


def _code(line: str) -> bool:
    if "(" in line:
        line = _ENDING.sub("", line)
    return any(c in line for c in _CODE_CHARS) and _CODE.search(line) is not None


def _action_line(line: str) -> bool:
    return all(p.strip().lower() in _ACTIONS for p in _ACTION_SPLIT.split(line))


def _digit_line_counts(row: np.ndarray, at: dict[str, int], originals: list[str],
                       lows: list[str], sizes: list[float]) -> None:
    """What only lines with a digit can hold: dates, amounts, times, sizes, doses..."""
    shapes: Counter = Counter()
    line_shapes = []
    for orig, low, n in zip(originals, lows, sizes, strict=True):
        clock = ":" in low and not _code(orig) and pat.TIME.search(low) is not None
        times = (len(pat.TIME.findall(low)) if clock else 0) + len(pat.RELATIVE.findall(low))
        row[at["times"]] += times
        row[at["masked_numbers"]] += pat.masked_numbers(low)
        # In a sentence too: a letter tells a person their balance, dose or case number.
        for name, n_found in zip(pat.PARTICULARS, pat.particulars(low), strict=True):
            row[at[name]] += n_found
        if n > RECORD_LINE:  # a sentence: its dates, amounts and doses are no record
            line_shapes.append(None)
            continue
        row[at["number_lines"]] += _DIGIT.search(_SECTION.sub("", low)) is not None
        money = pat.MONEY.search(low) is not None
        date = pat.has_date(low)
        size = pat.SIZE.search(low) is not None
        row[at["ledger_lines"]] += money and date
        row[at["file_lines"]] += size or pat.FILE_NAME.search(low) is not None
        row[at["dose_lines"]] += pat.DOSE.search(low) is not None
        row[at["crypto_lines"]] += pat.CRYPTO.search(low) is not None
        row[at["result_lines"]] += pat.RESULT_COUNT.search(low) is not None
        shape = (money, date, times > 0, size, 0 if n <= 3 else 1 if n <= 10 else 2)
        line_shapes.append(shape if (money or date or times or size) else None)
        if line_shapes[-1]:
            shapes[shape] += 1
    row[at["record_lines"]] += sum(1 for s in line_shapes if s and shapes[s] >= RECORD_REPEATS)


# Groups whose short words are another language's everyday ones ("je" is French "I" and Dutch
# "you", "mi" Spanish "my" and English "miles"): when the page says its language, only that
# language's entries count.
PAGE_LANGUAGE_GROUPS = ("address", "self", "framing")


def passage_counts(text: str, lex: Lexicon | None = None, lang: str = "") -> np.ndarray:
    """The counts (`COUNTS`) of one passage; `lang`: the page's declared language, if the
    lexicon has it."""
    at = _at()
    lex = lex or lexicon()
    row = np.zeros(len(at))
    lines = [s for s in (ln.strip() for ln in text.split("\n")) if s]
    if not lines:
        return row
    sizes = [line_words(ln) for ln in lines]
    row[at["words"]] = sum(sizes)
    row[at["lines"]] = len(lines)
    short = [n <= SHORT_LINE for n in sizes]
    row[at["short_lines"]] = sum(short)
    row[at["sentence_lines"]] = sum(1 for ln, n in zip(lines, sizes, strict=True)
                                    if n > SHORT_LINE and ln[-1] in _SENTENCE_END)
    row[at["code_lines"]] = sum(1 for ln in lines if _code(ln))
    # The lexicon, once over the passage; its hits go back to their lines.
    cleaned = clean("\n".join(lines))
    hits = lex.scan(cleaned)
    starts = [0] + [i + 1 for i, c in enumerate(cleaned) if c == "\n"]
    per_line: list[list] = [[] for _ in lines]
    topic_words: set[tuple[str, str]] = set()  # a topic counts its different words
    for h in hits:
        at_line = bisect_right(starts, h.start) - 1
        offset = starts[at_line]  # offsets within the line
        per_line[at_line].append(Hit(h.key, h.lang, h.start - offset, h.end - offset))
        key = h.key
        if key.startswith("cat:"):
            topic_words.add((key, cleaned[h.start:h.end]))
        elif key == "ui":
            row[at["ui_phrases"]] += 1
        elif key in PAGE_LANGUAGE_GROUPS:
            row[at[f"{key}_words"]] += not lang or h.lang == lang
        elif key in ("signout", "signin", "account"):
            row[at[f"{key}_words"]] += 1
    for key, _word in topic_words:
        row[at[f"topic:{key[4:]}"]] += 1
    cleaned_lines = cleaned.split("\n")
    for i, (ln, line_hits) in enumerate(zip(lines, per_line, strict=True)):
        if short[i] and (_action_line(ln) or lex.greets(cleaned_lines[i], line_hits)):
            row[at["ui_phrases"]] += 1
            row[at["greetings"]] += not _action_line(ln)
        fields = [h for h in line_hits if h.key == "fields"] if sizes[i] <= RECORD_LINE else []
        if fields:
            after = cleaned_lines[i][max(h.end for h in fields):]
            label_end = ln.lower()
            if after.strip() and (_FIELD_VALUE.search(after) or ":" in label_end
                                  or "：" in label_end):
                row[at["personal_fields"]] += 1
    # Masks the redaction left count as what they hide.
    kinds = {k: text.count(mask) for k, mask in MASKS.items()}
    if "..." in text:
        row[at["masked_numbers"]] += len(_MASKED_KEY.findall(text))
    digit = [i for i, ln in enumerate(lines) if _DIGIT.search(ln)]
    pii_lines = [ln for ln in lines if "@" in ln or (_DIGIT.search(ln) and _PII_HINT.search(ln))]
    for f in find_pii("\n".join(pii_lines)) if pii_lines else ():
        kinds[f.kind] += 1
    if digit:
        _digit_line_counts(row, at, [lines[i] for i in digit],
                           [normalize(lines[i]) for i in digit], [sizes[i] for i in digit])
        row[at["secrets"]] = _secrets([lines[i] for i in digit])
    row[at["result_lines"]] += sum(1 for ln in lines if pat.RESULT_LINE.match(ln.lower()))
    row[at["strong_pii"]] = kinds["card"] + kinds["iban"] + kinds["national_id"]
    row[at["emails"]] = kinds["email"]
    row[at["phones"]] = kinds["phone"]
    return row


_LINE_SHAPES = [_AT[c] for c in ("lines", "short_lines", "sentence_lines", "code_lines",
                                  "record_lines", "number_lines")]


def page_counts(title: str, passages: Sequence[str], lex: Lexicon | None = None,
                lang: str = "") -> np.ndarray:
    """One row of counts for the title and each passage (title first). The title's words
    count, its line does not: every page has one short title, and a one-paragraph page would
    otherwise be half short lines. `lang`: the page's declared language ("de", "zh-CN"), or
    "" when it declares none (`PAGE_LANGUAGE_GROUPS`)."""
    lex = lex or lexicon()
    known = lang.split("-")[0].lower()
    known = known if known in lex.langs else ""
    rows = np.array([passage_counts(t, lex, known) for t in [title, *passages]])
    rows[0, _LINE_SHAPES] = 0
    return rows


def window_starts(n_passages: int, size: int = WINDOW) -> list[int]:
    """Where each window of `size` passages starts: half-overlapping, the last one ending at
    the last passage; a page of at most `size` passages is one window."""
    if n_passages <= size:
        return [0]
    starts = list(range(0, n_passages - size + 1, max(1, size // 2)))
    if starts[-1] != n_passages - size:
        starts.append(n_passages - size)
    return starts


def windows(rows: np.ndarray, size: int = WINDOW) -> np.ndarray:
    """Summed counts of each window (`window_starts`), the title's row added to every one.
    `rows`: `page_counts`, the title's row first."""
    title, body = rows[0], rows[1:]
    cums = np.vstack([np.zeros(rows.shape[1]), np.cumsum(body, axis=0)])
    return np.array([cums[min(s + size, len(body))] - cums[s] + title
                     for s in window_starts(len(body), size)])


def topic_counts(counts: np.ndarray) -> np.ndarray:
    """Each window's topic-word counts, one column per policy category (`topics()`)."""
    at = _at()
    counts = np.atleast_2d(counts)
    return counts[:, [at[f"topic:{t}"] for t in topics()]]


def features(counts: np.ndarray) -> dict[str, float]:
    """Densities of one window's counts (`FEATURES`): they do not grow with its length."""
    return dict(zip(FEATURES, feature_matrix(counts)[0].tolist(), strict=True))


def feature_matrix(counts: np.ndarray, names: Sequence[str] = FEATURES) -> np.ndarray:
    """`features` of many windows at once, as a matrix (rows: windows, columns: `names`)."""
    at = _at()
    counts = np.atleast_2d(counts)
    words = counts[:, at["words"]]
    lines = np.maximum(1.0, counts[:, at["lines"]])
    cols = []
    for k in names:
        if k == "particular_kinds":
            cols.append((counts[:, [at[n] for n in _KINDS]] > 0).sum(axis=1).astype(float))
            continue
        if k == "particulars":
            c = counts[:, [at[n] for n in (*pat.PARTICULARS, "times")]].sum(axis=1)
        elif k == "topic":
            c = topic_counts(counts).max(axis=1)
        else:
            c = counts[:, at[k]]
        cols.append(np.log1p(1000.0 * c / (words + PRIOR_WORDS)) if k in RATES else c / lines)
    return np.stack(cols, axis=1)


def count(counts: np.ndarray, name: str) -> np.ndarray:
    """One count column of a windows' count matrix."""
    return np.atleast_2d(counts)[:, _at()[name]]
