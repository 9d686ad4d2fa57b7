"""Answers that never say what your pages don't: only checked sentences stream.

One browser for the module. It reads a long article (site_pages.LONG_PATH, its answer far
below the first screen) and two short ones past the dwell threshold; the real host indexes
them with the real embedding model and the real language model (SmolLM2-135M) answers. The
side panel is opened as a tab (chrome-extension://<ID>/sidepanel.html), the same page as
the real panel.

What the host guarantees (PROTOCOL.md, ask): its `chunk` frames carry only sentences that
passed the citation check; the model's draft never reaches the extension. So whatever the
answer area shows at any moment, not only at the end, is made of sentences the final reply
shows. While the answer runs, the polite status line says "Checking against your pages…".
A badge opens its page at the passage's marked sentence (a text fragment), scrolled to it.

Two recorders go into the panel before the question: a MutationObserver on the answer
area (every text it ever shows, badges apart, with the status line and aria-busy at that
moment), and a listener on the ask port (chunk frames and the final reply as they came).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from panel_ui import ANSWER_TIMEOUT_MS, check_rendered_as_text, last_turn, page_of
from playwright.sync_api import expect
from site_pages import LONG_PATH, LONG_QUESTION, LONG_SECTIONS, LONG_TITLE

from demo.harness import RewindBrowser, wait_until

pytestmark = pytest.mark.browser

READ = [LONG_PATH, "articles/lighthouse.html", "articles/sourdough.html"]
CHECKING = "Checking against your pages…"  # extension/lib/thread.js CHECKING
# Citation statuses whose sentence the answer shows (rewind.answers.citations SHOWN, and
# reader quotes).
SHOWN = ("ok", "corrected", "added", "quoted")
CITE_TAG = re.compile(r"\[Sources?\s*\d[^\]]*\]")  # "[Source 2]", "[Sources 1, 3]"
SCROLL_TIMEOUT_S = 10.0  # the opened page scrolls to its text fragment after it loads

# Records every text the last answer shows, at each change of the thread, of the status
# line or of aria-busy: `words` is the answer's text without its badges (text nodes outside
# .cite), `status` what the status line says and `statusShown` whether it can be seen.
RECORD_ANSWER = """() => {
    const turns = document.getElementById("turns");
    const ask = document.getElementById("ask");
    const status = document.getElementById("ask-status");
    window.__seen = [];
    const note = () => {
        const answers = turns.querySelectorAll(".turn > .answer");
        const last = answers[answers.length - 1];
        let words = "";
        if (last) {
            const walk = document.createTreeWalker(last, NodeFilter.SHOW_TEXT);
            for (let n = walk.nextNode(); n; n = walk.nextNode()) {
                words += n.parentElement.closest(".cite") ? " " : n.data;
            }
        }
        window.__seen.push({
            busy: ask.getAttribute("aria-busy"),
            text: last ? last.textContent : "",
            words,
            status: status.textContent,
            statusShown: !ask.hidden && status.getClientRects().length > 0,
        });
    };
    const watch = new MutationObserver(note);
    watch.observe(turns, {childList: true, subtree: true, characterData: true});
    watch.observe(status, {childList: true, subtree: true, characterData: true});
    watch.observe(ask, {attributes: true, attributeFilter: ["aria-busy", "hidden"]});
}"""

# Records the ask port's messages as the panel receives them (the panel's own listener
# runs after this one): chunks as they came, then the final reply.
RECORD_PORT = """() => {
    window.__port = [];
    const connect = chrome.runtime.connect.bind(chrome.runtime);
    chrome.runtime.connect = (...args) => {
        const port = connect(...args);
        port.onMessage.addListener((m) => window.__port.push(JSON.parse(JSON.stringify(m))));
        return port;
    };
}"""

# Where the first words of `text` are in the page, relative to the viewport.
WHERE_IS = """(text) => {
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const at = n.data.indexOf(text);
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(n, at);
        range.setEnd(n, at + text.length);
        const r = range.getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, height: window.innerHeight,
                scrollY: window.scrollY, pageTop: r.top + window.scrollY};
    }
    return null;
}"""


@pytest.fixture(scope="module")
def browser(launch, site, llm_dir: Path) -> RewindBrowser:
    b = launch("checked")
    b.wait_connected()
    b.settings(dwellSeconds=1)
    b.read_all([site.url(p) for p in READ])
    return b


def norm(text: str) -> str:
    """Letters and digits only, lower case: how sentences are compared."""
    return " ".join(re.findall(r"[^\W_]+", text.lower()))


def sentences(text: str) -> list[str]:
    """A text's sentences, by their closing punctuation, without citation tags ("lens ."
    once a badge or a tag is gone)."""
    text = re.sub(r"\s+", " ", CITE_TAG.sub(" ", text))
    text = re.sub(r"\s+([.,;:!?])", r"\1", text)
    pieces = re.split(r"(?<=[.!?…])[\"'”’)\]]*\s+", text)
    return [p for p in pieces if re.search(r"[^\W\d_]", p)]


def port_messages(panel: Any) -> list[dict]:
    return panel.evaluate("() => window.__port")


def ask_recorded(panel: Any, question: str) -> tuple[list[dict], list[dict], dict]:
    """Ask with both recorders in; returns (what the answer area showed, the port's
    messages, the final reply)."""
    panel.evaluate(RECORD_ANSWER)
    panel.evaluate(RECORD_PORT)
    panel.locator("#q").fill(question)
    panel.get_by_role("button", name="Ask", exact=True).click()

    def done() -> dict | None:
        ends = [m for m in port_messages(panel) if m.get("type") in ("done", "error")]
        return ends[-1] if ends else None

    end = wait_until(done, ANSWER_TIMEOUT_MS / 1000, "the final frame", interval=0.2)
    assert end["type"] == "done", f"the ask failed: {end}"
    expect(panel.locator("#ask")).to_have_attribute("aria-busy", "false")
    return panel.evaluate("() => window.__seen"), port_messages(panel), end["reply"]


def test_only_checked_sentences_ever_show_and_a_badge_opens_its_marked_sentence(
    browser, panel, site
):
    long_url = site.url(LONG_PATH)
    read = {site.url(p) for p in READ}

    seen, messages, reply = ask_recorded(panel, LONG_QUESTION)

    # The page answers the question: a checked answer, citing the long article.
    assert reply.get("outcome") == "answer", (
        f"no checked answer: {reply.get('outcome')} {reply.get('answer')!r}; "
        f"the model wrote {reply.get('raw_answer')!r}")
    citations = reply.get("citations") or []
    allowed = [norm(c.get("sentence", "")) for c in citations if c.get("status") in SHOWN]
    allowed += [norm(s) for s in sentences(reply["answer"])]
    allowed = [a for a in allowed if a]
    left_out = {norm(s) for s in reply.get("unsupported") or []} - set(allowed)
    unshown_raw = {norm(s) for s in sentences(reply.get("raw_answer", ""))} - set(allowed)
    unshown_raw = {s for s in unshown_raw if not any(s in a for a in allowed)}

    # (a) Every sentence the answer area ever showed, while answering and at the end, is
    # one the final reply shows: never a draft sentence the check left out.
    chunks = [m["text"] for m in messages if m.get("type") == "chunk"]
    assert chunks, "no checked sentence streamed before the final frame"
    shown_texts = [e["words"] for e in seen if e["words"].strip()]
    assert any(e["busy"] == "true" and e["words"].strip() for e in seen), (
        f"the answer area showed nothing while answering: {seen}")
    pieces = {s for text in shown_texts + chunks for s in sentences(text)}
    for piece in pieces:
        said = norm(piece)
        assert said not in left_out, f"a sentence the check left out was shown: {piece!r}"
        assert said not in unshown_raw, f"a draft sentence never shown in the end: {piece!r}"
        assert any(said in a for a in allowed), (
            f"shown but not a sentence of the checked answer: {piece!r}\n"
            f"checked: {allowed}\nchunks: {chunks}\nraw: {reply.get('raw_answer')!r}")
    # Chunks are whole checked sentences, with their citation tags.
    for text in chunks:
        assert CITE_TAG.search(text), f"a chunk without its citation: {text!r}"

    # (b) "Checking against your pages…" was on screen while the answer ran, in the polite
    # live region, and stayed there once sentences came in; it goes when the answer ends.
    status = panel.locator("#ask-status")
    expect(status).to_have_attribute("aria-live", "polite")
    expect(status).to_have_attribute("role", "status")
    running = [e for e in seen if e["busy"] == "true"]
    assert any(e["status"] == CHECKING and e["statusShown"] for e in running), running
    after_first = [e for e in running if e["words"].strip()]
    assert all(e["status"] == CHECKING for e in after_first), after_first
    expect(status).not_to_have_text(CHECKING)

    # (c) A badge of the long article opens it scrolled to the marked sentence.
    turn = last_turn(panel)
    badges = [b for b in check_rendered_as_text(turn, read) if b["page"] == long_url]
    assert badges, f"no badge links to {long_url}: {reply['answer']!r}"
    assert all(b["title"] == LONG_TITLE for b in badges)
    marked = [b for b in badges if turn.locator(f"#{b['tip']} .quote mark").count() == 1]
    assert marked, "no citation of the long article marks its sentence in the tooltip"
    badge = marked[0]
    mark_text = re.sub(r"\s+", " ", turn.locator(f"#{badge['tip']} .quote mark").text_content())
    page_text = " ".join(p for _, ps in LONG_SECTIONS for p in ps)
    assert mark_text.strip() in page_text, f"the mark is not the page's words: {mark_text!r}"
    link = turn.locator(f'a.cite[aria-describedby="{badge["tip"]}"]')
    href = link.get_attribute("href") or ""
    start = unquote(href.split("#:~:text=", 1)[1].split(",", 1)[0])
    assert mark_text.startswith(start), f"the link does not go to the marked words: {href}"

    with browser.ctx.expect_page() as opened:
        link.click()
    page = opened.value
    page.wait_for_load_state("load")
    assert page_of(page.url) == long_url and "#:~:text=" in page.url, page.url
    first_words = " ".join(mark_text.split()[:5])
    where = page.evaluate(WHERE_IS, first_words)
    assert where, f"{first_words!r} is not on the page"
    assert where["pageTop"] > where["height"], (
        f"the passage is on the first screen ({where}): the page is not long enough to tell")

    def in_view() -> dict | None:
        at = page.evaluate(WHERE_IS, first_words)
        return at if at["top"] >= 0 and at["bottom"] <= at["height"] else None

    at = wait_until(in_view, SCROLL_TIMEOUT_S, "the marked sentence to be in view")
    assert at["scrollY"] > 0, at
    page.close()
