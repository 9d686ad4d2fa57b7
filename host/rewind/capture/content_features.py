"""What the content check reads in a page's text: counts per passage, densities per window.

Counts (`COUNTS`, one row per passage, the title being a passage of its own) are what an
account page is full of and an article is not: checked card numbers, IBANs and national IDs
(or their masks, when the text was redacted first), personal fields with a value ("Date of
birth: ..."), masked account numbers ("••••4471", "ending in 5521"), e-mail addresses, phone
numbers, secrets and one-code lines, ledger lines (a date and an amount), clock times,
account-interface phrases ("available balance", "last used") and lines made only of
interface actions; and what the text is made of: words, lines, short lines, sentence lines,
code lines. Rows add up, so a window of passages is the sum of its rows.
`features` turns a window's counts into numbers that do not grow with length: rates per
1,000 words (smoothed by `PRIOR_WORDS`, so that one match in a 20-word page does not look
like a flood) and shares of lines. A browser page (at most 30 passages) is one window; a
long file is judged window by window (`windows`).
This module must never keep, log or send page text; it returns numbers only. It must stay
cheap: it runs on every page (the regular expressions run only on lines that can match).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from .redact import MASKS, find_pii, url_spans

COUNTS = ("words", "lines", "short_lines", "sentence_lines", "code_lines", "strong_pii",
          "personal_fields", "masked_numbers", "emails", "phones", "secrets", "ledger_lines",
          "times", "ui_phrases")
_AT = {c: i for i, c in enumerate(COUNTS)}
RATES = ("strong_pii", "personal_fields", "masked_numbers", "emails", "phones", "secrets",
         "ledger_lines", "times", "ui_phrases")
SHARES = ("short_lines", "sentence_lines", "code_lines")
FEATURES = RATES + SHARES
PRIOR_WORDS = 100  # rates are per 1,000 of (words + this)
WINDOW = 29  # passages judged together: what a browser page sends besides its title
SHORT_LINE = 6  # words; a line this short is interface, a label or a heading

_I = re.IGNORECASE
_DIGIT = re.compile(r"\d")
_PII_HINT = re.compile(r"\d[\d \-.()/+\u00a0\u202f]{4,}\d")  # where a number can be personal
# Masked account numbers: "••••4471", "XXX-XX-3390", "ending in 5521", "x9038".
_MASK_RUN = re.compile(r"(?<![A-Za-z])(?:[•●*xX]{2,}[ -]?){1,3}\d{2,4}\b")
_MASK_ENDING = re.compile(r"\bend(?:ing|s)(?: in| with)? \d{4}\b")
_MASK_X = re.compile(r"[xX]\d{4}\b")  # not after a letter, digit or "\" (hex escapes)
_MASKED_KEY = re.compile(r"\b[a-z]{2}-(?:[a-z]+-)?\.{3}[A-Za-z0-9]{4}\b")  # "sk-mw-...Q8aZ"
_SECRET = re.compile(r"(?<![\w/.=-])[A-Za-z0-9_\-]{20,}(?![\w/.-])")
# A line holding one code and nothing else: recovery codes, key ids.
_CODE_LINE = re.compile(r"(?=[^ ]*\d)(?=[^ ]*[a-zA-Z])[A-Za-z0-9]{4,}(?:-[A-Za-z0-9]{4,})+")
# Words without which no personal field can match (most pages have none: the regex is skipped).
_FIELD_WORDS = ("birth", "dob", "mrn", "member id", "ssn", "social security", "passport n",
                "insurance number", "employee id", "student id", "patient id", "customer id",
                "tax id", "account n", "loan n", "claim n", "policy n", "routing", "license n",
                "licence n", "driver")
# A personal-data field with its value ("Date of birth: 07/02/1989", "Member ID: NSH 448").
_PERSONAL_FIELD = re.compile(
    r"(?i:\b(?:date of birth|dob|mrn|member id|ssn|social security (?:number|no\.?)"
    r"|passport (?:number|no\.?)|national insurance number"
    r"|(?:employee|student|patient|customer|tax) id|account (?:number|no\.?)"
    r"|loan number|claim number|policy number|routing(?: number)?|licen[cs]e (?:number|no\.?)"
    r"|driver'?s licen[cs]e))\s*(?::|#)?\s*[A-Z0-9*•]")  # the value: case matters
# Interface actions; a line made of them only ("Download · Print · Copy") is interface.
_ACTIONS = frozenset((
    "reply", "reply all", "forward", "compose", "delete", "revoke", "regenerate", "download",
    "print", "copy", "share", "edit", "archive", "export", "pay now", "place order", "transfer",
    "pay bills", "submit", "launch", "manage", "sign out", "log out", "view details",
    "buy it again", "track package", "copy username", "copy password", "deactivate", "cancel",
    "save"))
_ACTION_SPLIT = re.compile(r"[·•|]")
_MONEY = re.compile(r"[$€£¥]\s?\d|\b\d[\d.,]*\s?(?:€|EUR|USD|GBP|CHF)\b")
_DATE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2}\b|\b\d{1,2} "
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b\d{1,2}[/.]\d{1,2}\b"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b(?:today|yesterday)\b", _I)
# A clock time, not a piece of a MAC or IPv6 address ("08:00:2b:01:02:03").
_TIME = re.compile(r"(?<![\w:.])\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\b\.?)?(?![\w:])", _I)
# Account-interface phrases, matched in the lower-cased text (the leading \b and the
# lookahead on the first letters let most words fail at once: this runs on every page).
_UI_PHRASES = re.compile(r"\b(?=[abcdelmnoprstwy])(?:" + "|".join((
    r"welcome(?: back)?,", r"last (?:sign[- ]?in|log[- ]?in|used|active|contacted)\b",
    r"signed in as\b", r"this device\b", r"current session\b", r"available (?:balance|credit)\b",
    r"(?:amount|balance|payment) due\b", r"due date\b", r"minimum payment\b", r"new balance\b",
    r"(?:date of birth|dob|mrn|member id)\b", r"routing (?:number|no\b|#)",
    r"(?:account|loan|policy|claim|employee|student|application|order) (?:number|no\.?|id|#)",
    r"(?:revoke|regenerate|deactivate)\b", r"copy (?:password|username)\b",
    r"(?:autopay|auto refill|direct deposit)\b", r"(?:ytd|year-to-date)\b",
    r"ready for (?:pickup|collection)\b", r"this is not a bill\b",
    r"your (?:balance|recent transactions|refund|results|prescriptions|orders)\b")) + ")")
_GREETING = re.compile(
    r"(?:good (?:morning|afternoon|evening)|hello|hi|welcome),? [A-Z][a-z]+,?$", _I)
_SENTENCE_END = ".!?:;)\"'”’"
# Code: a call, an assignment or comparison, braces, a literal, a prompt, markup.
_CODE_CHARS = ("(", "{", "}", ";", "=", "`", ">>>", "->", "::", "</", "'", '"')
_CODE = re.compile(r"[A-Za-z_]\(|[{}`]|;$|['\"]\d|[=!<>]=|->|=>|>>>|</?[a-z]+>|::|\w=\w")


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


def _masked_numbers(digit_lines: list[str], numeric: str) -> int:
    runs = sum(len(_MASK_RUN.findall(ln)) for ln in digit_lines
               if "•" in ln or "●" in ln or "**" in ln or "xx" in ln.lower())
    xs = sum(1 for m in _MASK_X.finditer(numeric)
             if m.start() == 0 or not (numeric[m.start() - 1].isalnum()
                                       or numeric[m.start() - 1] in "\\_"))
    return runs + xs + len(_MASK_ENDING.findall(numeric))


def _secrets(digit_lines: list[str]) -> int:
    """Secret-looking tokens outside URLs, and lines holding one code only."""
    n = sum(1 for ln in digit_lines if _CODE_LINE.fullmatch(ln))
    for ln in digit_lines:
        if any(len(w) >= 20 for w in ln.split()):
            urls = url_spans(ln)
            n += sum(1 for m in _SECRET.finditer(ln) if _looks_secret(m.group(0))
                     and not any(a <= m.start() < b for a, b in urls))
    return n


def _code(line: str) -> bool:
    return any(c in line for c in _CODE_CHARS) and _CODE.search(line) is not None


def _action_line(line: str) -> bool:
    return all(p.strip().lower() in _ACTIONS for p in _ACTION_SPLIT.split(line))


def passage_counts(text: str) -> np.ndarray:
    """The counts (`COUNTS`) of one passage."""
    row = np.zeros(len(COUNTS))
    lines = [s for s in (ln.strip() for ln in text.split("\n")) if s]
    if not lines:
        return row
    lengths = [len(ln.split()) for ln in lines]
    row[_AT["words"]] = sum(lengths)
    row[_AT["lines"]] = len(lines)
    short = [ln for ln, n in zip(lines, lengths, strict=True) if n <= SHORT_LINE]
    row[_AT["short_lines"]] = len(short)
    row[_AT["sentence_lines"]] = sum(1 for ln, n in zip(lines, lengths, strict=True)
                                     if n > SHORT_LINE and ln[-1] in _SENTENCE_END)
    row[_AT["code_lines"]] = sum(1 for ln in lines if _code(ln))
    low = text.lower()
    row[_AT["ui_phrases"]] = (len(_UI_PHRASES.findall(low))
                              + sum(1 for ln in short if _action_line(ln) or _GREETING.match(ln)))
    # Masks the redaction left count as what they hide.
    kinds = {k: text.count(mask) for k, mask in MASKS.items()}
    if "..." in text:
        row[_AT["masked_numbers"]] += len(_MASKED_KEY.findall(text))
    if any(w in low for w in _FIELD_WORDS):
        row[_AT["personal_fields"]] = len(_PERSONAL_FIELD.findall(text))
    digit_lines = [ln for ln in lines if _DIGIT.search(ln)]
    pii_lines = ([ln for ln in lines if "@" in ln or _PII_HINT.search(ln)] if digit_lines
                 else [ln for ln in lines if "@" in ln])
    for f in find_pii("\n".join(pii_lines)) if pii_lines else ():
        kinds[f.kind] += 1
    if digit_lines:
        numeric = "\n".join(digit_lines)
        row[_AT["masked_numbers"]] += _masked_numbers(digit_lines, numeric)
        # Times in code and literals are examples (a timestamp in SQL, a log format).
        row[_AT["times"]] = sum(len(_TIME.findall(ln)) for ln in digit_lines
                                if ":" in ln and not _code(ln))
        row[_AT["ledger_lines"]] = sum(1 for ln in digit_lines
                                       if _MONEY.search(ln) and _DATE.search(ln))
        row[_AT["secrets"]] = _secrets(digit_lines)
    row[_AT["strong_pii"]] = kinds["card"] + kinds["iban"] + kinds["national_id"]
    row[_AT["emails"]] = kinds["email"]
    row[_AT["phones"]] = kinds["phone"]
    return row


def page_counts(title: str, passages: Sequence[str]) -> np.ndarray:
    """One row of counts for the title and each passage (title first)."""
    return np.array([passage_counts(t) for t in [title, *passages]])


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
    cums = np.vstack([np.zeros(len(COUNTS)), np.cumsum(body, axis=0)])
    return np.array([cums[min(s + size, len(body))] - cums[s] + title
                     for s in window_starts(len(body), size)])


def features(counts: np.ndarray) -> dict[str, float]:
    """Densities of one window's counts (`FEATURES`): they do not grow with its length."""
    return dict(zip(FEATURES, feature_matrix(counts)[0].tolist(), strict=True))


def feature_matrix(counts: np.ndarray, names: Sequence[str] = FEATURES) -> np.ndarray:
    """`features` of many windows at once, as a matrix (rows: windows, columns: `names`)."""
    counts = np.atleast_2d(counts)
    words = counts[:, _AT["words"]]
    lines = np.maximum(1.0, counts[:, _AT["lines"]])
    cols = []
    for k in names:
        c = counts[:, _AT[k]]
        cols.append(np.log1p(1000.0 * c / (words + PRIOR_WORDS)) if k in RATES else c / lines)
    return np.stack(cols, axis=1)
