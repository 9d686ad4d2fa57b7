"""Asking in the side panel: the answer streams in, cites the page it came from, stops on Stop.

One browser for the module. It reads a few pages of the local site (and the hostile page)
past the dwell threshold, the real host indexes them with the real embedding model, and
the real language model (SmolLM2-135M) answers. The side panel is opened as a tab
(chrome-extension://<ID>/sidepanel.html), which runs the same page as the real panel.

The 135M model is weak, so the tests assert what the host guarantees (answer.py): every
citation is checked against the sources it was given, and an answer no source supports
becomes "I couldn't find that in your history." with the closest pages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from site_pages import ARTICLES, HOSTILE_PATH, HOSTILE_TITLE

from demo.harness import RewindBrowser, wait_until

pytestmark = pytest.mark.browser

LIGHTHOUSE = "articles/lighthouse.html"
READ = [LIGHTHOUSE, "articles/sourdough.html", "articles/tide-pools.html", HOSTILE_PATH]
COULD_NOT_FIND = "I couldn't find that in your history."  # rewind.answers.answer.COULD_NOT_FIND
NEVER_READ = "Who painted the ceiling of the Sistine Chapel?"
RESULTS = re.compile(r"^\d+ results? in \d+ ms$")
UI_TIMEOUT_MS = 30_000
ANSWER_TIMEOUT_MS = 120_000  # the first ask loads the model; two shared cores
STOP_TIMEOUT_MS = 2_000
# host.log: one line per finished request (rewind.host), e.g. "type=ask lane=slow 12.3 ms ok"
ASK_LOGGED = re.compile(r"type=ask lane=\w+ [\d.]+ ms (\w+)")

# Records, at each change of #answer or of the panel's aria-busy, what the answer shows and
# whether the panel is busy (an answer found in no page can come back within milliseconds).
WATCH_ANSWER = """() => {
    const answer = document.getElementById("answer");
    const ask = document.getElementById("ask");
    if (!window.__askLog) {
        const note = () => window.__askLog.push(
            {busy: ask.getAttribute("aria-busy"), text: answer.textContent});
        const watch = new MutationObserver(note);
        watch.observe(answer, {childList: true, subtree: true, characterData: true});
        watch.observe(ask, {attributes: true, attributeFilter: ["aria-busy"]});
    }
    window.__askLog = [];
}"""


@pytest.fixture(scope="module")
def browser(launch, site, llm_dir: Path) -> RewindBrowser:
    b = launch("ask")
    b.wait_connected()
    b.settings(dwellSeconds=1)
    tab = b.reading_tab()
    urls = [site.url(p) for p in READ]
    for url in urls:
        b.read_until_queued(tab, url)
    b.wait_indexed(urls)
    return b


def start_asking(panel, question: str) -> None:
    """Type a question and press Ask, as a person does (the answer then streams in)."""
    panel.evaluate(WATCH_ANSWER)
    panel.locator("#question").fill(question)
    panel.get_by_role("button", name="Ask", exact=True).click()


def ask_log(panel) -> list[dict]:
    """What the panel showed while asking: [{busy, text}] at each change (WATCH_ANSWER)."""
    return panel.evaluate("() => window.__askLog")


def ask(panel, question: str) -> str:
    """Ask and wait for the whole answer; returns the answer's text as shown."""
    start_asking(panel, question)

    def finished() -> bool:
        busy = [e["busy"] for e in ask_log(panel)]
        return "true" in busy and "false" in busy[busy.index("true") :]

    wait_until(finished, ANSWER_TIMEOUT_MS / 1000, "the answer to finish", interval=0.1)
    expect(panel.locator("#ask")).to_have_attribute("aria-busy", "false")
    expect(panel.get_by_role("button", name="Ask", exact=True)).to_be_enabled()
    expect(panel.get_by_role("button", name="Stop")).to_be_disabled()
    return panel.locator("#answer").text_content() or ""


def page_of(href: str | None) -> str:
    """The page a link opens (without its #:~:text= fragment)."""
    assert href, "a link without an href"
    return href.split("#", 1)[0]


def check_rendered_as_text(panel, read_urls: set[str]) -> list[dict]:
    """The answer is text plus citation badges, each badge a link to a page that was read.

    Returns the badges as {n, page, title}.
    """
    answer = panel.locator("#answer")
    # Nothing but text nodes and badges: no markup came from the model or the pages.
    assert panel.locator("#answer > :not(.cite)").count() == 0
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
        title = badge.get_attribute("title") or ""
        assert badge.get_attribute("aria-label") == f"Source {text}: {title}"
        badges.append({"n": int(text), "page": page, "title": title})
    # The sources under the answer are the pages read, listed by number.
    for link in panel.locator("#sources > li a").all():
        assert page_of(link.get_attribute("href")) in read_urls
    assert panel.locator("#ask img, #ask script, #ask iframe, #ask b").count() == 0
    return badges


def test_question_about_a_read_page_streams_an_answer_citing_it(browser, panel, site):
    lighthouse = site.url(LIGHTHOUSE)
    read_urls = {site.url(p) for p in READ}

    text = ask(panel, "What did Augustin Fresnel replace one thick heavy lens with?")

    # It streamed: the answer had text while the panel was still busy.
    log = ask_log(panel)
    streamed = [e["text"] for e in log if e["busy"] == "true" and e["text"].strip()]
    assert streamed, f"no text before the answer finished: {log}"

    assert text.strip(), "nothing shown for the question"
    badges = check_rendered_as_text(panel, read_urls)
    cites_lighthouse = [b for b in badges if b["page"] == lighthouse]
    assert cites_lighthouse, f"no badge links to {lighthouse}: {badges}"
    assert cites_lighthouse[0]["title"] == ARTICLES[LIGHTHOUSE][0]
    sources = panel.locator("#sources > li")
    expect(sources.filter(has_text=ARTICLES[LIGHTHOUSE][0])).to_have_count(1)
    if COULD_NOT_FIND in text:
        # Not supported by the page (the model's words failed the check): the closest
        # pages are offered instead, and the page that has the answer is among them.
        assert text.startswith(COULD_NOT_FIND)
        assert "The closest pages:" in text
    else:
        # Supported: the host kept only sentences the cited pages back, so the answer is
        # made of the page's words (its long ones, at least a few of them).
        page_words = set(re.findall(r"[a-z]{5,}", " ".join(ARTICLES[LIGHTHOUSE][1]).lower()))
        shared = page_words & set(re.findall(r"[a-z]{5,}", text.lower()))
        assert len(shared) >= 3, f"a supported answer with little of the page in it: {text!r}"


def test_question_about_something_never_read_is_not_found(browser, panel, site):
    text = ask(panel, NEVER_READ)

    assert text.startswith(COULD_NOT_FIND), f"an answer from pages never read: {text!r}"
    check_rendered_as_text(panel, {site.url(p) for p in READ})


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
    shown = panel.locator("#answer").text_content()

    # The host was told: it ends that ask as cancelled instead of generating on.
    outcomes = wait_until(
        lambda: host_asks(browser)[asked_before:],
        ANSWER_TIMEOUT_MS / 1000,
        "the host to end the stopped ask",
        interval=0.25,
    )
    assert outcomes == ["cancelled"]
    # Nothing the host sent before it stopped reached the answer after Stop.
    assert panel.locator("#answer").text_content() == shown
    expect(panel.locator("#ask-status")).to_have_text("Stopped.")

    # The same host still searches and answers.
    box = panel.locator("#q")
    box.click()
    panel.keyboard.type("sourdough starter flour and water", delay=25)
    expect(panel.locator("#search-status")).to_have_text(RESULTS, timeout=UI_TIMEOUT_MS)
    first = panel.locator("#results > li").first
    expect(first.locator(".title")).to_have_text(ARTICLES["articles/sourdough.html"][0])
    assert ask(panel, NEVER_READ).startswith(COULD_NOT_FIND)
    assert host_asks(browser)[asked_before:] == ["cancelled", "ok"]
    assert browser.host_pids() == pids


def test_answer_from_a_hostile_page_shows_as_inert_text(browser, panel, site, script_effects):
    hostile = site.url(HOSTILE_PATH)

    text = ask(panel, "What is the quokkaflux method of counting small marsupials?")

    assert text.strip()
    badges = check_rendered_as_text(panel, {site.url(p) for p in READ})
    assert [b for b in badges if b["page"] == hostile], f"no badge links to {hostile}"
    # Its title, tags and all, is shown literally (in the sources; and in the answer when
    # the answer lists the closest pages).
    source = panel.locator("#sources > li").filter(has_text="Quokkaflux")
    expect(source.locator("a")).to_have_text(HOSTILE_TITLE)
    if COULD_NOT_FIND in text:
        assert HOSTILE_TITLE in text
    assert panel.evaluate("() => window.__rewindPwned") is None
    assert script_effects() == []  # no dialog, no blocked script or markup
