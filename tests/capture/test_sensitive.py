"""The host's content check: the acceptance test on the labelled pages with the real model
(cross-validated rates within the targets), and the text features on plain strings."""

import json
import math

import numpy as np
import pytest
from rewind.capture import sensitive
from rewind.capture.policy import load_policy

from bench.sensitive import (
    category_splits,
    cross_validate,
    fit_shipped,
    load_pages,
    stratified_splits,
)

TARGET = 0.05
PAGES = load_pages()


def test_labelled_set_is_large_and_balanced():
    assert len(PAGES) >= 60
    labels = [p.label for p in PAGES]
    assert labels.count("sensitive") >= 30 and labels.count("article") >= 30
    ids = {c.id for c in load_policy().categories}
    assert all(p.category in ids for p in PAGES)
    assert len({p.id for p in PAGES}) == len(PAGES)


@pytest.mark.slow
def test_check_meets_targets_cross_validated():
    rows = [sensitive.text_features(p.title, p.passages) for p in PAGES]
    for splits in (stratified_splits([p.sensitive for p in PAGES]), category_splits(PAGES)):
        r = cross_validate(PAGES, rows, splits, sensitive.TEXT_FEATURES)
        assert r.fpr <= TARGET, (r.fpr, r.misses.most_common(5))
        assert r.fnr <= TARGET, (r.fnr, r.misses.most_common(5))


def test_shipped_model_is_the_one_fitted_on_the_labelled_set():
    shipped = sensitive.Model.from_dict(sensitive.load_params()["model"])
    fitted = fit_shipped(PAGES)
    assert shipped.features == fitted.features == sensitive.TEXT_FEATURES
    assert np.allclose(shipped.weights, fitted.weights, atol=1e-4), (
        "sensitive.json is stale: run `python -m bench.sensitive --fit`")
    assert math.isclose(shipped.bias, fitted.bias, abs_tol=1e-4)


@pytest.mark.slow
def test_check_with_the_real_model(embedder):
    check = sensitive.ContentCheck(embedder.embed_documents)
    verdicts = {p.id: check.check(p.title, p.passages, p.url) for p in PAGES}
    articles = [p for p in PAGES if not p.sensitive]
    accounts = [p for p in PAGES if p.sensitive]
    refused_articles = [p.id for p in articles if verdicts[p.id]]
    passed_accounts = [p.id for p in accounts if not verdicts[p.id]]
    assert len(refused_articles) <= TARGET * len(articles), refused_articles
    assert len(passed_accounts) <= TARGET * len(accounts), passed_accounts
    ids = {c.id for c in load_policy().categories}
    named = [verdicts[p.id].category == p.category for p in accounts if verdicts[p.id]]
    assert all(v.category in ids for v in verdicts.values() if v)
    assert sum(named) >= 0.7 * len(named), f"{sum(named)} of {len(named)} named right"
    v = verdicts["fin-bank-summary"]
    assert v.why == "looks like a bank, payment or investment account"
    assert v.rule.startswith("content ")


# ---- the text features on plain strings

def features(*lines: str) -> dict:
    return sensitive.text_features("", ["\n".join(lines)])


def count(value: float) -> int:
    return round(math.expm1(value))


def test_masked_account_numbers():
    f = features("Checking ••••4471", "Visa card ending in 5521", "Savings x9038",
                 "SSN: XXX-XX-3390", "Key sk-mw-...Q8aZ")
    assert count(f["masked_numbers"]) == 5
    assert count(features("We met in 2024 at 10 xylophone 1234 concerts.")["masked_numbers"]) == 0


def test_personal_fields_need_a_value():
    assert count(features("Date of birth: 07/02/1989", "Member ID: NSH 448 201")
                 ["personal_fields"]) == 2
    prose = "The landlord needs your full name, date of birth and Social Security number."
    assert count(features(prose)["personal_fields"]) == 0


def test_pii_counts_masks_and_skips_documentation_examples():
    assert count(features("Card 4532 0151 1283 0366")["strong_pii"]) == 1
    assert count(features("Card [card number], IBAN [IBAN], SSN [national ID]")["strong_pii"]) == 3
    assert count(features("Test cards: 4242 4242 4242 4242 and 4111 1111 1111 1111.")
                 ["strong_pii"]) == 0
    assert count(features("Write to [email] or [email], call [phone number]")["emails"]) == 2


def test_secrets_are_standalone_tokens():
    assert count(features("chp_R7uQ2xWfK9mZ3vLb8TnY1cHs4dPa6eJg0Oi5")["secrets"]) == 1
    assert count(features("0f3a9-c21e7", "7d8b4-55a02")["secrets"]) == 2  # recovery codes
    not_secret = features(
        "GET /authorize?code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        "https://example.org/a/E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw",
        "Password: YOUR-PERSONAL-ACCESS-TOKEN",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8")
    assert count(not_secret["secrets"]) == 0


def test_interface_lines_and_ledger_lines():
    f = features("Reply · Forward", "Download · Print · Copy", "Reply to the message today.")
    assert count(f["ui_phrases"]) == 2
    assert count(features("Nov 5 TRADER JOE'S #552 -$64.18", "Oct 31 PAYROLL +$2,841.55")
                 ["ledger_lines"]) == 2
    assert count(features("Rent costs $1,200 a month in most cities.")["ledger_lines"]) == 0
    assert features("Inbox", "Sent", "A sentence that is long enough to not count as short.")[
        "short_lines"] == pytest.approx(2 / 3)


def test_fit_separates_a_toy_set():
    rows = [{"a": x, "b": 0.0} for x in (0, 0.1, 0.2, 1.0, 1.1, 1.2)]
    model = sensitive.fit(rows, [0, 0, 0, 1, 1, 1], ["a", "b"])
    probs = [model.probability(r) for r in rows]
    assert probs == sorted(probs) and probs[0] < 0.5 < probs[-1]
    again = sensitive.Model.from_dict(json.loads(json.dumps(model.to_dict())))
    assert again.probability(rows[3]) == pytest.approx(probs[3], abs=1e-5)


INBOX = ("Inbox (1,284)", [
    "Compose\nInbox 1,284\nStarred\nSent\nDrafts 3",
    "Delfina Ruiz — Re: Saturday — bring the tent 9:41 AM\nKestrel Bank Alerts — payment from "
    "account ending in 4471 8:02 AM\nTomás — lease renewal Yesterday\nMom — photos 7:15 AM",
    "Reply · Forward"])
ARTICLE = ("Email - Encyclopedia", [
    "Email is a method of transmitting and receiving messages using electronic devices. It was "
    "conceived in the late 20th century as the digital version of mail.",
    "An email address consists of a local part and a domain, for example jsmith@example.com. "
    "Servers accept, forward, deliver and store messages for their users."])


def test_check_without_an_embedder_names_the_category_by_text():
    check = sensitive.ContentCheck(None)
    v = check.check(*INBOX)
    assert v is not None and v.category == "finance"  # a masked account number comes first
    assert v.rule.startswith("content ") and "times" in v.rule
    assert check.check(*ARTICLE) is None


def test_check_uses_the_callers_vectors_for_the_passages():
    calls: list[int] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        rng = np.random.default_rng(len(texts))
        v = rng.normal(size=(len(texts), 8))
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    check = sensitive.ContentCheck(embed)
    n_protos = sum(len(t) for t in sensitive.load_params()["prototypes"].values())
    v = check.check(*INBOX, vectors=embed([INBOX[0], *INBOX[1]]))
    assert v is not None
    assert calls == [4, n_protos]  # the caller's vectors, then the prototypes once
    check.check(*INBOX)
    assert calls == [4, n_protos, 4]  # no vectors given: title + passages embedded
    assert check.check(*ARTICLE) is None and len(calls) == 3  # kept pages embed nothing
