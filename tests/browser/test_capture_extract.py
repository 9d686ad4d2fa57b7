"""What is extracted from a page, in real Chromium with the real extension and host.

Pages are served under real host names (capture_pages.py, over TLS). Typed drafts, text
hidden by a stylesheet, aria-hidden blocks, form fields and templates never reach the host,
and e-mail addresses and phone numbers in what does are masked;
open shadow roots, slotted text and same-origin frames do; a page that replaces its content
is captured as shown, and again when it changes while the person reads; a page showing a
password or payment field is not recorded and the popup says why, while a login box in a
site's header does not stop the article beside it.
"""

from __future__ import annotations

import time

import pytest
from capture_pages import READER
from popup_ui import popup_says

from demo.harness import RewindBrowser, wait_until

pytestmark = pytest.mark.browser

THRESHOLD = 1  # seconds of reading before a page is taken


@pytest.fixture(scope="module")
def browser(launch, named_sites) -> RewindBrowser:
    b = launch("capture-extract", args=named_sites.chromium_args())
    b.wait_connected()
    b.settings(dwellSeconds=THRESHOLD)
    return b


def stored_text(browser: RewindBrowser, word: str) -> list[str]:
    """URLs of pages the host finds for `word` (keyword search)."""
    return [r["url"] for r in browser.search(word)]


def found(browser: RewindBrowser, word: str, urls: list[str]) -> bool:
    """Search finds exactly `urls` for `word` (polled: the text index commits just after
    the store that wait_indexed reads)."""
    wait_until(lambda: stored_text(browser, word) == urls, 15, f"search for {word} -> {urls}")
    return True


def test_drafts_hidden_text_and_fields_never_reach_the_host(browser):
    url = f"{READER}/draft-and-hidden"
    browser.read_until_queued(browser.reading_tab(), url)
    [page] = browser.wait_indexed([url])
    assert page["title"] == "Notes on river otters - [email]", "the title is masked too"
    assert found(browser, "otterglimp", [url])
    assert found(browser, "holts", [url]), "visible text beside an aria-hidden span"
    for word in ("cssveilword", "ariaveilword", "draftveilword", "fieldveilword",
                 "ghostveilword", "faintveilword", "templateveilword"):
        assert stored_text(browser, word) == [], f"{word} reached the host"
    text = "\n".join(passages_of(browser, url))
    assert "[email]" in text and "[phone number]" in text, "personal data masked in the page"
    assert "otter.warden" not in text and "7946" not in text


def passages_of(browser: RewindBrowser, url: str) -> list[str]:
    """The passages the host stored for `url` (the store opened read-only)."""
    from rewind.profile.engine import Rewind

    eng = Rewind.open(browser.data_dir, writer=False, embedder=None)
    try:
        pages = eng.export_pages(0, 500)
    finally:
        eng.close()
    return [p["text"] for page in pages if page["url"] == url for p in page["passages"]]


def test_shadow_roots_slots_and_same_origin_frames_are_read(browser):
    url = f"{READER}/components"
    browser.read_until_queued(browser.reading_tab(), url)
    browser.wait_indexed([url])
    assert found(browser, "birdtrelk", [url])
    assert found(browser, "shadowternword", [url]), "open shadow root"
    assert found(browser, "slottedwarbler", [url]), "text slotted into the shadow root"
    assert found(browser, "frameternword", [url]), "same-origin iframe"
    assert stored_text(browser, "slotlightword") == [], "light DOM no slot shows"


def test_a_page_that_replaces_its_content_is_captured_as_shown(browser):
    tab = browser.reading_tab()
    url = f"{READER}/spa"
    browser.read_until_queued(tab, url)
    [page] = browser.wait_indexed([url])
    assert page["title"] == "Glaciers of Patagonia", "the title the page set after load"
    assert found(browser, "spafirstword", [url])
    assert stored_text(browser, "spaplaceholder") == [], "what the page showed before its app ran"

    # The page changes while the person keeps reading it; they then switch tabs.
    tab.evaluate("""() => { document.querySelector('article').innerHTML =
        '<h1>Glaciers of Patagonia</h1><p>Update: the Upsala glacier spasecondword has '
        + 'retreated several kilometres since the nineteen sixties, faster than any other.</p>';
        }""")
    time.sleep(2.5)  # read a little more (re-extraction on leaving needs 2 s since the last)
    other = browser.ctx.new_page()
    try:
        other.goto("about:blank")
        other.bring_to_front()
        wait_until(lambda: stored_text(browser, "spasecondword") == [url], 60,
                   "the changed page to be taken again when it left the front")
    finally:
        other.close()
    assert stored_text(browser, "spafirstword") == [], "the page's passages were replaced"


def test_a_history_api_route_change_is_a_page_of_its_own(browser):
    tab = browser.reading_tab()
    first = f"{READER}/spa"
    browser.read(tab, first)
    tab.wait_for_function("document.title === 'Glaciers of Patagonia'")
    tab.evaluate("""() => { history.pushState({}, '', '/spa/lakes');
        document.title = 'Lakes of Patagonia';
        document.querySelector('#app').innerHTML = '<article><h1>Lakes of Patagonia</h1>'
        + '<p>Lake General Carrera spalakeword has marble caves carved by waves over six '
        + 'thousand years.</p></article>'; }""")
    route = f"{READER}/spa/lakes"
    [page] = browser.wait_indexed([route])
    assert page["title"] == "Lakes of Patagonia"
    assert found(browser, "spalakeword", [route])


@pytest.mark.parametrize(
    "path,mark,words",
    [
        ("members/welcome", "signinword",
         "Not recorded: looks like a sign-in page (it shows a password field)."),
        ("shop/order", "checkoutword",
         "Not recorded: looks like a payment page (it shows card or bank fields)."),
    ],
)
def test_password_and_payment_pages_are_skipped_and_the_popup_says_why(browser, path, mark, words):
    tab = browser.reading_tab()
    url = f"{READER}/{path}"
    browser.read(tab, url)
    wait_until(lambda: browser.page_status()["verdict"], 30, "the page's own verdict")
    assert popup_says(browser) == words
    sentinel = f"{READER}/with-login-box"
    browser.read(tab, sentinel)
    browser.wait_indexed([sentinel])  # everything before it had its chance
    assert url not in browser.store_urls()
    assert stored_text(browser, mark) == []
    assert not any(it["url"] == url for it in browser.queue()["items"] + browser.queue()["failed"])
    browser.read(tab, url)
    assert popup_says(browser) == words, "remembered for the URL, not extracted again"


def test_a_login_box_in_the_site_header_does_not_stop_the_article(browser):
    tab = browser.reading_tab()
    url = f"{READER}/with-login-box"
    browser.read(tab, url)
    browser.wait_indexed([url])
    assert found(browser, "beaverplunk", [url])
    wait_until(lambda: popup_says(browser).startswith("Remembered"), 30, "the popup to say so")
