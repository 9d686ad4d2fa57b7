"""Personal data in page text: find it and mask it, keeping the kind ("[email]").

Finds e-mail addresses, payment card numbers (13-19 digits, Luhn, card-like grouping), IBANs
(country length and mod 97), phone numbers (international "+", North American, national
numbers starting with 0, and bare digit runs only after a word like "phone"), and national
IDs that carry a check or a strict shape: US SSN/ITIN, UK NINO, French NIR, Spanish DNI/NIE,
Indian Aadhaar (Verhoeff), and after a naming word Canadian SIN and Dutch BSN.
Ordinary numbers stay: years, dates, prices, versions, ISBNs, ports, ids inside URLs, math.

extension/content/redact.js is the same code in JavaScript (the content script masks passages
before they leave the page); tests/data/redaction_cases.json holds cases both must pass.
This module must never keep, log or send what it finds: it returns masked text and counts.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

MASKS = {
    "email": "[email]",
    "card": "[card number]",
    "iban": "[IBAN]",
    "national_id": "[national ID]",
    "phone": "[phone number]",
}


@dataclass(frozen=True)
class Finding:
    kind: str  # a key of MASKS
    start: int
    end: int


@dataclass(frozen=True)
class Redacted:
    text: str
    counts: dict[str, int] = field(default_factory=dict)  # kind -> how many were masked


_A = re.ASCII
_AI = re.ASCII | re.IGNORECASE
SEP = "[ .\\-\u00a0\u202f]"  # what people put between digit groups

_URL = re.compile("\\b(?:https?://|www\\.)[^ \t\n\r\f\v\u00a0\u2028\u2029<>\"']+", _AI)
_EMAIL = re.compile(
    r"(?<![\w.%+-])[a-z0-9][a-z0-9._%+-]{0,63}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+"
    r"[a-z]{2,24}(?![\w-]|\.[a-z0-9])", _AI)
_FILE_SUFFIX = frozenset(
    "png jpg jpeg gif svg webp ico bmp avif js mjs css html htm md txt pdf json xml py".split())
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}", _A)
_IBAN_HEAD = re.compile(r"[A-Z]{2}\d{2}(?: [A-Z0-9]{4})* \Z", _A)  # inside an IBAN-like run
_CARD = re.compile(
    r"(?<![\w.,/-])(?:\d{4}([ \-\u00a0]?)\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?"
    r"|\d{4}([ \-\u00a0])\d{6}\2\d{4,5}|\d{13,19})(?![\w-]|[.,]\d)", _A)
_SSN = re.compile(r"(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])", _A)
_NINO = re.compile(
    r"(?<![A-Za-z0-9])[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]"
    r"(?![A-Za-z0-9])", _A)
_NIR = re.compile(
    r"(?<![\w])[12] ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}"
    r"(?![\w])", _A)
_DNI = re.compile(r"(?<![\w-])(?:\d{8}|[XYZ]-?\d{7})-?[A-Z](?![\w-])", _A)
_AADHAAR = re.compile(r"(?<![\w-])[2-9]\d{3} \d{4} \d{4}(?![\w-])", _A)
_NINE_GROUPED = re.compile(r"(?<![\w-])\d{3}[ -]?\d{3}[ -]?\d{3}(?![\w-])", _A)
_SSN_SPACED = re.compile(r"(?<![\w-])\d{3} ?\d{2} ?\d{4}(?![\w-])", _A)

_PHONE_INTL = re.compile(r"(?<![\w+])\+[1-9](?:[ .\-\u00a0\u202f()]{0,2}\d){6,13}(?!\w)", _A)
_PHONE_NANP = re.compile(
    r"(?<![\w+-])(?:\+?1[ .\-]?)?(?:\([2-9]\d{2}\) ?|[2-9]\d{2}[ .\-\u00a0])"
    r"\d{3}[ .\-\u00a0]\d{4}(?![\w-]|[.,]\d)", _A)
_PHONE_ZERO = re.compile(
    rf"(?<![\w+.,/-])(?:\(0\d{{1,4}}\) ?|0\d{{1,4}}{SEP})\d{{2,8}}(?:{SEP}\d{{2,8}}){{0,3}}"
    r"(?![\w-]|[.,]\d)", _A)
_PHONE_BARE = re.compile(r"(?<![\w+.,/-])\+?\d{9,15}(?![\w-]|[.,]\d)", _A)

_PHONE_WORDS = re.compile(
    r"(phone|tel\b|tel\.|telephone|mobile|cell|fax|whatsapp|sms|text me|contact|ph\.|"
    r"t[eéÉ]l[eéÉ]phone|t[eéÉ]l\.|telefon|tel[eéÉ]fono|handy)[^.!?\n]{0,20}\Z", _AI)
_NOT_PHONE_WORDS = re.compile(
    r"(isbn|issn|doi|arxiv|version|ver\.|build|port|patent|pmid|[$€£¥]|"
    r"\bid)[ :#]*\Z", _AI)
_SSN_WORDS = re.compile(r"(ssn|social security|itin|tax id|taxpayer)[^.!?\n]{0,20}\Z", _AI)
_SIN_WORDS = re.compile(r"(\bsin\b|social insurance)[^.!?\n]{0,20}\Z", _AI)
_BSN_WORDS = re.compile(r"(bsn|burgerservicenummer|sofinummer)[^.!?\n]{0,20}\Z", _AI)

# IBAN lengths by country (ISO 13616 registry).
_IBAN_LENGTHS = dict(
    (entry[:2], int(entry[2:])) for entry in (
        "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DK18 "
        "DO28 EE20 EG29 ES24 FI18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 "
        "IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 MC27 MD24 ME22 MK19 MR27 "
        "MT31 MU30 NL18 NO15 PK24 PL28 PS29 PT25 QA29 RO24 RS22 SA24 SC31 SE24 SI19 SK24 SM27 "
        "ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20").split())
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
_NINO_BAD_PREFIXES = frozenset({"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"})
_VERHOEFF_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
_VERHOEFF_P = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8]]


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s, flags=_A)


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def iban_ok(text: str) -> bool:
    s = text.replace(" ", "")
    if _IBAN_LENGTHS.get(s[:2]) != len(s) or not s[2:4].isdigit():
        return False
    rearranged = s[4:] + s[:4]
    number = "".join(str(int(c, 36)) for c in rearranged)
    return int(number) % 97 == 1


def ssn_ok(text: str) -> bool:
    d = _digits(text)
    area, group, serial = int(d[:3]), int(d[3:5]), int(d[5:])
    if area >= 900:  # ITIN: 9xx with the group in its ranges
        return 50 <= group <= 65 or 70 <= group <= 88 or 90 <= group <= 92 or 94 <= group <= 99
    return area not in (0, 666) and group != 0 and serial != 0


def nir_ok(text: str) -> bool:
    s = text.replace(" ", "")
    body, key = s[:13], int(s[13:])
    body = body.replace("2A", "19").replace("2B", "18")
    return 97 - int(body) % 97 == key


def dni_ok(text: str) -> bool:
    s = text.replace("-", "")
    number = s[:-1]
    if number[0] in "XYZ":
        number = str("XYZ".index(number[0])) + number[1:]
    return _DNI_LETTERS[int(number) % 23] == s[-1]


def verhoeff_ok(digits: str) -> bool:
    c = 0
    for i, ch in enumerate(reversed(digits)):
        c = _VERHOEFF_D[c][_VERHOEFF_P[i % 8][int(ch)]]
    return c == 0


def bsn_ok(digits: str) -> bool:
    total = sum(int(d) * w for d, w in zip(digits[:8], range(9, 1, -1), strict=True))
    return int(digits) != 0 and (total - int(digits[8])) % 11 == 0


def _card_ok(text: str) -> str:
    """The card number in `text` (maybe without a trailing group), or ""."""
    groups = re.split(r"[ \-\u00a0]", text)
    candidates = [text]
    if len(groups) == 5:  # a 17-19 digit card, or 16 digits followed by some other number
        candidates.append(text[: len(text) - len(groups[-1]) - 1])
    for c in candidates:
        d = _digits(c)
        if 13 <= len(d) <= 19 and d[0] in "23456" and luhn_ok(d):
            return c
    return ""


def _iban_span(text: str, m: re.Match[str]) -> int:
    """Where the IBAN starting at m ends (its country's length, on a group boundary), or -1."""
    length = _IBAN_LENGTHS.get(m.group(0)[:2], 0)
    seen, end = 0, m.start()
    while seen < length and end < m.end():
        seen += text[end] != " "
        end += 1
    if seen < length or re.match(r"[A-Za-z0-9]", text[end: end + 1]):
        return -1
    return end if iban_ok(text[m.start(): end]) else -1


def _before(text: str, start: int, n: int = 30) -> str:
    return text[max(0, start - n): start]


def _phone_ok(text: str, m: re.Match[str]) -> bool:
    s = m.group(0)
    d = _digits(s)
    # A national number needs 10 digits (11 from "00"), or 9 after a word like "phone".
    least = 8 if s.startswith("+") else 11 if s.startswith("00") else 10
    if least == 10 and _PHONE_WORDS.search(_before(text, m.start())):
        least = 9
    if not least <= len(d) <= 15 or s.count("(") != s.count(")") or len(set(d)) < 3:
        return False
    if re.search(r"[ .\-\u00a0\u202f()]{3}|[.\-]{2}|^\d{2}[.\-/]\d{2}[.\-/]\d{4}", s):
        return False  # runs of separators, or a date
    if re.fullmatch(r"\d{3}(?: \d{3}){3,}", s):
        return False  # a list of three-digit numbers
    if not s.startswith("+") and (re.search(r"\d \Z", _before(text, m.start(), 2))
                                  or re.match(r" \d+ \d", text[m.end(): m.end() + 40])):
        return False  # one of a run of numbers (a table row, a sequence)
    return not (_NOT_PHONE_WORDS.search(_before(text, m.start(), 12))
                or _IBAN_HEAD.search(_before(text, m.start(), 40)))


def find_pii(text: str) -> list[Finding]:
    """Personal data in `text`, as non-overlapping spans in text order."""
    taken: list[Finding] = []  # sorted by start, never overlapping
    starts: list[int] = []
    urls = [(m.start(), m.end()) for m in _URL.finditer(text)]
    url_starts = [u[0] for u in urls]

    def in_url(a: int, b: int) -> bool:
        i = bisect.bisect_right(url_starts, a)
        return (i > 0 and urls[i - 1][1] > a) or (i < len(urls) and urls[i][0] < b)

    def add(kind: str, a: int, b: int) -> None:
        i = bisect.bisect_left(starts, a)
        if (i > 0 and taken[i - 1].end > a) or (i < len(taken) and taken[i].start < b):
            return
        starts.insert(i, a)
        taken.insert(i, Finding(kind, a, b))

    for m in _EMAIL.finditer(text):
        if m.group(0).rsplit(".", 1)[1].lower() in _FILE_SUFFIX:
            continue
        if re.match(r":[\w~/]", text[m.end(): m.end() + 2], _A):  # git@host:repo (scp)
            continue
        add("email", m.start(), m.end())
    for m in _IBAN.finditer(text):
        end = _iban_span(text, m)
        if end > 0:
            add("iban", m.start(), end)
    for m in _CARD.finditer(text):
        card = _card_ok(m.group(0))
        if (card and not (card.isdigit() and in_url(m.start(), m.end()))
                and not _IBAN_HEAD.search(_before(text, m.start(), 40))):
            add("card", m.start(), m.start() + len(card))
    for pattern, ok in ((_SSN, ssn_ok), (_NIR, nir_ok), (_DNI, dni_ok)):
        for m in pattern.finditer(text):
            if not in_url(m.start(), m.end()) and ok(m.group(0)):
                add("national_id", m.start(), m.end())
    for m in _NINO.finditer(text):
        if m.group(0)[:2] not in _NINO_BAD_PREFIXES and not in_url(m.start(), m.end()):
            add("national_id", m.start(), m.end())
    for m in _AADHAAR.finditer(text):
        if verhoeff_ok(_digits(m.group(0))) and not in_url(m.start(), m.end()):
            add("national_id", m.start(), m.end())
    for pattern, words, ok in ((_SSN_SPACED, _SSN_WORDS, ssn_ok),
                               (_NINE_GROUPED, _SIN_WORDS, lambda s: luhn_ok(_digits(s))),
                               (_NINE_GROUPED, _BSN_WORDS, lambda s: bsn_ok(_digits(s)))):
        for m in pattern.finditer(text):
            if words.search(_before(text, m.start())) and ok(m.group(0)):
                add("national_id", m.start(), m.end())
    for pattern in (_PHONE_INTL, _PHONE_NANP, _PHONE_ZERO):
        for m in pattern.finditer(text):
            if not in_url(m.start(), m.end()) and _phone_ok(text, m):
                add("phone", m.start(), m.end())
    for m in _PHONE_BARE.finditer(text):
        if (_PHONE_WORDS.search(_before(text, m.start())) and not in_url(m.start(), m.end())
                and _phone_ok(text, m)):
            add("phone", m.start(), m.end())
    return taken


def redact(text: str) -> Redacted:
    """`text` with every finding replaced by its mask, and how many of each kind."""
    findings = find_pii(text)
    if not findings:
        return Redacted(text, {})
    out, counts, pos = [], {}, 0
    for f in findings:
        out += [text[pos: f.start], MASKS[f.kind]]
        counts[f.kind] = counts.get(f.kind, 0) + 1
        pos = f.end
    out.append(text[pos:])
    return Redacted("".join(out), counts)
