"""The shapes of per-person records in any language (rewind.capture.content_patterns): dates,
amounts as countries write them, times, file sizes, doses and lab values, diagnosis codes,
crypto, search-result lines and masked numbers."""

import pytest
from rewind.capture import content_patterns as pat
from rewind.capture.content_lexicon import normalize


def low(s: str) -> str:
    return normalize(s)


@pytest.mark.parametrize("line", [
    "04.11.2025 REWE Markt -64,18 EUR", "05/11 CARTE CARREFOUR -64,18 €", "Nov 5 $64.18",
    "4 de noviembre 1.318,44 €", "12 марта 2025 −1 264,18 ₽", "2025/11/04 カード -6,418円",
    "2025-11-04 消费 -¥264.18", "3 novembre 2025 1 318,44 €", "04-11-2025 Albert Heijn - € 64,18",
    "31/10/2025 Vencimento R$ 4.311,69",
])
def test_ledger_lines_in_every_format(line):
    assert pat.has_date(low(line)) and pat.MONEY.search(low(line)), line


@pytest.mark.parametrize("line", [
    "Python 3.11 was released in 2022", "See section 4.2 of the manual", "Version 2.10.34",
    "The ratio is 3/4 of the total",
])
def test_versions_and_fractions_are_not_money(line):
    assert not pat.MONEY.search(low(line)), line


@pytest.mark.parametrize(("line", "pattern"), [
    ("Reisepass_Sabine_2031.pdf 2,4 MB vor 3 Monaten", pat.SIZE),
    ("Passeport_Claire.pdf 2,1 Mo il y a 2 mois", pat.SIZE),
    ("Паспорт_Мария_скан.pdf 2,1 МБ", pat.SIZE),
    ("身份证_正反面.pdf 1.5 MB", pat.FILE_NAME),
    ("Metformin 1000 mg 1-0-1", pat.DOSE), ("HbA1c 7,4 % (Referenz < 5,7) Glukose 142 mg/dl",
                                            pat.DOSE),
    ("Diagnose: E11.9 Diabetes mellitus Typ 2", pat.DOSE), ("Гемоглобин 102 г/л", pat.DOSE),
    ("Bitcoin 0,15120433 BTC", pat.CRYPTO),
    ("Withdrawal to bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh", pat.CRYPTO),
    ("0x3f5CE5FBFe3E9af3971dD833D26bA9b5C936f0bE", pat.CRYPTO),
    ("Ungefähr 1.240.000 Ergebnisse", pat.RESULT_COUNT), ("約 1,820,000 件", pat.RESULT_COUNT),
    ("找到约 1,260,000 条结果", pat.RESULT_COUNT),
    ("Нашлось 2 млн результатов", pat.RESULT_COUNT),
    ("Hannah Lee 10:02 AM", pat.TIME), ("下午3点", pat.TIME), ("vor 3 Stunden", pat.RELATIVE),
    ("5 min ago", pat.RELATIVE), ("3時間前", pat.RELATIVE),
])
def test_record_shapes(line, pattern):
    assert pattern.search(low(line)), line


def test_result_lines_are_addresses_as_engines_print_them():
    assert pat.RESULT_LINE.match(low("www.nhs.uk › conditions › panic-disorder"))
    assert pat.RESULT_LINE.match(low("https://texaslawhelp.example › family › divorce"))
    assert not pat.RESULT_LINE.match(low("See www.nhs.uk for more about panic attacks."))


def test_masked_numbers_in_several_languages():
    assert pat.masked_numbers(low("Girokonto DE89 **** **** **** 4471 00")) == 1
    assert pat.masked_numbers(low("Дебетовая карта •• 4471")) == 1
    assert pat.masked_numbers(low("借记卡 尾号 4471")) == 1
    assert pat.masked_numbers(low("Visa endet auf 5521")) == 1
    assert pat.masked_numbers(low("In 2024 we sold 4471 bikes")) == 0


@pytest.mark.parametrize(("line", "expected"), [
    # amount to the cent or not round, full date, long number, dose, message stamp
    ("your balance of $3,218.44 as of 11/04/2025", (1, 1, 0, 0, 0)),
    ("支払金額 ¥43,332、社員番号 346737494", (1, 0, 1, 0, 0)),
    ("metformin 1000 mg 1-0-1, hba1c 7,4 %, ldl 172 mg/dl", (0, 0, 0, 3, 0)),
    ("anna kowalski, 18:09: not really.", (0, 0, 0, 0, 1)),
    ("小林 大輔 11:50:お母さん手術終わったよ", (0, 0, 0, 0, 1)),
])
def test_a_persons_particulars_in_prose(line, expected):
    assert pat.particulars(line) == expected


@pytest.mark.parametrize("line", [
    "this page last modified on 2022-01-20 20:38:08 utc",  # a machine's date and stamp
    "about 1,800 € a month in tax class i, or $1,500 gross",  # round figures
    "python 3.11.7 was released with 2.5 times faster startup",
    "meet at 10:30 in room 4",  # a clock time is counted as a time, not a particular
])
def test_what_is_no_particular(line):
    assert pat.particulars(line) == (0, 0, 0, 0, 0)


def test_clock_times_are_as_people_write_them():
    assert pat.TIME.findall("seen 13:35, sent 9:05 pm") == ["13:35", "9:05 pm"]
    assert pat.TIME.findall("last updated 11:07:41 +0100") == []


@pytest.mark.parametrize(("line", "relative"), [
    ("vor 3 stunden", True), ("il y a 4 h", True), ("hace 2 días", True), ("3 giorni fa", True),
    ("il y a 150 ma", False), ("ha 3 figli", False)])
def test_relative_times_need_a_unit_of_time(line, relative):
    assert bool(pat.RELATIVE.search(line)) is relative
