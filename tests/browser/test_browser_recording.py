"""What gets recorded: dwell threshold, sensitive and excluded pages, incognito.

One browser for the module (the extension allowed in incognito, as a person would
allow it); each test reads its own pages and ends by reading a page that must be
indexed, so "never reached the host" is checked after the host has had every chance.
"""

from __future__ import annotations

import time

import pytest

from demo.harness import RewindBrowser, wait_until

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser(launch) -> RewindBrowser:
    b = launch("recording", incognito=True)
    b.wait_connected()
    return b


def stay_in_front(browser: RewindBrowser, url: str, seconds: float) -> None:
    """Keep a page in front for `seconds`, checking all along that no visit of it is counted."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert not browser.seen_by_extension(url), f"the extension started recording {url}"
        time.sleep(0.25)


def test_page_read_past_threshold_is_indexed_and_one_left_before_is_not(browser, site):
    threshold = 3
    browser.settings(dwellSeconds=threshold)
    tab = browser.reading_tab()
    skimmed = site.url("articles/glacier.html")
    read = site.url("articles/sourdough.html")

    started = time.monotonic()
    browser.read(tab, skimmed)
    browser.read(tab, read)  # left after well under the threshold
    skimmed_for = time.monotonic() - started
    assert skimmed_for < threshold - 0.5, (
        f"the skimmed page stayed {skimmed_for:.1f} s in front: too slow to test the threshold"
    )

    [page] = browser.wait_indexed([read])
    assert page["title"] == "Feeding a sourdough starter"
    assert page["visit_count"] == 1
    assert page["dwell_s"] >= threshold

    assert skimmed not in browser.store_urls()
    assert not browser.seen_by_extension(skimmed)


def test_sign_in_and_excluded_pages_never_reach_the_host(browser, site):
    threshold = 1
    browser.settings(dwellSeconds=threshold, blocklist=["private-notes"])
    tab = browser.reading_tab()
    login = site.url("account/login.html")
    private = site.url("articles/private-notes.html")
    sentinel = site.url("articles/tide-pools.html")

    browser.read(tab, login)
    stay_in_front(browser, login, threshold * 3)
    browser.read(tab, private)
    stay_in_front(browser, private, threshold * 3)
    browser.read(tab, sentinel)
    browser.wait_indexed([sentinel])

    stored = browser.store_urls()
    assert login not in stored
    assert private not in stored
    assert not browser.seen_by_extension(login)
    assert not browser.seen_by_extension(private)
    # Nor anything else of theirs: the store holds only what was read on purpose.
    assert all("login" not in u and "private-notes" not in u for u in stored)


def test_incognito_page_never_reaches_the_host(browser, site):
    threshold = 1
    browser.settings(dwellSeconds=threshold)
    secret = site.url("articles/incognito-shopping.html")
    sentinel = site.url("articles/derailleur.html")

    window_id = browser.evaluate(
        "url => chrome.windows.create({incognito: true, focused: true, url}).then(w => w.id)",
        secret,
    )
    try:
        wait_until(
            lambda: (
                browser.evaluate(
                    """id => chrome.tabs.query({windowId: id}).then(
                    ts => ts.length === 1 && ts[0].status === "complete" && ts[0].url)""",
                    window_id,
                )
                == secret
            ),
            30,
            "the incognito tab to load",
        )
        front = browser.evaluate(
            "chrome.windows.getLastFocused().then(w => ({incognito: w.incognito}))"
        )
        assert front["incognito"], "the incognito window is not in front: the test proves nothing"
        stay_in_front(browser, secret, threshold * 3)
    finally:
        browser.evaluate("id => chrome.windows.remove(id)", window_id)

    tab = browser.reading_tab()
    browser.read(tab, sentinel)
    browser.wait_indexed([sentinel])

    assert secret not in browser.store_urls()
    assert not browser.seen_by_extension(secret)
