"""The side panel a person trusts: the answer above the results, citations that show their
passage, follow-ups in a thread, weak results folded.

One browser for the module. It reads six short articles of the local site past the dwell
threshold; the real host indexes them with the real embedding model and the real language
model (SmolLM2-135M) answers. The side panel is opened as a tab
(chrome-extension://<ID>/sidepanel.html), which runs the same page as the real panel.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from panel_ui import (
    COULD_NOT_FIND,
    RESULTS,
    UI_TIMEOUT_MS,
    ask,
    check_rendered_as_text,
    follow_up,
    last_turn,
    search,
)
from playwright.sync_api import expect
from site_pages import ARTICLES, PANEL_READ

from demo.harness import RewindBrowser

pytestmark = pytest.mark.browser

READ = PANEL_READ
DERAILLEUR = "articles/derailleur.html"
# Its answer sentence is in the derailleur article: the checked answer cites it (the model
# is seeded, so the same history gives the same answer).
QUESTION = "What does a rear derailleur do?"
FOLLOW_UP = "And what do indexed shifters do?"
# Near the sourdough article, which does not say.
NOT_ANSWERED = "What oven temperature should sourdough bread be baked at?"
# A made-up word of one article only (site_pages.py): the other pages share no word with it.
ONE_PAGE_WORD = "crumbleferm"


@pytest.fixture(scope="module")
def browser(launch, site, llm_dir: Path) -> RewindBrowser:
    b = launch("panel")
    b.wait_connected()
    b.settings(dwellSeconds=1)
    b.read_all([site.url(p) for p in READ])
    return b


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_answer_above_results_citation_shows_its_passage_follow_up_in_thread(browser, panel, site):
    read = {site.url(p): p for p in READ}

    text = ask(panel, QUESTION)

    # The answer sits above the results, and the results are the search for its words.
    assert text != COULD_NOT_FIND, "the derailleur article answers this question"
    expect(panel.locator("#q")).to_have_value(QUESTION)
    expect(panel.locator("#search-status")).to_have_text(RESULTS, timeout=UI_TIMEOUT_MS)
    first_result = panel.locator("#results > li").first
    expect(first_result.locator(".title")).to_have_text(ARTICLES[DERAILLEUR][0])
    answer_box = panel.locator("#ask").bounding_box()
    results_box = panel.locator("#results").bounding_box()
    assert answer_box and results_box
    assert answer_box["y"] + answer_box["height"] <= results_box["y"], "the answer is not above"

    # Hovering a citation shows the passage that backs its sentence, as text.
    turn = last_turn(panel)
    badges = check_rendered_as_text(turn, set(read))
    assert badges, f"no citation in {text!r}"
    badge = turn.locator("a.cite").first
    tip = turn.locator(f"#{badges[0]['tip']}")
    expect(tip).to_be_hidden()
    badge.hover()
    expect(tip).to_be_visible()
    # A long passage is clipped around its marked sentence: "…" may open or close it.
    quote = flat(tip.locator(".quote").text_content() or "").removeprefix("…").removesuffix("…")
    page_text = flat(" ".join(ARTICLES[read[badges[0]["page"]]][1]))
    assert len(quote) > 20 and quote in page_text, f"{quote!r} is not a passage of the cited page"
    assert tip.locator("img, script, b").count() == 0
    # The tooltip stays while the pointer moves onto it, and goes when it leaves both.
    tip.hover()
    expect(tip).to_be_visible()
    panel.locator("header").hover()
    expect(tip).to_be_hidden()
    # From the keyboard: focus shows it, Escape hides it.
    badge.focus()
    expect(tip).to_be_visible()
    badge.press("Escape")
    expect(tip).to_be_hidden()
    # Clicking opens the cited page at that passage (a text fragment).
    with browser.ctx.expect_page() as opened:
        badge.click()
    page = opened.value
    page.wait_for_load_state("domcontentloaded")
    assert page.url.startswith(badges[0]["page"] + "#:~:text="), page.url
    page.close()

    # A follow-up goes in the same thread, shown as a conversation under the first answer.
    first_thread = turn.get_attribute("data-thread")
    second = follow_up(panel, FOLLOW_UP)
    turns = panel.locator("#turns > li.turn")
    expect(turns).to_have_count(2)
    expect(turns.nth(0).locator(".question")).to_have_text(f"You asked: {QUESTION}")
    expect(turns.nth(0).locator(".answer")).to_have_text(text)
    expect(turns.nth(1).locator(".question")).to_have_text(f"You asked: {FOLLOW_UP}")
    assert second.strip(), "the follow-up got no answer"
    check_rendered_as_text(turns.nth(1), set(read))
    assert turns.nth(1).get_attribute("data-state") == "done"
    assert first_thread, "the host's final frame carried no thread_id"
    assert turns.nth(1).get_attribute("data-thread") == first_thread
    # The results stay those of the question the thread began with.
    expect(panel.locator("#q")).to_have_value(QUESTION)
    expect(first_result.locator(".title")).to_have_text(ARTICLES[DERAILLEUR][0])


def test_could_not_find_shows_the_closest_pages_as_result_cards(browser, panel, site):
    sourdough = site.url("articles/sourdough.html")

    text = ask(panel, NOT_ANSWERED)

    # One line, not prose listing pages; the closest pages are result cards under it.
    assert text == COULD_NOT_FIND
    turn = last_turn(panel)
    check_rendered_as_text(turn, {site.url(p) for p in READ})
    expect(turn.locator(".answer a.cite")).to_have_count(0)
    cards = turn.locator(".closest li.result")
    card = cards.filter(has_text=ARTICLES["articles/sourdough.html"][0])
    expect(card).to_have_count(1)
    assert card.locator("a.title").get_attribute("href").startswith(sourdough + "#:~:text=")
    expect(card.locator(".snippet")).not_to_be_empty()
    expect(card.locator(".meta")).to_contain_text("visited")
    assert turn.locator(".sources").count() == 0


def test_a_query_matching_one_page_shows_it_and_folds_the_rest(browser, panel, site):
    search(panel, ONE_PAGE_WORD)

    expect(panel.locator("#search-status")).to_have_text(RESULTS)
    shown = panel.locator("#results > li")
    expect(shown).to_have_count(1)
    expect(shown.first.locator(".title")).to_have_text(ARTICLES["articles/sourdough.html"][0])
    # The rest are folded under a closed section, out of sight.
    less = panel.locator("#less-relevant")
    expect(less).to_be_visible()
    summary = panel.locator("#less-label")
    expect(summary).to_have_text(re.compile(r"^Less relevant \(\d+\)$"))
    folded_n = int(re.findall(r"\d+", summary.text_content() or "")[0])
    assert 1 <= folded_n <= len(READ) - 1
    folded = panel.locator("#results-folded > li")
    expect(folded).to_have_count(folded_n)
    expect(folded.first).to_be_hidden()
    assert less.get_attribute("open") is None

    # The arrow keys move through what is shown only, until the section is opened.
    box = panel.locator("#q")
    box.press("ArrowDown")
    expect(box).to_have_attribute("aria-activedescendant", "result-0-link")
    # Opened from the keyboard, as any <details> is (its summary takes the focus).
    summary.focus()
    summary.press("Enter")
    expect(less).to_have_attribute("open", "")
    expect(folded.first).to_be_visible()
    box.press("ArrowDown")
    expect(box).to_have_attribute("aria-activedescendant", "result-1-link")
    expect(folded.first).to_have_attribute("aria-current", "true")
    # Closed again: the selection goes back to what is shown.
    summary.press("Enter")
    expect(folded.first).to_be_hidden()
    expect(box).to_have_attribute("aria-activedescendant", "result-0-link")
