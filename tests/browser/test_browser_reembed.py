"""Changing the search model in the browser: switching the model in the options page starts
the re-embedding job, the popup shows its progress (and pauses and resumes it), and a
search during the job returns results; afterwards the store searches with the new model.

Real Chromium, the real extension, the real host and MiniLM; the "new model" is MiniLM at
256 dimensions (another vector space for the store). The history is seeded before the
browser starts: the Python FAQ and tutorial, embedded at 384 dimensions.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect
from rewind.capture.extract import html_document
from rewind.capture.ingest import PageInput
from rewind.config import Settings
from rewind.profile.engine import Rewind
from support.faq_pages import BASE

from demo.harness import RewindBrowser

pytestmark = pytest.mark.browser

MINILM = "all-minilm-l6-v2-int8"
UI_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def browser(playwright, chromium, extension_dir, model_dir, embedder, python_docs,
            tmp_path_factory) -> RewindBrowser:
    workdir = tmp_path_factory.mktemp("reembed")
    with Rewind.open(workdir / "data", Settings(), embedder=embedder,
                     model_dir=model_dir) as eng:
        for folder in ("faq", "tutorial"):
            for path in sorted((python_docs / folder).glob("*.html")):
                doc = html_document(path.read_text(), path.stem)
                eng.index_page(PageInput(url=f"{BASE}{folder}/{path.name}", title=doc.title,
                                         document=doc, visited_at=1_700_000_000.0,
                                         source="file"))
        assert eng.model_id() == f"{MINILM}@384"
    b = RewindBrowser.launch(playwright, workdir, chromium=chromium, extension=extension_dir,
                             model_dir=model_dir)
    b.wait_connected()
    yield b
    b.close()


def host_stats(b: RewindBrowser) -> dict:
    return b.evaluate("globalThis.__rewind.request('stats')")["stats"]


def test_switching_the_model_in_options_re_embeds_while_search_works(browser):
    options = browser.extension_page("options.html#models", width=900)
    expect(options.locator("#model-now")).to_contain_text(MINILM, timeout=UI_TIMEOUT_MS)
    options.locator("#model-choice").select_option(f"{MINILM}@256")
    options.locator("#model-switch").click()
    line = options.locator("#reembed .reembed-line")
    expect(line).to_contain_text(f"Re-embedding with {MINILM} at 256 dimensions",
                                 timeout=UI_TIMEOUT_MS)

    popup = browser.extension_page("popup.html")
    pline = popup.locator("#reembed .reembed-line")
    expect(pline).to_contain_text(re.compile(rf"Re-embedding with {MINILM} at 256 dimensions: "
                                             r"[1-9]\d* %"), timeout=UI_TIMEOUT_MS)
    popup.locator("#reembed-pause").click()
    expect(pline).to_contain_text("paused at", timeout=UI_TIMEOUT_MS)
    paused = host_stats(browser)
    assert paused["reembed"]["state"] == "paused"
    assert 0 < paused["reembed"]["done"] < paused["reembed"]["total"]
    assert paused["embedding_model"] == f"{MINILM}@384"

    # Search during the job: the old model's vectors answer.
    hits = browser.search("what is the global interpreter lock", mode="semantic")
    assert hits and any("library" in h["url"] for h in hits[:3])

    popup.locator("#reembed-resume").click()
    expect(pline).to_contain_text(re.compile(r"Re-embedding with .*: \d+ %"),
                                  timeout=UI_TIMEOUT_MS)
    hits = browser.search("how do I make a virtual environment", mode="semantic")
    assert hits  # while it runs again

    deadline = time.monotonic() + 600
    while (stats := host_stats(browser))["reembed"] is not None:
        assert time.monotonic() < deadline, stats["reembed"]
        time.sleep(0.5)
    assert stats["embedding_model"] == f"{MINILM}@256" and stats["unembedded_passages"] == 0
    expect(popup.locator("#reembed .reembed-line")).to_have_count(0, timeout=UI_TIMEOUT_MS)
    expect(options.locator("#model-now")).to_contain_text("at 256 dimensions",
                                                          timeout=UI_TIMEOUT_MS)
    hits = browser.search("what is the global interpreter lock", mode="semantic")
    assert hits and any("library" in h["url"] for h in hits[:3])
