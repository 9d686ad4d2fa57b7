"""The queue cannot stall, and history survives reinstalling the extension.

A page that makes the host exit every time it arrives (the host's `index_page` fault point,
set in the environment Chromium passes on) ends in `failed` after 3 tries while the pages
read after it are indexed. Removing the extension and loading it again in the same browser
profile (its storage, profile id included, is gone) finds the store it had: the popup shows
the old page count and the options page the data folder in use.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from capture_pages import ARTICLES, READER
from playwright.sync_api import expect

from demo.harness import RewindBrowser, wait_until

pytestmark = pytest.mark.browser

THRESHOLD = 1


def test_a_page_that_kills_the_host_fails_after_3_tries_and_the_pages_behind_it_go_on(
    launch, named_sites
):
    browser = launch(
        "capture-crash",
        args=named_sites.chromium_args(),
        env={"REWIND_FAULT": "index_page", "REWIND_FAULT_MATCH": "/crash-page"},
    )
    browser.wait_connected()
    browser.settings(dwellSeconds=THRESHOLD)
    tab = browser.reading_tab()
    crash = f"{READER}/crash-page"
    behind = [ARTICLES[2].url, ARTICLES[3].url]
    browser.read_until_queued(tab, crash)
    for url in behind:
        browser.read_until_queued(tab, url)

    browser.wait_indexed(behind, timeout=120)

    def failed() -> list[dict]:
        return [it for it in browser.queue()["failed"] if it["url"] == crash]

    [item] = wait_until(failed, 120, "the crashing page to move to failed")
    assert item["tries"] == 3
    assert item["error"].startswith("host_disconnected"), item["error"]
    assert crash not in browser.store_urls()
    assert browser.queue()["items"] == [], "nothing is left stuck behind it"

    popup = browser.extension_page("popup.html", width=380, height=600)
    try:
        expect(popup.locator("#queue-line")).to_have_text("Queue: 0 waiting, 1 failed",
                                                          timeout=30_000)
        expect(popup.locator("#retry")).to_be_visible()
    finally:
        popup.close()


def test_reinstalling_the_extension_finds_the_history_it_had(
    playwright, chromium, extension_dir, model_dir, named_sites, tmp_path_factory
):
    workdir = tmp_path_factory.mktemp("reinstall")

    def open_browser() -> RewindBrowser:
        return RewindBrowser.launch(
            playwright, workdir, chromium=chromium, extension=extension_dir,
            model_dir=model_dir, args=named_sites.chromium_args(), per_profile_data=True,
        )

    first = open_browser()
    try:
        first.wait_connected()
        first.settings(dwellSeconds=THRESHOLD)
        url = ARTICLES[4].url
        first.read_until_queued(first.reading_tab(), url)
        profile = first.evaluate("chrome.storage.local.get('profile_id').then(g => g.profile_id)")
        store = workdir / "xdg" / "rewind" / "profiles" / profile
        wait_until(lambda: (store / "rewind.db").exists() and first.known_urls() == {url}, 120,
                   "the page to be indexed in the profile's own store")
        # Remove the extension: Chrome deletes its storage (the profile id with it).
        with contextlib.suppress(Exception):  # the worker goes away while answering
            first.evaluate("chrome.management.uninstallSelf({showConfirmDialog: false})")
    finally:
        first.close()

    again = open_browser()  # the same browser profile loads the extension anew
    try:
        fresh = again.evaluate("chrome.storage.local.get('settings').then(g => g.settings)")
        assert fresh is None, "the extension's storage survived: this is not a reinstall"
        again.wait_connected()
        assert again.evaluate(
            "chrome.storage.local.get('profile_id').then(g => g.profile_id)") == profile
        popup = again.extension_page("popup.html", width=380, height=600)
        expect(popup.locator("#headline")).to_have_text("Connected — 1 pages remembered",
                                                        timeout=60_000)
        options = again.extension_page("options.html", width=900, height=1200)
        expect(options.locator("#data-dir")).to_contain_text(str(store), timeout=30_000)
        expect(options.locator("#profile-origin")).to_contain_text("found the history")
        assert sorted(p.name for p in Path(store).parent.iterdir()) == [profile], \
            "no second, empty store beside the old one"
    finally:
        again.close()
