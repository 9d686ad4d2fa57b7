"""The popup read as a person reads it, opened beside the page in front.

Shared by the capture browser tests: what the popup says about the page (#page-status).
"""

from __future__ import annotations

from playwright.sync_api import expect

from demo.harness import RewindBrowser


def popup_says(browser: RewindBrowser) -> str:
    """The popup's sentence about the page in front, once it has one (not "…")."""
    popup = browser.extension_window("popup.html", width=380, height=600)
    try:
        status = popup.locator("#page-status")
        expect(status).not_to_have_text("…", timeout=30_000)
        return status.inner_text()
    finally:
        popup.close()
