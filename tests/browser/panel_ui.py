"""The side panel driven as a person does: type, ask, follow up, hover a citation.

Shared by the side-panel browser tests. The panel's thread of answers (#ask, #turns) sits
above the search results (#results, and #less-relevant for the folded ones).
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from demo.harness import wait_until

COULD_NOT_FIND = "I couldn't find that in your history."  # rewind.answers.prompt.COULD_NOT_FIND
RESULTS = re.compile(r"^\d+ results? in \d+ ms$")
SEARCHED = re.compile(r"results? in \d+ ms|Nothing you've read")
UI_TIMEOUT_MS = 30_000
ANSWER_TIMEOUT_MS = 120_000  # the first ask loads the model; two shared cores

# Records, at each change of the thread or of its aria-busy, what the last answer shows
# and whether the panel is busy (an answer found in no page can come back within ms).
WATCH_ANSWER = """() => {
    const turns = document.getElementById("turns");
    const ask = document.getElementById("ask");
    if (!window.__askLog) {
        const note = () => {
            const answers = turns.querySelectorAll(".turn > .answer");
            const last = answers[answers.length - 1];
            window.__askLog.push({busy: ask.getAttribute("aria-busy"),
                                  turns: answers.length, text: last ? last.textContent : ""});
        };
        const watch = new MutationObserver(note);
        watch.observe(turns, {childList: true, subtree: true, characterData: true});
        watch.observe(ask, {attributes: true, attributeFilter: ["aria-busy"]});
    }
    window.__askLog = [];
}"""


def search(panel: Any, query: str) -> None:
    """Type into the search box as a person does (the panel debounces, then searches)."""
    box = panel.locator("#q")
    box.click()
    box.press("Escape")  # clears an earlier search (and its answer)
    panel.keyboard.type(query, delay=25)
    expect(panel.locator("#search-status")).to_have_text(SEARCHED, timeout=UI_TIMEOUT_MS)


def ask_log(panel: Any) -> list[dict]:
    """What the panel showed while asking: [{busy, turns, text}] at each change."""
    return panel.evaluate("() => window.__askLog")


def start_asking(panel: Any, question: str) -> None:
    """Type a question in the box and press Ask (the answer then streams in)."""
    panel.evaluate(WATCH_ANSWER)
    panel.locator("#q").fill(question)
    panel.get_by_role("button", name="Ask", exact=True).click()


def wait_answered(panel: Any) -> str:
    """Until the answer under way has finished; returns the last answer's text."""

    def finished() -> bool:
        busy = [e["busy"] for e in ask_log(panel)]
        return "true" in busy and "false" in busy[busy.index("true") :]

    wait_until(finished, ANSWER_TIMEOUT_MS / 1000, "the answer to finish", interval=0.1)
    expect(panel.locator("#ask")).to_have_attribute("aria-busy", "false")
    expect(panel.get_by_role("button", name="Ask", exact=True)).to_be_enabled()
    expect(panel.get_by_role("button", name="Stop")).to_be_disabled()
    return last_turn(panel).locator(".answer").text_content() or ""


def ask(panel: Any, question: str) -> str:
    """Ask and wait for the whole answer; returns the answer's text as shown."""
    start_asking(panel, question)
    return wait_answered(panel)


def follow_up(panel: Any, question: str) -> str:
    """Type a follow-up under the answer and press Enter; returns its answer's text."""
    panel.evaluate(WATCH_ANSWER)
    box = panel.get_by_label("Ask a follow-up question")
    box.fill(question)
    box.press("Enter")
    return wait_answered(panel)


def last_turn(panel: Any) -> Any:
    return panel.locator("#turns > li.turn").last


def page_of(href: str | None) -> str:
    """The page a link opens (without its #:~:text= fragment)."""
    assert href, "a link without an href"
    return href.split("#", 1)[0]


def check_rendered_as_text(turn: Any, read_urls: set[str]) -> list[dict]:
    """A turn's answer is text plus citation badges, each badge a link to a page that was
    read, described by a tooltip. Returns the badges as {n, page, title, tip}."""
    answer = turn.locator(".answer")
    # Nothing but text nodes and badges: no markup came from the model or the pages.
    assert answer.locator(":scope > :not(.cite)").count() == 0
    assert answer.locator(".cite *").count() == 0
    assert "[Source" not in (answer.text_content() or "")  # every citation became a badge
    # A plain <span class="cite"> cites a source number the reply did not list.
    assert answer.locator("span.cite").count() == 0
    badges = []
    for badge in answer.locator("a.cite").all():
        text = badge.text_content() or ""
        assert re.fullmatch(r"\d+", text), f"badge text {text!r}"
        page = page_of(badge.get_attribute("href"))
        assert page in read_urls, f"a badge links to {page}, not a page that was read"
        label = badge.get_attribute("aria-label") or ""
        assert label.startswith(f"Source {text}: "), label
        tip = badge.get_attribute("aria-describedby")
        assert tip and turn.locator(f"#{tip}[role=tooltip]").count() == 1
        badges.append({"n": int(text), "page": page, "title": label.split(": ", 1)[1], "tip": tip})
    for link in turn.locator(".sources > li a, .closest a.title").all():
        assert page_of(link.get_attribute("href")) in read_urls
    assert turn.locator("img, script, iframe, b").count() == 0
    return badges


def check_closest_as_text(turn: Any, read_urls: set[str]) -> dict:
    """A turn whose reply was a closest passage: the lead naming the page, the passage in a
    quote, links to a page that was read, all text. Returns {page, title, quote}."""
    box = turn.locator(".answer.closest-passage")
    expect(box).to_have_count(1)
    lead = box.locator(".closest-lead").text_content() or ""
    assert lead.startswith("The closest thing you read — ") and lead.endswith(":"), lead
    title = lead.removeprefix("The closest thing you read — ").removesuffix(":")
    quote = (box.locator("blockquote.quote").text_content() or "").strip()
    assert quote.startswith("“") and quote.endswith("”"), quote
    links = box.locator("a").all()
    assert links, "no link to the page"
    pages = {page_of(a.get_attribute("href")) for a in links}
    assert len(pages) == 1 and pages <= read_urls, pages
    assert all("#:~:text=" in (a.get_attribute("href") or "") for a in links)
    assert box.locator("img, script, iframe, b").count() == 0
    assert turn.locator(".closest li.result, .sources").count() == 0  # neither cards nor list
    return {"page": pages.pop(), "title": title, "quote": quote[1:-1]}
