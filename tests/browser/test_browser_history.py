"""The first hour in real Chromium, with the built extension and the real host: the welcome
page on install, the import of the history a person made before Rewind was there (under
real host names, one of them a bank), the text of those pages loaded with consent and
without cookies, pages that need a sign-in skipped with their reason, and the address bar.
"""

from __future__ import annotations

import pytest
from capture_pages import Page, article
from conftest import UI_TIMEOUT_MS
from playwright.sync_api import expect

from demo.harness import RewindBrowser, store_pages, wait_until
from demo.sites import NamedSites

pytestmark = pytest.mark.browser

TIDES = Page(
    "https://www.lrb.co.uk/the-paper/v46/n02/why-the-tides-are-late",
    "Why the tides are late", "quorbalite",
    article("Why the tides are late", "quorbalite",
            "The moon drags a bulge of water around the planet, and the continents get in "
            "its way, so high water reaches each harbour hours after the moon has passed.",
            "Harbour masters once kept tide tables by hand; now the tables come from "
            "harmonic analysis of decades of gauge readings."))
CURRENTS = Page(
    "https://nautil.us/the-slow-river-under-the-sea",
    "The slow river under the sea", "velmotrane",
    article("The slow river under the sea", "velmotrane",
            "Cold salty water sinks near Greenland and creeps south along the ocean floor, "
            "taking about a thousand years to come back to the surface.",
            "Oceanographers call it the overturning circulation, and it moves heat north."))
BANK = Page(
    "https://www.chase.com/personal/checking/summary",
    "Chase checking account summary", "brandolux",
    "<main><h1>Checking ...4421</h1><p>Available balance $2,310.44 brandolux</p></main>")
PREMIUM = "https://www.economist.com/premium/the-deep-ocean-report"  # answers 401
# Read while signed in; without the person's cookie the site sends its sign-in page.
PAYWALL = Page(
    "https://www.ft.com/content/ocean-heat", "How much heat the ocean holds", "dravencort",
    article("How much heat the ocean holds", "dravencort",
            "The upper two kilometres of the ocean have taken up most of the extra heat."))
LOGIN = "https://accounts.ft.com/login?location=ocean-heat"
ANSWERS = {
    "www.economist.com/premium/the-deep-ocean-report": (401, {}),
    "www.ft.com/content/ocean-heat": (302, {"Location": LOGIN}, "without-cookie"),
    "accounts.ft.com/login": (200, {}),
}


@pytest.fixture(scope="module")
def history_sites(tmp_path_factory):
    root = tmp_path_factory.mktemp("history-sites")
    for page in (TIDES, CURRENTS, BANK, PAYWALL):
        path = root / "www" / page.file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page.html(), encoding="utf-8")
    served = NamedSites(root / "www", root / "tls", answers=ANSWERS)
    yield served
    served.close()


@pytest.fixture(scope="module")
def browsed(playwright, chromium, extension_dir, model_dir, history_sites, tmp_path_factory):
    """A profile with visits made before the extension existed in it, then the extension
    installed into it: the welcome page is kept open."""
    workdir = tmp_path_factory.mktemp("history")
    profile = workdir / "profile"
    plain = playwright.chromium.launch_persistent_context(
        str(profile), executable_path=chromium, headless=True, args=history_sites.chromium_args())
    try:
        # Signed in to two sites: cookies the backfill must never send.
        plain.add_cookies([{"name": "session", "value": "s3cret", "domain": domain, "path": "/",
                            "secure": True} for domain in ("www.lrb.co.uk", "www.ft.com")])
        tab = plain.new_page()
        for url in (TIDES.url, CURRENTS.url, BANK.url, PREMIUM, PAYWALL.url):
            tab.goto(url, wait_until="domcontentloaded")
            tab.wait_for_timeout(300)  # the visit's title reaches the history
    finally:
        plain.close()
    browser = RewindBrowser.launch(
        playwright, workdir, chromium=chromium, extension=extension_dir, model_dir=model_dir,
        args=history_sites.chromium_args(), first_install=True, keep_welcome=True)
    yield browser
    browser.close()


def test_welcome_opens_on_install_and_says_the_helper_answers(browsed):
    welcome = browsed.welcome
    assert welcome is not None and welcome.url.endswith("/welcome.html")
    browsed.wait_connected()
    welcome.click("#recheck")
    expect(welcome.locator("#helper-status")).to_contain_text("Connected", timeout=UI_TIMEOUT_MS)
    expect(welcome.locator("#shortcut-line")).to_contain_text("Alt+Shift+R")
    expect(welcome.locator("#categories input[type=checkbox]").first).to_be_checked()


def test_history_is_imported_as_visited_not_read_without_the_bank(browsed):
    welcome = browsed.welcome
    expect(welcome.locator("#history-import")).to_be_enabled(timeout=UI_TIMEOUT_MS)
    welcome.check("input[name=history-span][value='7']")
    welcome.click("#history-import")
    expect(welcome.locator("#history-result")).to_contain_text(
        "searchable by title and address", timeout=UI_TIMEOUT_MS)
    expect(welcome.locator("#history-refused")).to_contain_text("banks and payments 1")

    urls = browsed.store_urls()
    assert TIDES.url in urls and CURRENTS.url in urls
    assert not any("chase.com" in u for u in urls), urls  # never left the browser
    hits = browsed.search("tides late")
    assert hits and hits[0]["url"] == TIDES.url and hits[0]["read"] is False
    assert browsed.search("quorbalite") == []  # only its title is known so far


def test_with_consent_the_pages_text_is_loaded_without_cookies(browsed, history_sites):
    welcome = browsed.welcome
    expect(welcome.locator("#backfill-words")).to_have_text(
        "Rewind will load these public pages again from their sites, without your cookies, "
        "to read their text.", timeout=UI_TIMEOUT_MS)
    history_sites.seen.clear()
    welcome.click("#backfill-consent")

    status = wait_until(
        lambda: (s := browsed.evaluate("globalThis.__rewind.backfill.status()"))["state"] == "done"
        and s, 120, "the backfill to finish", interval=0.5)
    assert status["loaded"] == 2, status
    reasons = {s["url"]: s["reason"] for s in status["recentSkipped"]}
    assert "sign in" in reasons[PREMIUM] and "401" in reasons[PREMIUM]
    assert "sign in" in reasons[PAYWALL.url], status
    expect(welcome.locator("#backfill-line")).to_contain_text("is loaded", timeout=UI_TIMEOUT_MS)

    hits = browsed.search("quorbalite")  # a word only the body holds
    assert [h["url"] for h in hits] == [TIDES.url] and hits[0]["read"] is False
    assert browsed.search("overturning circulation")[0]["url"] == CURRENTS.url
    fetched = [s for s in history_sites.seen if s[0] in ("www.lrb.co.uk", "www.ft.com")]
    assert len(fetched) >= 2 and all(cookie == "" for _host, _path, cookie in fetched), fetched
    page = next(p for p in store_pages(browsed.data_dir) if p["url"] == TIDES.url)
    assert page["visit_count"] == 1 and page["read"] is False  # loading it is not a visit


def test_the_address_bar_keyword_finds_a_page(browsed):
    browsed.wait_connected()
    suggestions = browsed.evaluate("globalThis.__rewind.omnibox('slow river')")
    assert suggestions and suggestions[0]["content"] == CURRENTS.url
    assert "<match>The slow river under the sea</match>" in suggestions[0]["description"]
    assert "not read" in suggestions[0]["description"]


def test_without_the_helper_the_welcome_page_shows_the_command(launch):
    browser = launch("no-helper", registered=False, keep_welcome=True)
    welcome = browser.welcome
    expect(welcome.locator("#helper-fix")).to_contain_text("isn't installed", timeout=UI_TIMEOUT_MS)
    expect(welcome.locator("#helper-fix code")).to_have_text("rewind setup")
