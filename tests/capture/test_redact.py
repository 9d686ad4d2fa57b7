"""PII redaction: the shared cases (extension/test/redact.test.mjs runs the same file against
content/redact.js), the validators on their own, and counts."""

import json
from pathlib import Path

import pytest
from rewind.capture.redact import (
    MASKS,
    bsn_ok,
    dni_ok,
    find_pii,
    iban_ok,
    luhn_ok,
    nir_ok,
    redact,
    ssn_ok,
    verhoeff_ok,
)

CASES = json.loads((Path(__file__).parents[1] / "data" / "redaction_cases.json").read_text("utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[f"{i}:{c['text'][:40]}" for i, c in enumerate(CASES)])
def test_shared_case(case):
    assert redact(case["text"]).text == case["expect"]


def test_cases_cover_every_kind_both_ways():
    assert len(CASES) >= 60
    kept = [c for c in CASES if c["text"] == c["expect"]]
    masked = [c for c in CASES if c["text"] != c["expect"]]
    assert len(kept) >= 25 and len(masked) >= 25
    for mask in MASKS.values():
        assert sum(mask in c["expect"] for c in masked) >= 4, mask


def test_counts_by_kind():
    r = redact("a@b.io and c@d.io, (555) 234-5678, IBAN GB82WEST12345698765432")
    assert r.counts == {"email": 2, "phone": 1, "iban": 1}
    assert redact("nothing").counts == {}


def test_findings_do_not_overlap_and_are_in_order():
    text = "x@y.com 4111 1111 1111 1111 +44 20 7946 0958 SSN 123-45-6789"
    spans = [(f.start, f.end) for f in find_pii(text)]
    assert spans == sorted(spans)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
    assert [f.kind for f in find_pii(text)] == ["email", "card", "phone", "national_id"]


@pytest.mark.parametrize(("check", "good", "bad"), [
    (luhn_ok, "79927398713", "79927398710"),
    (iban_ok, "DE89370400440532013000", "DE89370400440532013001"),
    (iban_ok, "NO9386011117947", "NO938601111794"),  # wrong length for Norway
    (ssn_ok, "123-45-6789", "666-45-6789"),
    (ssn_ok, "912-70-1234", "912-40-1234"),  # ITIN group ranges
    (nir_ok, "1 84 12 76 451 089 46", "1 84 12 76 451 089 45"),
    (nir_ok, "2 69 05 2A 350 012 27", "2 69 05 2A 350 012 28"),  # Corsica: 2A counts as 19
    (dni_ok, "12345678Z", "12345678A"),
    (dni_ok, "X1234567L", "X1234567M"),
    (verhoeff_ok, "234567890124", "234567890125"),
    (bsn_ok, "123456782", "123456781"),
])
def test_validators(check, good, bad):
    assert check(good)
    assert not check(bad)


def test_large_text_is_linear_enough():
    # 40,000 phone-like fragments: each candidate looks only at a small window around it.
    text = "call 020 7946 0958 now. " * 40_000
    assert redact(text).counts == {"phone": 40_000}
