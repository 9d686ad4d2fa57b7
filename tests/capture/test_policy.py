"""The sensitive-page policy: the shipped table is valid, the shared cases hold (the node test
runs the same file against extension/lib/policy.js), and bad tables fail naming the entry."""

import json
from pathlib import Path

import pytest
from rewind.capture.policy import Rules, category_table, classify_url
from rewind.capture.policy_file import PolicyError, load_policy, parse_policy

CASES = json.loads((Path(__file__).parents[1] / "data" / "policy_cases.json").read_text("utf-8"))
POLICY = load_policy()


def test_shipped_policy_has_every_category_with_a_few_hundred_entries():
    ids = [c.id for c in POLICY.categories]
    assert ids == ["mail", "chat", "finance", "crypto", "payroll", "tax", "insurance", "health",
                   "therapy", "government", "account", "files", "dating", "adult", "search"]
    assert sum(len(v) for c in POLICY.categories for v in c.sources.values()) >= 300


@pytest.mark.parametrize("case", CASES, ids=[f"{i}:{c['url'][:60]}" for i, c in enumerate(CASES)])
def test_shared_case(case):
    rules = Rules.from_dict(POLICY, case.get("rules", {}))
    verdict = classify_url(case["url"], rules)
    assert (verdict.category if verdict else None) == case["expect"], verdict
    if "rule" in case:
        assert verdict.rule == case["rule"]


def test_cases_cover_each_category_ten_times_and_ordinary_pages():
    counts: dict = {}
    for c in CASES:
        counts[c["expect"]] = counts.get(c["expect"], 0) + 1
    for cat in POLICY.categories:
        assert counts.get(cat.id, 0) >= 10, cat.id
    assert counts[None] >= 30


def test_verdict_says_why_in_words():
    v = classify_url("https://www.paypal.com/myaccount/summary", Rules(POLICY))
    assert v.to_dict() == {"category": "finance", "label": "Banking, payments and investing",
                           "why": "looks like a bank, payment or investment account",
                           "rule": "domain paypal.com"}


def test_disabled_category_lets_only_that_category_through():
    rules = Rules(POLICY, disabled=frozenset({"finance"}))
    assert classify_url("https://www.chase.com/", rules) is None
    assert classify_url("https://mail.google.com/mail/u/0/", rules).category == "mail"


def test_rules_from_dict_rejects_bad_fields_by_name():
    with pytest.raises(ValueError, match="rules.blocklist"):
        Rules.from_dict(POLICY, {"blocklist": "salary"})
    with pytest.raises(ValueError, match="unknown field"):
        Rules.from_dict(POLICY, {"pausedSites": []})
    with pytest.raises(ValueError, match="disabled_categories: unknown"):
        Rules.from_dict(POLICY, {"disabled_categories": ["nope"]})
    r = Rules.from_dict(POLICY, {"paused_sites": [" example.com ", ""]})
    assert r.paused_sites == ("example.com",)


def _one(**category) -> dict:
    base = {"id": "x", "label": "X", "why": "is x", "default": True, "domains": ["x.example"]}
    return {"version": 1, "categories": [{**base, **category}]}


@pytest.mark.parametrize(("category", "message"), [
    ({"hosts": ["(?<=a)b"]}, r"categories\[0\] \(x\)\.hosts\[0\]: .*look-around"),
    ({"hosts": ["(?P<n>a)"]}, r"hosts\[0\].*named"),
    ({"hosts": ["(?i)a"]}, r"hosts\[0\].*flag"),
    ({"hosts": ["a\\w+"]}, r"escape \\w"),
    ({"hosts": ["A"]}, r"upper case"),
    ({"hosts": ["a$"]}, r"anchor"),
    ({"hosts": ["a{,2}"]}, r"read differently"),
    ({"hosts": ["(a"]}, r"not a valid regex"),
    ({"paths": ["settings//x"]}, r"paths\[0\].*empty segment"),
    ({"prefixes": ["github.com"]}, r"prefixes\[0\]"),
    ({"domains": ["www.x.example"]}, r"domains\[0\]"),
    ({"domains": ["x.example", "x.example"]}, r"domains\[1\].*already"),
    ({"id": "Bad"}, r"id 'Bad'"),
    ({"id": "paused"}, r"reserved"),
    ({"why": ""}, r"\.why"),
    ({"default": "yes"}, r"\.default"),
    ({"colour": "red"}, r"unknown key"),
    ({"domains": []}, r"at least one rule"),
    ({"searches": [{"host": "a", "path": "/s"}]}, r"searches\[0\]"),
    ({"signals": {"terms": {"en": ["18+"]}}}, r"signals.terms.en: '18\+' must .* hold a letter"),
    ({"signals": {"terms": {"en": ["Inbox"]}}}, r"lower case"),
    ({"signals": {"terms": {"eng": ["inbox"]}}}, r"two-letter language code"),
    ({"signals": {"apps": "Nextcloud"}}, r"signals.apps: expected a list"),
])
def test_bad_policy_names_the_entry(category, message):
    with pytest.raises(PolicyError, match=message):
        parse_policy(_one(**category))


def test_bad_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "policy.json"
    bad.write_text("{not json")
    with pytest.raises(PolicyError, match="cannot be read"):
        load_policy(bad)
    with pytest.raises(PolicyError, match="version"):
        parse_policy({"version": 2, "categories": []})


def test_docs_category_table_matches_the_policy():
    doc = (Path(__file__).parents[2] / "docs" / "capture.md").read_text("utf-8")
    start = doc.index("<!-- categories")
    start = doc.index("\n", start) + 1
    table = doc[start: doc.index("<!-- /categories -->")].strip()
    assert table == category_table(POLICY), (
        "docs/capture.md is out of date: paste the output of python -c 'from "
        "rewind.capture.policy import category_table, load_policy; "
        "print(category_table(load_policy()))'")
