"""The closest thing you read, in the side panel: no answer is backed, but a page read is
near the question, so its passage is shown quoted — as text, a hostile page's too.

One browser for the module, whose host has the real embedding model and no language model
(a model folder with MiniLM only), so that what is asked is decided by the host's gate and
extracts alone, the same on every run: with the offline language model the outcome of a
question would depend on what the small model writes. It reads two pages of the local site
past the dwell threshold, one of them hostile (markup and script in its title and text).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from panel_ui import COULD_NOT_FIND, ask, check_closest_as_text, last_turn
from playwright.sync_api import expect
from rewind.models import specs
from site_pages import ARTICLES, HOSTILE_PATH, HOSTILE_TEXT, HOSTILE_TITLE

from demo.harness import RewindBrowser

pytestmark = pytest.mark.browser

BEES = "articles/beekeeping.html"
READ = [BEES, HOSTILE_PATH]
MINILM = "all-minilm-l6-v2-int8"


@pytest.fixture(scope="module")
def browser(launch, site, model_dir: Path, tmp_path_factory) -> RewindBrowser:
    only_minilm = tmp_path_factory.mktemp("models-without-llm")
    (only_minilm / MINILM).symlink_to(specs.model_path(specs.embedding_spec(MINILM),
                                                        model_dir), target_is_directory=True)
    b = launch("closest", env={"REWIND_MODEL_DIR": str(only_minilm)})
    b.wait_connected()
    b.settings(dwellSeconds=1)
    b.read_all([site.url(p) for p in READ])
    return b


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_a_question_near_a_page_that_does_not_say_shows_its_passage(browser, panel, site):
    text = ask(panel, "What do bees eat in winter?")

    assert text != COULD_NOT_FIND
    turn = last_turn(panel)
    shown = check_closest_as_text(turn, {site.url(p) for p in READ})
    assert shown["page"] == site.url(BEES) and shown["title"] == ARTICLES[BEES][0]
    quoted = flat(shown["quote"]).removeprefix("… ").removesuffix(" …")
    assert len(quoted) > 40 and quoted in flat(" ".join(ARTICLES[BEES][1]))
    expect(turn.locator(".answer")).to_contain_text("Not an answer: nothing you read backs one.")
    expect(panel.locator("#ask-status")).to_contain_text("passage closest to it")
    # Its link opens the page at that passage.
    with browser.ctx.expect_page() as opened:
        turn.locator(".closest-passage a.cite").click()
    page = opened.value
    page.wait_for_load_state("domcontentloaded")
    assert page.url.startswith(site.url(BEES) + "#:~:text="), page.url
    page.close()


def test_a_hostile_page_quoted_stays_text(browser, panel, site, script_effects):
    text = ask(panel, "Why do quokkas come out at dawn?")

    assert text != COULD_NOT_FIND
    turn = last_turn(panel)
    shown = check_closest_as_text(turn, {site.url(p) for p in READ})
    assert shown["page"] == site.url(HOSTILE_PATH)
    assert shown["title"] == HOSTILE_TITLE  # tags and all, as text
    assert "<b>bold claim</b>" in shown["quote"] and "<script>" in shown["quote"]
    assert flat(shown["quote"]).removeprefix("… ").removesuffix(" …") in flat(HOSTILE_TEXT + (
        " Rangers walk the same path every morning and note each quokkaflux count in a small "
        "waterproof book, so the numbers from different years can be compared fairly."))
    assert panel.evaluate("() => window.__rewindPwned") is None
    assert script_effects() == []  # no dialog, no blocked script or markup


def test_a_question_nothing_read_is_near_is_still_couldnt_find(browser, panel):
    assert ask(panel, "Who painted the ceiling of the Sistine Chapel?") == COULD_NOT_FIND
    expect(last_turn(panel).locator(".closest-passage")).to_have_count(0)
