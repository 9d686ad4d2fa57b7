"""Asking in the side panel: the answer streams in, cites the page it came from, stops on Stop.

One browser for the module. It reads a few pages of the local site (and the hostile page)
past the dwell threshold, the real host indexes them with the real embedding model, and
the real language model (SmolLM2-135M) answers. The side panel is opened as a tab
(chrome-extension://<ID>/sidepanel.html), which runs the same page as the real panel.

The 135M model is weak, so the tests assert what the host guarantees (answer.py): every
citation is checked against the sources it was given, and an answer no source supports
becomes the closest page's passage, quoted (a page near the question), or "I couldn't find
that in your history." with the closest pages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from panel_ui import (
    ANSWER_TIMEOUT_MS,
    COULD_NOT_FIND,
    RESULTS,
    UI_TIMEOUT_MS,
    WATCH_ANSWER,
    ask,
    ask_log,
    check_closest_as_text,
    check_rendered_as_text,
    last_turn,
    search,
    start_asking,
    wait_answered,
)
from playwright.sync_api import expect
from site_pages import ARTICLES, HOSTILE_PATH, HOSTILE_TITLE

from demo.harness import RewindBrowser, wait_until

pytestmark = pytest.mark.browser

LIGHTHOUSE = "articles/lighthouse.html"
READ = [LIGHTHOUSE, "articles/sourdough.html", "articles/tide-pools.html", HOSTILE_PATH]
NEVER_READ = "Who painted the ceiling of the Sistine Chapel?"
STOP_TIMEOUT_MS = 2_000
# host.log: one line per finished request (rewind.host), e.g. "type=ask lane=slow 12.3 ms ok"
ASK_LOGGED = re.compile(r"type=ask lane=\w+ [\d.]+ ms (\w+)")


@pytest.fixture(scope="module")
def browser(launch, site, llm_dir: Path) -> RewindBrowser:
    b = launch("ask")
    b.wait_connected()
    b.settings(dwellSeconds=1)
    b.read_all([site.url(p) for p in READ])
    return b


def test_question_about_a_read_page_streams_an_answer_citing_it(browser, panel, site):
    lighthouse = site.url(LIGHTHOUSE)
    read_urls = {site.url(p) for p in READ}

    text = ask(panel, "What did Augustin Fresnel replace one thick heavy lens with?")

    # It streamed: the answer had text while the panel was still busy.
    log = ask_log(panel)
    streamed = [e["text"] for e in log if e["busy"] == "true" and e["text"].strip()]
    assert streamed, f"no text before the answer finished: {log}"

    assert text.strip(), "nothing shown for the question"
    turn = last_turn(panel)
    if turn.locator(".closest-passage").count():
        # The model's words failed the check, the page is near: its passage, quoted.
        shown = check_closest_as_text(turn, read_urls)
        assert shown["page"] == lighthouse and shown["title"] == ARTICLES[LIGHTHOUSE][0]
        return
    badges = check_rendered_as_text(turn, read_urls)
    if text == COULD_NOT_FIND:
        # Not supported by the page (the model's words failed the check): the one line,
        # and the closest pages as result cards, the page that has the answer among them.
        assert not badges
        card = turn.locator(".closest li.result").filter(has_text=ARTICLES[LIGHTHOUSE][0])
        expect(card).to_have_count(1)
        assert card.locator("a.title").get_attribute("href").startswith(lighthouse + "#:~:text=")
    else:
        cites_lighthouse = [b for b in badges if b["page"] == lighthouse]
        assert cites_lighthouse, f"no badge links to {lighthouse}: {badges}"
        assert cites_lighthouse[0]["title"] == ARTICLES[LIGHTHOUSE][0]
        sources = turn.locator(".sources > li")
        expect(sources.filter(has_text=ARTICLES[LIGHTHOUSE][0])).to_have_count(1)
        # Supported: the host kept only sentences the cited pages back, so the answer is
        # made of the page's words (its long ones, at least a few of them).
        page_words = set(re.findall(r"[a-z]{5,}", " ".join(ARTICLES[LIGHTHOUSE][1]).lower()))
        shared = page_words & set(re.findall(r"[a-z]{5,}", text.lower()))
        assert len(shared) >= 3, f"a supported answer with little of the page in it: {text!r}"


def test_question_about_something_never_read_is_not_found(browser, panel, site):
    text = ask(panel, NEVER_READ)

    # The one line, never prose listing pages (closest pages, if any, are cards under it:
    # test_browser_panel.py).
    assert text == COULD_NOT_FIND, f"an answer from pages never read: {text!r}"
    turn = last_turn(panel)
    check_rendered_as_text(turn, {site.url(p) for p in READ})
    assert turn.locator(".sources").count() == 0


def host_asks(browser: RewindBrowser) -> list[str]:
    """The outcome of each ask the host finished, in order (from its log)."""
    log = browser.data_dir / "host.log"
    return ASK_LOGGED.findall(log.read_text(encoding="utf-8")) if log.exists() else []


def test_stop_ends_the_answer_at_once_and_the_host_keeps_working(browser, panel, site):
    pids = browser.host_pids()
    assert pids, "no host running"
    asked_before = len(host_asks(browser))
    # A question the model answers at length (it would run for many seconds).
    start_asking(panel, "How much flour and water do you feed a sourdough starter?")

    expect(panel.locator("#ask")).to_have_attribute("aria-busy", "true")
    stop = panel.get_by_role("button", name="Stop")
    stop.click(timeout=STOP_TIMEOUT_MS)
    expect(panel.locator("#ask")).to_have_attribute("aria-busy", "false", timeout=STOP_TIMEOUT_MS)
    expect(panel.locator("#ask-status")).to_have_text("Stopped.")
    expect(stop).to_be_disabled()
    expect(panel.get_by_role("button", name="Ask", exact=True)).to_be_enabled()
    answer = last_turn(panel).locator(".answer")
    shown = answer.text_content()

    # The host was told: it ends that ask as cancelled instead of generating on.
    outcomes = wait_until(
        lambda: host_asks(browser)[asked_before:],
        ANSWER_TIMEOUT_MS / 1000,
        "the host to end the stopped ask",
        interval=0.25,
    )
    assert outcomes == ["cancelled"]
    # Nothing the host sent before it stopped reached the answer after Stop.
    assert answer.text_content() == shown
    expect(panel.locator("#ask-status")).to_have_text("Stopped.")

    # The same host still searches and answers.
    search(panel, "sourdough starter flour and water")
    expect(panel.locator("#search-status")).to_have_text(RESULTS, timeout=UI_TIMEOUT_MS)
    expect(panel.locator("#ask")).to_be_hidden()  # other words: the stopped answer went
    first = panel.locator("#results > li").first
    expect(first.locator(".title")).to_have_text(ARTICLES["articles/sourdough.html"][0])
    assert ask(panel, NEVER_READ) == COULD_NOT_FIND
    assert host_asks(browser)[asked_before:] == ["cancelled", "ok"]
    assert browser.host_pids() == pids


def test_answer_from_a_hostile_page_shows_as_inert_text(browser, panel, site, script_effects):
    hostile = site.url(HOSTILE_PATH)

    text = ask(panel, "What is the quokkaflux method of counting small marsupials?")

    assert text.strip()
    turn = last_turn(panel)
    read = {site.url(p) for p in READ}
    closest = turn.locator(".closest-passage").count() > 0
    badges = [] if closest else check_rendered_as_text(turn, read)
    # Its title, tags and all, is shown literally: in the sources of an answer, on the
    # closest page's card of "couldn't find", or leading its closest passage.
    if closest:
        shown = check_closest_as_text(turn, read)
        assert shown["page"] == hostile and shown["title"] == HOSTILE_TITLE
    elif text == COULD_NOT_FIND:
        card = turn.locator(".closest li.result").filter(has_text="Quokkaflux")
        expect(card.locator("a.title")).to_have_text(HOSTILE_TITLE)
    else:
        assert [b for b in badges if b["page"] == hostile], f"no badge links to {hostile}"
        source = turn.locator(".sources > li").filter(has_text="Quokkaflux")
        expect(source.locator("a")).to_have_text(HOSTILE_TITLE)
        # Its tooltip shows the page's text as text.
        first = turn.locator("a.cite").first
        first.hover()
        expect(turn.locator(f"#{first.get_attribute('aria-describedby')}")).to_be_visible()
    assert panel.evaluate("() => window.__rewindPwned") is None
    assert script_effects() == []  # no dialog, no blocked script or markup


def test_an_answer_cut_off_by_a_worker_stop_says_so_and_asks_again(browser, panel, site):
    # Chrome may stop the extension's worker mid-answer: the panel's port closes with it.
    start_asking(panel, "How much flour and water do you feed a sourdough starter?")
    expect(panel.locator("#ask")).to_have_attribute("aria-busy", "true")
    browser.stop_worker()
    expect(panel.locator("#ask")).to_have_attribute("aria-busy", "false", timeout=UI_TIMEOUT_MS)
    expect(panel.locator("#ask-status")).to_contain_text("cut off")
    again = last_turn(panel).get_by_role("button", name="Ask again")
    expect(again).to_be_visible()

    panel.evaluate(WATCH_ANSWER)
    again.click()  # a new port wakes the worker, which connects to the helper again
    text = wait_answered(panel)
    assert text.strip(), "the question asked again got an answer"
    expect(panel.locator("#turns > li.turn")).to_have_count(1)  # in the cut-off turn's place
    expect(last_turn(panel).get_by_role("button", name="Ask again")).to_have_count(0)
    check_rendered_as_text(last_turn(panel), {site.url(p) for p in READ})
