"""What the content check counts (rewind.capture.content_features), on plain strings: each
count, what must not count (documentation's look-alikes), densities that do not grow with
length, and the windows a long page is judged in."""

import math

import numpy as np
import pytest
from rewind.capture import content_features as cf


def counts(*lines: str) -> dict[str, int]:
    row = cf.passage_counts("\n".join(lines))
    return {k: int(v) for k, v in zip(cf.COUNTS, row, strict=True)}


def test_masked_account_numbers():
    c = counts("Checking ••••4471", "Visa card ending in 5521", "Savings x9038",
               "SSN: XXX-XX-3390", "Key sk-mw-...Q8aZ")
    assert c["masked_numbers"] == 5
    assert counts("We met in 2024 at 10 xylophone 1234 concerts.")["masked_numbers"] == 0
    # hex escapes and hex literals in docs are not masked numbers
    assert counts(r"b'\x1234\x5678\x9012'", "0x1234 and ox1234")["masked_numbers"] == 0


def test_personal_fields_need_a_value():
    assert counts("Date of birth: 07/02/1989", "Member ID: NSH 448 201")["personal_fields"] == 2
    prose = "The landlord needs your full name, date of birth and Social Security number."
    assert counts(prose)["personal_fields"] == 0


def test_pii_counts_masks_and_skips_documentation_examples():
    assert counts("Card 4532 0151 1283 0366")["strong_pii"] == 1
    assert counts("Card [card number], IBAN [IBAN], SSN [national ID]")["strong_pii"] == 3
    assert counts("Test cards: 4242 4242 4242 4242 and 4111 1111 1111 1111.")["strong_pii"] == 0
    assert counts("Write to [email] or [email], call [phone number]")["emails"] == 2
    assert counts("Write to maya@fastpost.example", "no digits here")["emails"] == 1
    assert counts("Call +44 20 7946 0958 today")["phones"] == 1


def test_secrets_are_random_looking_standalone_tokens():
    assert counts("chp_R7uQ2xWfK9mZ3vLb8TnY1cHs4dPa6eJg0Oi5")["secrets"] == 1
    assert counts("0f3a9-c21e7", "7d8b4-55a02")["secrets"] == 2  # recovery codes
    not_secret = counts(
        "GET /authorize?code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "https://example.org/a/E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw",
        "Password: YOUR-PERSONAL-ACCESS-TOKEN",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8",
        "iso_8859_5_to_windows_1251 koi8_r_to_windows_1251 utf8_and_iso8859_1",  # identifiers
        r"sha256: \xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    assert not_secret["secrets"] == 0


def test_clock_times_but_not_addresses_or_code():
    assert counts("Delfina — Re: Saturday 9:41 AM", "Tomás — lease 21:03", "at 7:58AM")[
        "times"] == 3
    assert counts("MAC 08:00:2b:01:02:03", "IPv6 fe80::1:2:3",
                  "SELECT timestamp '2001-02-16 20:38:40';",
                  "dt = datetime(2024, 11, 6, 9, 41)  # 09:41",
                  "print(time.strftime('%H:%M'))  -> 14:05")["times"] == 0


def test_interface_lines_and_ledger_lines():
    c = counts("Reply · Forward", "Download · Print · Copy", "Good morning, Daniel",
               "Reply to the message today.")
    assert c["ui_phrases"] == 3
    assert counts("Nov 5 TRADER JOE'S #552 -$64.18", "Oct 31 PAYROLL +$2,841.55")[
        "ledger_lines"] == 2
    assert counts("Rent costs $1,200 a month in most cities.")["ledger_lines"] == 0


def test_every_interface_phrase_is_found():
    phrases = ["Welcome back, Ana", "Last sign-in Nov 6", "last used today", "Signed in as me",
               "This device", "Current session", "Available balance", "Available credit",
               "Amount due", "Balance due", "Payment due", "Due date", "Minimum payment",
               "New balance", "Date of birth", "DOB", "MRN", "Member ID", "Routing number",
               "Account number", "Loan no.", "Policy #", "Claim number", "Employee ID",
               "Student ID", "Application number", "Order #", "Revoke", "Regenerate",
               "Deactivate", "Copy password", "Autopay", "Auto refill", "Direct deposit", "YTD",
               "Year-to-date", "Ready for pickup", "This is not a bill", "Your balance",
               "Your recent transactions", "Your refund", "Your results", "Your prescriptions",
               "Your orders"]
    for phrase in phrases:
        assert counts(f"See: {phrase} here today, in a sentence long enough.")["ui_phrases"] \
            == 1, phrase
    assert counts("Your routing table and the last commit are in this document.")[
        "ui_phrases"] == 0


def test_what_the_text_is_made_of():
    c = counts("Inbox", "Sent", "A sentence that is long enough to not count as short.",
               "msg = message_from_string(raw, policy=default)", "if x == 1: return {}")
    assert (c["lines"], c["short_lines"], c["sentence_lines"], c["code_lines"]) == (5, 4, 1, 2)
    assert c["words"] == 1 + 1 + 11 + 4 + 6
    assert counts("Prose has semicolons; they are not code, and (asides) are not calls.")[
        "code_lines"] == 0
    assert counts("", "   ")["lines"] == 0


def test_rates_do_not_grow_with_length():
    """The failure this module exists for: a long page piled up counts (clock times in each
    of many passages of prose) until it looked like an inbox."""
    passage = ("The scheduler wakes at 09:30 and runs every job that is due, " * 3
               + "a job that fails is retried after a pause, and the log keeps one line each.")
    words = len(passage.split())
    rates = [cf.feature_matrix(cf.windows(cf.page_counts("Scheduling jobs", [passage] * n)))
             .max(axis=0) for n in (2, 5, 29, 200)]
    times = cf.FEATURES.index("times")
    limit = math.log1p(1000 * 3 / words)  # three times per passage: the rate's limit
    assert all(0 < r[times] <= limit for r in rates)
    assert rates[-1][times] == pytest.approx(rates[2][times], rel=0.01)  # 200 passages = 29
    sentences = cf.FEATURES.index("sentence_lines")
    assert all(r[sentences] >= 2 / 3 for r in rates)  # the title is the one line that is not


def test_one_match_in_a_tiny_page_is_damped():
    tiny = cf.features(cf.passage_counts("Meet at 9:41"))
    assert tiny["times"] == pytest.approx(math.log1p(1000 / (3 + cf.PRIOR_WORDS)))


def test_windows_cover_every_passage_and_add_the_title():
    assert cf.window_starts(0) == [0] and cf.window_starts(29) == [0]
    assert cf.window_starts(30) == [0, 1]
    starts = cf.window_starts(100)
    assert starts == [0, 14, 28, 42, 56, 70, 71]
    covered = {i for s in starts for i in range(s, s + cf.WINDOW)}
    assert covered == set(range(100))
    rows = np.arange(101 * len(cf.COUNTS), dtype=float).reshape(101, len(cf.COUNTS))
    wins = cf.windows(rows)
    assert len(wins) == len(starts)
    for s, w in zip(starts, wins, strict=True):
        assert np.allclose(w, rows[0] + rows[1 + s: 1 + s + cf.WINDOW].sum(axis=0))
    short = cf.windows(rows[:6])
    assert short.shape == (1, len(cf.COUNTS)) and np.allclose(short[0], rows[:6].sum(axis=0))


def test_feature_matrix_is_features_in_order():
    row = cf.page_counts("Inbox (3) - [email]", ["Reply · Forward", "Anna — dinner 9:41 AM",
                                                 "Checking ••••4471 $3,214.87 Nov 5"]).sum(0)
    as_dict = cf.features(row)
    assert list(as_dict) == list(cf.FEATURES)
    assert np.allclose(cf.feature_matrix(row)[0], [as_dict[k] for k in cf.FEATURES])


def test_who_a_text_speaks_to_counts_in_the_pages_own_language():
    def words(text: str, lang: str = "") -> tuple[int, int, int]:
        row = cf.page_counts("", [text], lang=lang).sum(axis=0)
        at = {k: i for i, k in enumerate(cf.COUNTS)}
        return tuple(int(row[at[k]]) for k in ("address_words", "self_words", "framing_words"))

    # "je" is French "I" and Dutch "you"; "du" is French "of the" and no German address
    assert words("Je pense que tu as raison, par exemple.", "fr") == (1, 1, 1)
    assert words("Je hebt gelijk, bijvoorbeeld.", "nl") == (1, 0, 1)
    assert words("Je hebt gelijk.") == (1, 1, 0)  # no declared language: every language
    assert words("Le fossile du Jurassique, daté de 150 Ma.", "fr") == (0, 0, 0)
    assert words("You will find it on my page.", "en-GB") == (1, 1, 0)
