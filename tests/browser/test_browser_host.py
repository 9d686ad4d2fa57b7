"""The native host seen from the browser: missing, then installed; gone when the browser is.

Each test has its own browser: one starts with no host registered in its profile, the
other checks that the host process does not outlive the browser.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from demo.harness import register_host, wait_until

pytestmark = pytest.mark.browser

FIX_COMMAND = "rewind setup"  # extension/lib/settings.js FIX_COMMAND (an installed wheel)
FIX_FROM_SOURCE = "python3 build.py install"  # FIX_FROM_SOURCE: in a source checkout
UI_TIMEOUT_MS = 30_000
DEFERRAL_S = 30  # extension/background/indexer.js HOST_DOWN_RETRY_MS


def test_side_panel_says_how_to_install_a_missing_host(launch, site):
    browser = launch("no-host", registered=False)
    browser.settings(dwellSeconds=1)
    url = site.url("articles/beekeeping.html")
    browser.read_until_queued(browser.reading_tab(), url)  # read before the host exists
    panel = browser.extension_page("sidepanel.html")

    banner = panel.locator("#banners .banner")
    expect(banner).to_contain_text("Rewind's helper isn't installed", timeout=UI_TIMEOUT_MS)
    expect(banner.locator("code")).to_have_text(FIX_COMMAND)
    expect(banner).to_contain_text(f"From Rewind's source folder: {FIX_FROM_SOURCE}")
    expect(panel.locator("#status-text")).to_have_text("Not connected")
    assert "Error" not in banner.inner_text()  # a sentence and a command, not a trace

    popup = browser.extension_page("popup.html", width=380, height=600)
    expect(popup.locator("#banners")).to_contain_text("Rewind's helper isn't installed")
    expect(popup.locator("#banners code")).to_have_text(FIX_COMMAND)

    # The person runs the command, then presses "Try again": connected, banner gone.
    register_host(browser.user_data_dir, browser.host_dir)
    panel.bring_to_front()
    panel.get_by_role("button", name="Try again").click()
    expect(panel.locator("#status-text")).to_contain_text("Connected", timeout=90_000)
    expect(panel.locator("#banners .banner")).to_have_count(0)
    # Nothing read meanwhile was lost: the queue kept the page, deferred 30 s while the
    # host was missing; connecting resumes it at once rather than when that runs out.
    browser.wait_indexed([url], timeout=DEFERRAL_S - 5)


def test_host_process_is_gone_after_the_browser_closes(launch):
    browser = launch("lifetime")
    browser.wait_connected()
    pids = wait_until(browser.host_pids, 10, "the host process")
    browser.close()
    # The host gets EOF when Chromium goes and must exit within a second (PROTOCOL.md).
    wait_until(lambda: not browser.host_pids(), 5, f"host process(es) {pids} to exit")
