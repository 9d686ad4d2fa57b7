"""The side panel, typed into like a person: search finds the right page, hostile text stays text.

One browser for the module. It reads a few real pages of the Python documentation and a
hostile page; the side panel is opened as a tab (chrome-extension://<ID>/sidepanel.html),
which runs the same page as the real panel.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from site_pages import HOSTILE_PATH, HOSTILE_TITLE

from demo.harness import RewindBrowser, store_pages

pytestmark = pytest.mark.browser

# Short pages of the Python docs with distinct topics (short: embedding is the slow part).
DOCS = [
    "tutorial/venv.html",
    "faq/installed.html",
    "tutorial/appetite.html",
    "faq/gui.html",
    "tutorial/whatnow.html",
]
RESULTS = re.compile(r"^\d+ results? in \d+ ms$")
UI_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def browser(launch, site, docs_url) -> RewindBrowser:
    b = launch("sidepanel")
    b.wait_connected()
    b.settings(dwellSeconds=1)
    b.read_all([docs_url(p) for p in DOCS] + [site.url(HOSTILE_PATH)])
    return b


def search(panel, query: str) -> None:
    """Type into the search box as a person does (the panel debounces, then searches)."""
    box = panel.locator("#q")
    box.click()
    box.press("Escape")  # clears an earlier search
    panel.keyboard.type(query, delay=25)
    expect(panel.locator("#search-status")).to_have_text(RESULTS, timeout=UI_TIMEOUT_MS)


def test_search_typed_in_side_panel_lists_the_right_page_first(browser, panel, docs_url):
    venv = docs_url("tutorial/venv.html")
    [stored] = [p for p in store_pages(browser.data_dir) if p["url"] == venv]

    search(panel, "a self-contained directory tree with its own installed packages")

    first = panel.locator("#results > li").first
    expect(first.locator(".title")).to_have_text(stored["title"])
    assert first.locator(".title").get_attribute("href").startswith(venv + "#:~:text=")
    expect(first).to_have_attribute("aria-current", "true")  # Enter in the box opens it
    expect(first.locator(".snippet")).not_to_be_empty()
    expect(first.locator(".meta")).to_contain_text("visited")

    # Enter opens the selected result in a tab, scrolled to its passage (a text fragment).
    with browser.ctx.expect_page() as opened:
        panel.locator("#q").press("Enter")
    page = opened.value
    page.wait_for_load_state("domcontentloaded")
    assert page.url.startswith(venv)
    page.close()


def test_keyword_mode_finds_an_odd_word(browser, panel, docs_url):
    panel.get_by_label("Keyword").check()
    search(panel, "Tkinter")
    first = panel.locator("#results > li").first
    assert first.locator(".title").get_attribute("href").startswith(docs_url("faq/gui.html"))


def test_hostile_page_shows_as_inert_text(browser, panel, site, script_effects):
    [stored] = [p for p in store_pages(browser.data_dir) if p["url"] == site.url(HOSTILE_PATH)]
    assert stored["title"] == HOSTILE_TITLE  # the host keeps it as it came: text

    search(panel, "quokkaflux marsupials")

    hit = panel.locator("#results > li").filter(has_text="hostile.html")
    expect(hit).to_have_count(1)
    expect(hit.locator(".title")).to_have_text(HOSTILE_TITLE)  # shown literally, tags and all
    expect(hit.locator(".snippet")).to_contain_text("quokkaflux")
    # Nothing in the results became markup: no element the page's text could have made.
    assert panel.locator("#results img, #results script, #results b, #results iframe").count() == 0
    assert panel.evaluate("() => window.__rewindPwned") is None
    assert script_effects() == []  # no dialog, no blocked script or markup
