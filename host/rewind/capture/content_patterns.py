"""The shapes of per-person records, in any language: dates, amounts, clock and relative times,
file sizes and names, medication doses and lab values, diagnosis codes, crypto addresses,
masked account numbers and search-result lines.

Each pattern reads one line in lower case (content_lexicon.normalize: NFKC, so full-width
digits are ASCII) and says only whether, or how often, the shape is there. Month names come
from lexicon.json, so a new language's dates need no code. Numbers are written as their
countries write them: 1,234.56 $, 1.234,56 €, 1 234,56 ₽, 12,000円, ¥13,184.40, R$ 5.800,00.
This module must never keep or return text; it must stay cheap (callers run the patterns only
on lines that hold a digit).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .content_lexicon import month_names

_CUR = (r"(?:[$€£¥₽₩₹₺₴]|r\$|us\$|chf|eur|usd|gbp|jpy|rub|brl|cny|rmb|sek|nok|dkk|pln|czk|"
        r"huf|円|元|руб\.?|р\.)")
_NUM = r"\d{1,3}(?:[.,\u00a0\u202f' ]\d{3})*(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"
MONEY = re.compile(
    rf"{_CUR}\s?[-+−]?\s?(?:{_NUM})(?!\d)|(?<![\w.,])[-+−]?\s?(?:{_NUM})\s?{_CUR}(?![a-z])"
    r"|(?<![\w.,])[-+−]\s?\d{1,3}(?:[.,\u00a0\u202f ]\d{3})*[.,]\d{2}(?![\d%])"
    r"|(?<![\w.,])\d{1,3}(?:[.\u00a0\u202f ]\d{3})+,\d{2}(?![\d%])")
_NUMERIC_DATE = (r"(?<![\d.,])(?:\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})|\d{4}[./-]\d{1,2}[./-]"
                 r"\d{1,2}|\d{1,2}[./]\d{1,2}\.?)(?![\d,])|\d{4}年\d{1,2}月\d{1,2}日|"
                 r"\d{1,2}月\d{1,2}日")
# A clock time as people write it, not a piece of a MAC or IPv6 address ("08:00:2b:01:02:03")
# nor a machine's stamp with seconds (a log line, a page's "last updated 11:07:41").
TIME = re.compile(r"(?<![\w:.])\d{1,2}:\d{2}(?:\s?[ap]\.?m\b\.?)?(?![\w:])"
                  r"|(?:上午|下午|午前|午後)\d{1,2}[:時点]")
# "vor 3 Stunden", "il y a 2 jours", "hace 5 minutos" — a unit of time, not any word ("il y a
# 150 Ma" is a geologist's million years).
RELATIVE = re.compile(
    r"\b(?:vor|il y a|hace|há)\s\d+\s?(?:h|hrs?|sek\w*|min\w*|std|stunden?|tag\w*|woche\w*|"
    r"monat\w*|secondes?|heures?|jours?|semaines?|mois|segundos?|horas?|días?|dias?|semanas?|"
    r"meses|mês)\b"
    r"|\b\d+\s?(?:s|sec|min|mins|minutes?|h|hrs?|hours?"
    r"|days?|weeks?|months?|minuten|stunden|std|uur|dagen|minuti|ore|giorni|minutos|horas|"
    r"días|dias|мин|минут\w*|час\w*|дн\w*)\.?\s(?:ago|fa|geleden|назад)\b"
    r"|\d+\s?(?:分|分钟|小时|時間|日|天|週間|周|か月|个月|年)前")
SIZE = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?\s?(?:b|kb|mb|gb|tb|kib|mib|gib|ko|mo|go|to|"
                  r"кб|мб|гб|тб|bytes?)(?![\w/])")
FILE_NAME = re.compile(r"[\w\-()\u3040-\u9fff]+\.(?:pdf|docx?|xlsx?|pptx?|odt|ods|jpe?g|png|"
                       r"heic|gif|zip|rar|7z|txt|csv|mp4|mov|eml)(?![\w])")
DOSE = re.compile(
    r"(?<![\w.,])\d+(?:[.,]\d+)?(?:/\d+)?\s?(?:mg|mcg|µg|μg|mg/dl|mmol/l|mmol/mol|g/dl|g/l|"
    r"ng/ml|pg/ml|µg/l|μg/l|mu/l|miu/l|u/l|iu|ie|ui|мг|мкг|г/л|нг/мл|мм/ч|ммоль/л)(?![\w])"
    r"|(?<![\w.-])[a-tv-z]\d{2}\.\d{1,2}(?![\w.])"  # an ICD-10 code: e11.9, f32.1
    r"|(?<![\d-])[0-2]-[0-2]-[0-2](?:-[0-2])?(?![\d-])")  # a dosing scheme: 1-0-1
CRYPTO = re.compile(r"\b(?:bc1[a-z0-9]{25,60}|0x[a-f0-9]{40}|0x[a-f0-9]{3,}\.{2,}[a-f0-9]{3,})\b"
                    r"|(?<![\w.])\d+(?:[.,]\d+)?\s?(?:btc|eth|usdt|usdc|sol|xrp|ada|dot|bnb|"
                    r"doge|ltc|matic|trx)\b")
# A result's address as search engines print it: "www.nhs.uk › conditions › ...".
RESULT_LINE = re.compile(r"^(?:https?://)?(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)+\s*(?:›|>|»|/)\s")
RESULT_COUNT = re.compile(
    r"\d[\d.,\u00a0\u202f ]*\s?(?:млн\.?\s|тыс\.?\s|million\s|mio\.?\s|mln\s|mi\s)?"
    r"(?:results|ergebnisse|résultats|resultados|risultati|resultaten|результат\w*|件|条结果)")
# Masked account numbers: "••••4471", "XXX-XX-3390", "ending in 5521", "尾号4471".
MASK_RUN = re.compile(r"(?<![a-z])(?:[•●*x]{2,}[ -]?){1,4}\d{2,4}\b")
MASK_ENDING = re.compile(r"\b(?:end(?:ing|s)(?: in| with)?|endet auf|se terminant par|"
                         r"terminada en|che termina con|eindigend op|terminado em|"
                         r"заканчивается на|vin ending)\s\d{4}\b|(?:尾号|末尾)\s?\d{3,4}")
MASK_X = re.compile(r"x\d{4}\b")  # not after a letter, digit or "\" (hex escapes)


# One person's particulars, in prose as in a table: an amount to the cent or not a round
# one (yen and won have no cents), a date with its day and year as people write it (an ISO
# date is a machine's: a changelog, a page's "last modified"), a number long enough to be a
# case, contract or customer number, a message's time stamp ("Anna 13:45: ...").
_CENTS = re.compile(r"\d[.,]\d{2}(?!\d)")
_ROUND = re.compile(r"(?:[.,\u00a0\u202f' ]?0){2}(?![\d.,])")
_FULL_DATE = re.compile(r"(?<![\d.,/-])\d{1,2}[./-]\d{1,2}[./-]\d{4}(?![\d,])"
                        r"|\d{4}年\d{1,2}月\d{1,2}日")
_LONG_NUMBER = re.compile(r"(?<![\w.,])\d{6,}(?![\w.,])")
# What every MONEY match holds (a currency, or cents): a cheap test before the costly one.
_MONEY_HINT = re.compile(rf"{_CUR}|[.,]\d{{2}}")
_STAMP = re.compile(r"(?<![\w:.])\d{1,2}:\d{2}\s?:(?=\s|[^\x00-\x7f])")


def _exact(amount: str) -> bool:
    digits = re.sub(r"\D", "", amount)
    return _CENTS.search(amount) is not None or (len(digits) >= 4
                                                  and _ROUND.search(amount) is None)


PARTICULARS = ("exact_amounts", "full_dates", "long_numbers", "doses", "stamps")


def particulars(line: str) -> tuple[int, int, int, int, int]:
    """How many of each of `PARTICULARS` one lower-cased line holds."""
    amounts = (sum(1 for m in MONEY.finditer(line) if _exact(m.group(0)))
               if _MONEY_HINT.search(line) else 0)
    return (amounts,
            len(_FULL_DATE.findall(line)), len(_LONG_NUMBER.findall(line)),
            len(DOSE.findall(line)), len(_STAMP.findall(line)))


@lru_cache(maxsize=1)
def date_pattern() -> re.Pattern[str]:
    months = "|".join(re.escape(m) for m in month_names())
    return re.compile(rf"{_NUMERIC_DATE}|\b\d{{1,2}}\.?\s(?:de\s)?(?:{months})\b\.?"
                      rf"|\b(?:{months})\.?\s\d{{1,2}}\b")


def has_date(line: str) -> bool:
    return date_pattern().search(line) is not None


def masked_numbers(line: str) -> int:
    """Masked account numbers in one lower-cased line."""
    n = len(MASK_ENDING.findall(line))
    if "•" in line or "●" in line or "**" in line or "xx" in line:
        n += len(MASK_RUN.findall(line))
    n += sum(1 for m in MASK_X.finditer(line)
             if m.start() == 0 or not (line[m.start() - 1].isalnum()
                                       or line[m.start() - 1] in "\\_"))
    return n
