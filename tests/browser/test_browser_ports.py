"""The worker's ports (background/ports.js) cancel the host's request when their page goes
away: closing the options page while it exports makes the helper stop the export, as
closing the side panel stops an answer (test_browser_ask.py) and the options page's Cancel
stops a model download (test_browser_options.py).

The helper runs with the `export_batch` fault point slowed (faults.py: each batch of an
export waits a few seconds), so that the page can be closed while the export runs.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from demo.harness import RewindBrowser, wait_until

pytestmark = pytest.mark.browser

UI_TIMEOUT_MS = 30_000
SLOW_S = 4  # each batch of an export waits this long in the helper
# host.log: one line per finished request (rewind.host), e.g. "type=export lane=slow 12.3 ms ok"
EXPORT_LOGGED = re.compile(r"type=export lane=\w+ [\d.]+ ms (\w+)")


@pytest.fixture(scope="module")
def browser(launch) -> RewindBrowser:
    b = launch("ports", env={"REWIND_FAULT": "export_batch", "REWIND_FAULT_KIND": "slow",
                             "REWIND_FAULT_SLOW_S": str(SLOW_S)})
    b.wait_connected()
    b.evaluate("""globalThis.__rewind.request('index_page', {page: {
        url: 'https://pages.example/lighthouse', title: 'The lighthouse lens',
        passages: [{text: 'The lighthouse lens was ground by hand in Paris.', position: 0}]}})""")
    return b


def host_exports(browser: RewindBrowser) -> list[str]:
    """The outcome of each export the helper finished, in order (from its log)."""
    log = browser.data_dir / "host.log"
    return EXPORT_LOGGED.findall(log.read_text(encoding="utf-8")) if log.exists() else []


def export_pending(browser: RewindBrowser) -> bool:
    """Is an export request on its way to the helper or running there (the worker's view)?"""
    return browser.evaluate(
        "[...globalThis.__rewind.native.pending.values()].some((p) => p.type === 'export')")


def test_closing_the_options_page_during_an_export_cancels_it_in_the_helper(browser):
    before = len(host_exports(browser))
    options = browser.extension_page("options.html#data", width=900)
    expect(options.locator("#data-dir")).to_contain_text("Data folder", timeout=UI_TIMEOUT_MS)
    options.get_by_role("button", name="Export portable JSON").click()
    expect(options.locator("#export-msg")).to_contain_text("Exporting")
    wait_until(lambda: export_pending(browser), 10, "the export to reach the helper")
    options.close()  # mid-export: the helper is in its first (slowed) batch

    outcomes = wait_until(lambda: host_exports(browser)[before:] or None, SLOW_S + 20,
                          "the helper to end the export")
    assert outcomes == ["cancelled"], f"the export went on without its page: {outcomes}"
    assert not export_pending(browser)

    # The helper is still there, and an export no page leaves runs to its end.
    options = browser.extension_page("options.html#data", width=900)
    with options.expect_download(timeout=(SLOW_S + 30) * 1000) as dl:
        options.get_by_role("button", name="Export portable JSON").click()
    assert dl.value.suggested_filename.endswith(".json")
    expect(options.locator("#export-msg")).to_contain_text("Exported 1 pages")
    assert host_exports(browser)[before:] == ["cancelled", "ok"]
    options.close()
