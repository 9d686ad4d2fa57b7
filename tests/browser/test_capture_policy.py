"""The sensitive-page policy in a real browser: what never reaches the host, what does.

One page per built-in category of policy.json, served under its real host name (an inbox
at mail.google.com, a PayPal summary, GitHub's token settings, a Chase checking account,
a MyChart message, a tax account, an adult site, a Google results page), is read past the
dwell threshold and must never reach the host: not in the store, not found by search, not
even queued. Articles ABOUT the same topics (MDN's HTTP authentication, Wikipedia's OAuth,
Single sign-on, Online banking, a how-to on paying off debt...) are recorded. "Always
record" wins over a built-in pattern; a site paused while its page waits in the queue never
reaches the host.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from capture_pages import ARTICLES, READER, SENSITIVE
from playwright.sync_api import expect

from demo.harness import RewindBrowser, register_host, unregister_host, wait_until

pytestmark = pytest.mark.browser

THRESHOLD = 1


@pytest.fixture(scope="module")
def browser(launch, named_sites) -> RewindBrowser:
    b = launch("capture-policy", args=named_sites.chromium_args())
    b.wait_connected()
    b.settings(dwellSeconds=THRESHOLD)
    return b


def keep_in_front(browser: RewindBrowser, url: str, seconds: float) -> None:
    """The page stays in front well past the threshold; the extension must never count it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert not browser.seen_by_extension(url), f"the extension started recording {url}"
        time.sleep(0.25)


def test_one_page_of_each_built_in_category_never_reaches_the_host(browser):
    tab = browser.reading_tab()
    for page in SENSITIVE:
        browser.read(tab, page.url)
        keep_in_front(browser, page.url, THRESHOLD * 3)
        status = browser.page_status()
        assert status["rule"], f"{page.url}: no reason given"
    sentinel = ARTICLES[0].url
    browser.read(tab, sentinel)
    browser.wait_indexed([sentinel])
    stored = browser.store_urls()
    for page in SENSITIVE:
        host = page.url.split("/")[2]
        assert not any(host in u for u in stored), f"{page.url} reached the store"
        assert browser.search(page.mark) == [], f"search finds {page.url}"
        assert not browser.seen_by_extension(page.url)


def test_articles_about_the_same_topics_are_recorded(browser):
    tab = browser.reading_tab()
    for page in ARTICLES:
        browser.read_until_queued(tab, page.url)
    browser.wait_indexed([p.url for p in ARTICLES])
    for page in ARTICLES:
        wait_until(lambda page=page: [r["url"] for r in browser.search(page.mark)] == [page.url],
                   60, f"search to find {page.url}")


def test_always_record_overrides_a_built_in_pattern_but_the_person_can_take_it_back(browser):
    tab = browser.reading_tab()
    inbox = SENSITIVE[0]  # mail.google.com
    browser.read(tab, inbox.url)
    status = browser.page_status()
    assert status["rule"]["category"] == "mail"
    browser.evaluate("s => globalThis.__rewind.action('always_record_site', {site: s})",
                     "mail.google.com")
    try:
        assert browser.page_status()["rule"] is None
        [page] = browser.wait_indexed([inbox.url])
        assert page["title"] == "Inbox (3) - [email] - Gmail", "recorded, its address masked"
    finally:
        browser.evaluate("s => globalThis.__rewind.action('stop_always_recording', {site: s})",
                         "mail.google.com")
        browser.evaluate("u => globalThis.__rewind.action('forget', {url: u})", inbox.url)
    assert browser.page_status()["rule"]["category"] == "mail", "the built-in rule is back"
    wait_until(lambda: inbox.url not in browser.store_urls(), 15, "the inbox to be forgotten")


def test_a_site_paused_while_its_page_waits_in_the_queue_never_reaches_the_host(browser):
    tab = browser.reading_tab()
    waiting = f"{READER}/with-login-box"
    # The helper goes away (as if uninstalled) so the page waits in the extension's queue.
    unregister_host(browser.user_data_dir)
    browser.evaluate("globalThis.__rewind.native.disconnect()")
    try:
        browser.read_until_queued(tab, waiting)
        queued = browser.queue()["items"]
        assert [it["url"] for it in queued if it["url"] == waiting] == [waiting]
        popup = browser.extension_window("popup.html", width=380, height=600)
        try:  # the queue's counts are shown while the helper is away, too
            expect(popup.locator("#headline")).to_have_text("Not connected", timeout=30_000)
            expect(popup.locator("#queue-line")).to_have_text("Queue: 1 waiting, 0 failed")
            expect(popup.locator("#page-status")).to_have_text(
                "Waiting to be remembered (Rewind's helper isn't connected).")
        finally:
            popup.close()
        browser.evaluate("s => globalThis.__rewind.action('pause_site', {site: s})",
                         "fieldnotes.org")
    finally:
        register_host(browser.user_data_dir, browser.host_dir)
    browser.wait_connected()
    browser.evaluate("globalThis.__rewind.drain()")
    sentinel = ARTICLES[1].url
    browser.read(tab, sentinel)
    browser.wait_indexed([sentinel])
    wait_until(lambda: not browser.queue()["items"], 30, "the queue to empty")
    assert waiting not in browser.store_urls()
    assert browser.search("beaverplunk") == []
    assert browser.queue()["failed"] == [] and browser.queue()["dropped"] == 0, \
        "dropped on purpose, not lost"
    browser.evaluate("s => globalThis.__rewind.action('resume_site', {site: s})", "fieldnotes.org")


def test_the_persons_rules_reach_the_host_and_bind_every_way_in(browser, tmp_path):
    """An exclusion set in the extension is kept by the host (set_rules), so a page that
    comes another way — `rewind index` on the same profile — is refused too."""
    browser.settings(blocklist=["secret-folder"], redact=True)
    rules = browser.data_dir / "capture_rules.json"
    wait_until(lambda: rules.exists() and "secret-folder" in rules.read_text(), 15,
               "the host to keep the person's rules")
    notes = tmp_path / "secret-folder"
    notes.mkdir()
    (notes / "plan.md").write_text("# Plan\n\nThe plan for next year has three parts, each "
                                   "with its own budget, owner and deadline in spring.")
    out = subprocess.run(
        [sys.executable, "-m", "rewind", "--data-dir", str(browser.data_dir), "index",
         str(notes), "--base-url", "https://docs.example/secret-folder/", "-v"],
        capture_output=True, text=True, timeout=300)
    assert "skipped" in out.stdout + out.stderr, out
    assert not any("docs.example" in u for u in browser.store_urls())
    browser.settings(blocklist=[])
    wait_until(lambda: "secret-folder" not in rules.read_text(), 15, "the rule to be lifted")
