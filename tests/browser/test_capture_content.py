"""The content check in a real browser: private pages on hostnames no rule list holds, in two
languages for every category, never reach the store; articles about each topic are recorded;
a borderline page is held and the person decides — kept, it is indexed; not kept, or left a
day (the host's clock moved forward), nothing of it is in the store, the holding area or the
WAL.

Real Chromium with the built extension, the real host and its real model; the pages
(tests/support/private_pages.py, never fitted on) are served over TLS under their own
hostnames, which are in no rule list (the test checks that first). One browser for the
module.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from capture_pages import ARTICLES as POLICY_ARTICLES
from judging import drop_held, raw_bytes, read_until_judged, read_until_recorded, site, verdict
from playwright.sync_api import expect
from rewind.capture.policy import Rules, classify_url
from rewind.capture.policy_file import load_policy
from support.private_pages import ARTICLES, BORDERLINE, PRIVATE

from demo.harness import RewindBrowser, wait_until

pytestmark = pytest.mark.browser

THRESHOLD = 1
DAY = 24 * 3600


@pytest.fixture(scope="module")
def clock_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The host's clock offset in seconds (rewind/clock.py), moved by the expiry test."""
    path = tmp_path_factory.mktemp("clock") / "offset"
    path.write_text("0")
    return path


@pytest.fixture(scope="module")
def browser(launch, named_sites, clock_file) -> RewindBrowser:
    b = launch("capture-content", args=named_sites.chromium_args(),
               env={"REWIND_TEST_CLOCK_FILE": str(clock_file)})
    b.wait_connected()
    b.settings(dwellSeconds=THRESHOLD)
    return b


def held_files(browser: RewindBrowser) -> list[Path]:
    folder = browser.data_dir / "held"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_the_private_pages_are_on_hostnames_no_rule_list_holds():
    rules = Rules(load_policy())
    assert {s.category for s in PRIVATE} == {c.id for c in load_policy().categories}
    for s in PRIVATE + BORDERLINE:
        assert classify_url(s.url, rules) is None, s.url
    langs = {}
    for s in PRIVATE:
        langs.setdefault(s.category, set()).add(s.lang)
    assert all(len(v) >= 2 for v in langs.values()), langs


def test_private_pages_of_every_category_never_reach_the_store(browser):
    tab = browser.reading_tab()
    judged = {}
    for s in PRIVATE:
        judged[s.url] = read_until_judged(browser, tab, s.url)
    sentinel = POLICY_ARTICLES[0].url
    browser.read(tab, sentinel)
    browser.wait_indexed([sentinel])
    stored = browser.store_urls()
    for s in PRIVATE:
        assert not any(site(s.url) in u for u in stored), f"{s.url} reached the store"
        assert browser.search(s.mark) == [], f"search finds {s.url}"
    refused = [u for u, v in judged.items() if v["by"] == "host"]
    held = [u for u, v in judged.items() if v["by"] == "held"]
    print(f"refused {len(refused)}, held {len(held)}: {held}")
    assert len(refused) + len(held) == len(PRIVATE)
    assert len(held) <= 3, f"most private pages are refused outright, not held: {held}"
    # The reason is the page's category, in words, and no page text went into the audit log.
    assert all(v["why"] for v in judged.values())
    log = (browser.data_dir / "audit.log").read_text(encoding="utf-8")
    assert not any(s.mark in log or s.title in log for s in PRIVATE)
    for url in held:  # not left waiting for the next tests
        drop_held(browser, url)


def test_articles_about_every_topic_are_recorded(browser):
    read_until_recorded(browser, ARTICLES)


def _hold(browser: RewindBrowser, screen) -> dict:
    """Read a borderline page until the host holds it; its entry in the held list."""
    tab = browser.reading_tab()
    v = read_until_judged(browser, tab, screen.url)
    assert v["by"] == "held", f"{screen.url} was {v}, not held"
    held = browser.evaluate("globalThis.__rewind.action('held_list')")["held"]
    [entry] = [h for h in held if site(h["url"]) == site(screen.url)]
    assert entry["title"] == screen.title and entry["why"]
    assert not any(site(screen.url) in u for u in browser.store_urls())
    assert screen.mark.encode() not in raw_bytes(browser)  # sealed while it waits
    return entry


def test_a_borderline_page_is_held_and_kept_from_the_popup(browser):
    screen = BORDERLINE[0]
    entry = _hold(browser, screen)
    popup = browser.extension_window("popup.html", width=400, height=700)
    try:
        expect(popup.locator(".held-headline")).to_have_text(
            "Rewind held 1 page that looked private — keep / don't keep", timeout=30_000)
        expect(popup.locator(".held-title")).to_have_text(screen.title)
        expect(popup.locator(".held-why")).to_contain_text(entry["why"])
        popup.locator(".held-keep").click()
        expect(popup.locator(".held")).to_have_count(0, timeout=30_000)
    finally:
        popup.close()
    [page] = browser.wait_indexed([entry["url"]])
    assert page["title"] == screen.title
    wait_until(lambda: [r["url"] for r in browser.search(screen.mark)] == [entry["url"]], 60,
               "search to find the kept page")
    assert held_files(browser) == []  # no page, no key
    assert verdict(browser, entry["url"]) is None, "kept: no reason not to record it is left"
    events = [json.loads(line)["event"] for line in
              (browser.data_dir / "audit.log").read_text().splitlines()]
    assert events[-3:] == ["held", "held_kept", "indexed"]


def test_a_borderline_page_not_kept_from_the_options_leaves_nothing(browser):
    screen = BORDERLINE[1]
    entry = _hold(browser, screen)
    options = browser.extension_page("options.html", width=900, height=1200)
    try:
        row = options.locator(f"[data-held='{entry['id']}']")
        expect(row.locator(".held-title")).to_have_text(screen.title, timeout=30_000)
        row.locator(".held-drop").click()
        expect(options.locator("#held-section")).to_contain_text(
            "No page is waiting for your decision.", timeout=30_000)
    finally:
        options.close()
    assert_nothing_left(browser, screen, entry, by="person")
    assert verdict(browser, entry["url"])["by"] == "declined"


def test_a_borderline_page_left_a_day_is_wiped(browser, clock_file):
    screen = BORDERLINE[2]
    entry = _hold(browser, screen)
    assert entry["expires_at"] - time.time() > DAY - 600
    clock_file.write_text(str(DAY + 60))  # the host's clock, a day and a minute later
    try:
        assert browser.evaluate("globalThis.__rewind.action('held_list')")["held"] == []
    finally:
        clock_file.write_text("0")
    assert_nothing_left(browser, screen, entry, by="expiry")


def assert_nothing_left(browser: RewindBrowser, screen, entry: dict, by: str) -> None:
    assert not any(site(screen.url) in u for u in browser.store_urls())
    assert browser.search(screen.mark) == []
    assert held_files(browser) == [], "the holding area keeps nothing, not even its key"
    data = raw_bytes(browser)  # the store, its WAL, the text index, the audit log
    assert screen.mark.encode() not in data and screen.title.encode() not in data
    last = json.loads((browser.data_dir / "audit.log").read_text().splitlines()[-1])
    assert (last["event"], last["by"], last["site"]) == ("held_dropped", by, site(entry["url"]))
