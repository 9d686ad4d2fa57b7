"""Every extension page usable by everyone: no axe-core violation, the side panel driven by
the keyboard alone, its results and answers announced.

One browser for the module, with the real host and models. It reads six articles of the
local site (search results, a checked answer and a follow-up in the side panel) and one
borderline page of tests/support/private_pages.py under its own host name, which the host holds
for the person's decision (the held pages, in the popup and the options page).

axe-core (npm, pinned in extension/package.json) runs in each page as it is shown to a
person: the side panel with results, an answer and a follow-up, a citation's tooltip open;
the popup; each section of the options page; the welcome page; the held pages. Each in the
light and the dark colour scheme (prefers-color-scheme, which the pages follow), WCAG 2.2
A/AA rules and axe's best practices. A failure lists each rule, its impact and the elements
it is on.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from axe_check import axe_source, check_both_schemes
from panel_ui import RESULTS, UI_TIMEOUT_MS, WATCH_ANSWER, ask, follow_up, last_turn, wait_answered
from playwright.sync_api import expect
from site_pages import PANEL_READ
from support.private_pages import BORDERLINE

from demo.harness import RewindBrowser, wait_until

pytestmark = pytest.mark.browser

READ = PANEL_READ
QUESTION = "What does a rear derailleur do?"  # the derailleur article answers it
FOLLOW_UP = "And what do indexed shifters do?"
MAX_TABS = 40  # Tab presses to reach a control before the test gives up

# What the focused element looks like: its focus ring (its own outline or box shadow, or
# its label's for a radio drawn by its label), and whether that ring's element can be seen.
FOCUSED = """() => {
    const el = document.activeElement;
    const ringed = (e) => {
        const s = getComputedStyle(e);
        return (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0)
            || s.boxShadow !== "none";
    };
    const seen = (e) => {
        const r = e.getBoundingClientRect();
        const s = getComputedStyle(e);
        return r.width > 1 && r.height > 1 && s.visibility !== "hidden" && Number(s.opacity) > 0;
    };
    const holders = [el, el.closest("label")].filter(Boolean);
    const holder = holders.find(e => ringed(e) && seen(e)) || el;
    return {
        what: `${el.tagName.toLowerCase()}#${el.id}.${el.className} `
            + `"${(el.getAttribute("aria-label") || el.textContent || "").trim().slice(0, 50)}"`,
        ring: ringed(holder) && el.matches(":focus-visible"),
        seen: seen(holder),
    };
}"""


@pytest.fixture(scope="module")
def axe() -> str:
    return axe_source()


@pytest.fixture(scope="module")
def browser(launch, site, named_sites, llm_dir: Path) -> RewindBrowser:
    b = launch("a11y", args=named_sites.chromium_args())
    b.wait_connected()
    b.settings(dwellSeconds=1)
    b.read_all([site.url(p) for p in READ])
    return b


@pytest.fixture(scope="module")
def held(browser: RewindBrowser) -> dict:
    """A borderline page read until the host holds it; its entry in the held list. The first
    of tests/support/private_pages.py's BORDERLINE the content check holds (what it makes
    of each is its own tests' business: test_capture_content.py)."""
    tab = browser.reading_tab()
    judged = {}
    for screen in BORDERLINE:
        browser.read(tab, screen.url)
        site = screen.url.split("/")[2]

        def outcome(site=site, url=screen.url) -> dict | None:
            pages = browser.evaluate("globalThis.__rewind.action('held_list')")["held"]
            entry = next((p for p in pages if p["url"].split("/")[2] == site), None)
            if entry:
                return {"held": entry}
            why = browser.evaluate(
                "u => chrome.storage.local.get('page_verdicts').then(g => "
                "(g.page_verdicts || {})[u] || null)", url)
            if why and why.get("by") == "host":
                return {"refused": why}
            stored = any(site in u for u in browser.store_urls())
            return {"recorded": url} if stored else None

        judged[screen.url] = wait_until(outcome, 90, f"the host to judge {screen.url}", 0.25)
        if "held" in judged[screen.url]:
            return judged[screen.url]["held"]
    raise AssertionError(f"no borderline page was held: {judged}")


def focused(panel) -> dict:
    return panel.evaluate(FOCUSED)


def tab_to(panel, selector: str, back: bool = False) -> list[dict]:
    """Press Tab (or Shift+Tab) until the element `selector` has the focus; every stop on
    the way shows where the focus is. Returns the stops."""
    stops = []
    for _ in range(MAX_TABS):
        panel.keyboard.press("Shift+Tab" if back else "Tab")
        stop = focused(panel)
        assert not stop["what"].startswith("body"), (
            f"{selector} not reached: Tab left the page after {[s['what'] for s in stops]}")
        stops.append(stop)
        assert stop["ring"] and stop["seen"], f"focus not visible on {stop}"
        if panel.evaluate("s => document.activeElement.matches(s)", selector):
            return stops
    raise AssertionError(f"{selector} not reached in {MAX_TABS} Tabs: {[s['what'] for s in stops]}")


def announced(panel) -> dict:
    """The polite live regions of the side panel, by id, with what they say now."""
    return panel.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll("[aria-live]")]
            .map(e => [e.id, {live: e.getAttribute("aria-live"), text: e.textContent}]))""")


def test_side_panel_with_results_an_answer_and_a_follow_up_has_no_violations(
        browser, panel, axe):
    ask(panel, QUESTION)
    expect(panel.locator("#search-status")).to_have_text(RESULTS, timeout=UI_TIMEOUT_MS)
    follow_up(panel, FOLLOW_UP)
    expect(panel.locator("#turns > li.turn")).to_have_count(2)
    expect(panel.locator("#results > li").first).to_be_visible()
    less = panel.locator("#less-relevant")
    if less.is_visible():
        panel.locator("#less-label").click()
        expect(panel.locator("#results-folded > li").first).to_be_visible()
    # A citation's tooltip open (focus shows it), as a person reading it sees it.
    badge = panel.locator("#turns a.cite").first
    expect(badge).to_be_visible()  # the derailleur article backs the answer
    badge.focus()
    expect(panel.locator(".cite-tip:not([hidden])")).to_have_count(1)
    check_both_schemes(panel, axe, "the side panel")


def test_popup_has_no_violations(browser, held, axe):
    popup = browser.extension_window("popup.html", width=380, height=600)
    try:
        expect(popup.locator("#page-status")).not_to_have_text("…", timeout=UI_TIMEOUT_MS)
        expect(popup.locator(".held-title")).to_have_text(held["title"], timeout=UI_TIMEOUT_MS)
        expect(popup.locator("#facts")).to_be_visible()
        check_both_schemes(popup, axe, "the popup")
    finally:
        popup.close()


OPTIONS_SECTIONS = ("records", "search", "models", "data", "ai-tools")  # options.html#NAME


def test_options_page_has_no_violations_in_any_section(browser, held, axe):
    options = browser.extension_page("options.html", width=900, height=1200)
    try:
        expect(options.locator("#held-section .held-title")).to_have_text(
            held["title"], timeout=UI_TIMEOUT_MS)
        expect(options.locator("#data-dir")).not_to_contain_text("Connect", timeout=UI_TIMEOUT_MS)
        for section in OPTIONS_SECTIONS:  # each as it is shown, alone, with the navigation
            options.goto(f"{browser.origin}options.html#{section}")
            expect(options.locator(f"#pane-{section}")).to_be_visible()
            check_both_schemes(options, axe, f"the options page (#{section})")
    finally:
        options.close()


def test_welcome_page_has_no_violations(browser, axe):
    welcome = browser.extension_page("welcome.html", width=900, height=1200)
    try:
        expect(welcome.locator("#helper-status")).not_to_have_text("Checking…",
                                                                   timeout=UI_TIMEOUT_MS)
        check_both_schemes(welcome, axe, "the welcome page")
    finally:
        welcome.close()


def test_held_pages_have_no_violations_in_the_popup_and_the_options_page(browser, held, axe):
    popup = browser.extension_window("popup.html", width=380, height=600)
    options = browser.extension_page("options.html", width=900, height=1200)
    try:
        for page, where in ((popup, "#held"), (options, "#held-section")):
            row = page.locator(f"{where} [data-held='{held['id']}']")
            expect(row.locator(".held-title")).to_have_text(held["title"], timeout=UI_TIMEOUT_MS)
            expect(row.get_by_role("button", name="Keep", exact=True)).to_be_visible()
            expect(row.get_by_role("button", name="Don't keep")).to_be_visible()
            check_both_schemes(page, axe, f"the held pages ({where})", include=where)
    finally:
        popup.close()
        options.close()


def test_side_panel_from_the_keyboard_alone_announces_results_and_answers(browser, panel):
    asked: list[str] = []
    panel.on("dialog", lambda d: (asked.append(d.message), d.dismiss()))

    # Search: the box has the focus when the panel opens; typing searches.
    assert panel.evaluate("() => document.activeElement.id") == "q"
    panel.keyboard.type(QUESTION, delay=10)
    status = panel.locator("#search-status")
    expect(status).to_have_text(RESULTS, timeout=UI_TIMEOUT_MS)
    live = announced(panel)
    assert live["search-status"]["live"] == "polite"
    assert RESULTS.match(live["search-status"]["text"]), live  # the count is announced

    # Tab to the first result's link; Enter opens its page at the passage.
    tab_to(panel, "#results > li:first-child a.title")
    href = panel.evaluate("() => document.activeElement.href")
    with browser.ctx.expect_page() as opened:
        panel.keyboard.press("Enter")
    page = opened.value
    page.wait_for_load_state("domcontentloaded")
    assert page.url.split("#")[0] == href.split("#")[0], (page.url, href)
    page.close()

    # Its Forget button is the next stop; Enter asks before forgetting (declined here).
    tab_to(panel, "#results > li:first-child button.forget")
    label = panel.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert label == f"Forget this page: {href.split('#')[0]}", label
    panel.keyboard.press("Enter")
    wait_until(lambda: asked, 10, "Forget to ask first")
    assert href.split("#")[0] in asked[0]
    expect(panel.locator("#results > li").first.locator("a.title")).to_have_attribute("href", href)

    # Back to the box; Control+Enter asks. The answer is announced once it is checked.
    tab_to(panel, "#q", back=True)
    panel.evaluate(WATCH_ANSWER)
    panel.keyboard.press("Control+Enter")
    first = wait_answered(panel)
    assert first.strip()
    live = announced(panel)
    assert live["ask-status"]["live"] == "polite"
    words = re.findall(r"[a-z]{4,}", first.lower())[:6]
    said = live["ask-announce"]["text"].lower()
    assert all(w in said for w in words), f"the answer is not announced: {live}"

    # A citation badge is reached by Tab; its passage shows; Enter opens the cited page.
    tab_to(panel, "#turns a.cite")
    expect(panel.locator(".cite-tip:not([hidden])")).to_have_count(1)
    with browser.ctx.expect_page() as opened:
        panel.keyboard.press("Enter")
    cited = opened.value
    cited.wait_for_load_state("domcontentloaded")
    assert "#:~:text=" in cited.url, cited.url  # at the passage that backs the sentence
    cited.close()

    # The follow-up box is reached by Tab; Enter sends the follow-up in the same thread.
    tab_to(panel, "#follow-up")
    panel.evaluate(WATCH_ANSWER)
    panel.keyboard.type(FOLLOW_UP, delay=10)
    panel.keyboard.press("Enter")
    second = wait_answered(panel)
    expect(panel.locator("#turns > li.turn")).to_have_count(2)
    words = re.findall(r"[a-z]{4,}", second.lower())[:6]
    said = announced(panel)["ask-announce"]["text"].lower()
    assert all(w in said for w in words), f"the follow-up's answer is not announced: {said!r}"
    assert last_turn(panel).locator(".question").text_content() == f"You asked: {FOLLOW_UP}"
