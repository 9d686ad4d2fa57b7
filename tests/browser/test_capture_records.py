"""A person's records in plain article layout, in a real browser: a heading and paragraphs, no
menu, no sign-out, no form or table, on hostnames no rule list holds, in English, German and
French (health, bank, payroll, messaging) — none of them reaches the store; the articles on
the same topics are recorded; a journal entry with nothing decisive in it
(tests/support/private_pages.py's BORDERLINE) is held and the person is asked about it in the
popup; not kept, its site becomes one of the person's exclusions, shown in the options.

Real Chromium with the built extension, the real host and its real model; the pages are
tests/support/plain_records.py (never fitted on), served over TLS under their own hostnames.
One browser for the module.
"""

from __future__ import annotations

import pytest
from capture_pages import ARTICLES as POLICY_ARTICLES
from judging import drop_held, raw_bytes, read_until_judged, read_until_recorded, site
from playwright.sync_api import expect
from rewind.capture.policy import Rules, classify_url
from rewind.capture.policy_file import load_policy
from support.plain_records import ARTICLES, PRIVATE
from support.private_pages import BORDERLINE

from demo.harness import RewindBrowser

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser(launch, named_sites) -> RewindBrowser:
    b = launch("capture-records", args=named_sites.chromium_args())
    b.wait_connected()
    b.settings(dwellSeconds=1)
    return b


def test_the_records_are_plain_pages_on_hostnames_no_rule_list_holds():
    rules = Rules(load_policy())
    for p in PRIVATE + ARTICLES:
        assert classify_url(p.url, rules) is None, p.url
    assert {(p.lang, p.category) for p in PRIVATE} >= {
        (lang, cat) for lang in ("en", "de", "fr")
        for cat in ("health", "finance", "payroll", "chat")}
    for p in PRIVATE:  # what the browser is served: a heading and paragraphs only
        body = p.page().html()
        assert "<form" not in body and "<table" not in body and "<input" not in body


def test_records_in_plain_layout_never_reach_the_store(browser):
    tab = browser.reading_tab()
    judged = {p.url: read_until_judged(browser, tab, p.url) for p in PRIVATE}
    sentinel = POLICY_ARTICLES[0].url  # read last: once it is stored, the others were judged
    browser.read(tab, sentinel)
    browser.wait_indexed([sentinel])
    stored = browser.store_urls()
    for p in PRIVATE:
        assert not any(site(p.url) in u for u in stored), f"{p.url} reached the store"
        assert browser.search(p.mark) == [], f"search finds {p.url}"
    held = [u for u, v in judged.items() if v["by"] == "held"]
    print(f"refused {len(judged) - len(held)}, held {len(held)}: {held}")
    # Diagnoses, balances, payslips and messages are decisive: refused, not asked about.
    assert held == [], f"a record was held, not refused: {held}"
    assert all(v["why"] for v in judged.values())
    log = (browser.data_dir / "audit.log").read_text(encoding="utf-8")
    assert not any(p.mark in log for p in PRIVATE)


def test_articles_on_the_same_topics_are_recorded(browser):
    read_until_recorded(browser, ARTICLES)


def test_a_personal_note_is_held_and_asked_about(browser):
    note = BORDERLINE[0]
    v = read_until_judged(browser, browser.reading_tab(), note.url)
    assert v["by"] == "held", f"{note.url} was {v}, not held"
    assert note.mark.encode() not in raw_bytes(browser)  # sealed while it waits
    assert not any(site(note.url) in u for u in browser.store_urls())
    popup = browser.extension_window("popup.html", width=400, height=700)
    try:
        expect(popup.locator(".held-headline")).to_have_text(
            "Rewind held 1 page that looked private — keep / don't keep", timeout=30_000)
        expect(popup.locator(".held-title")).to_have_text(note.title)
        expect(popup.locator(".held-rule")).to_contain_text(site(note.url))
    finally:
        popup.close()
    drop_held(browser, note.url)
    assert browser.evaluate("globalThis.__rewind.action('held_list')")["held"] == []
    # The person's "don't keep" is a rule for the site now, shown in the options.
    options = browser.extension_page("options.html", width=900, height=1200)
    try:
        expect(options.locator("#blocklist")).to_have_value(site(note.url), timeout=30_000)
    finally:
        options.close()
