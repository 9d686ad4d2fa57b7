"""The persistent queue survives Chrome stopping the service worker mid-delivery.

The test holds the host's write lock, so the page's `index_page` waits inside the host;
then it stops the worker (CDP Target.closeTarget, as Chrome does to an idle worker). The
port closes, the host exits without writing, and the page exists only in the extension's
queue in chrome.storage. Once the lock is free and something wakes the worker (here: the
popup opening), the page must reach the store.
"""

from __future__ import annotations

import filelock
import pytest
from playwright.sync_api import expect

from demo.harness import wait_until

pytestmark = pytest.mark.browser

LOCK_FILE = "write.lock"  # rewind.engine.LOCK_NAME: one writer per profile


def test_queue_survives_a_forced_worker_stop(launch, site):
    browser = launch("worker")
    browser.wait_connected()
    browser.settings(dwellSeconds=1)
    url = site.url("articles/queued.html")
    lock = filelock.FileLock(str(browser.data_dir / LOCK_FILE))
    lock.acquire(timeout=10)
    try:
        browser.read(browser.reading_tab(), url)

        def in_flight() -> bool:
            items = browser.queue()["items"]
            return any(it["url"] == url and it["sending_since"] for it in items)

        wait_until(in_flight, 60, "the page to be sent to the host", interval=0.2)
        [host_pid] = browser.host_pids()

        browser.stop_worker()
        # The port closed with the worker: the host exits, its write never ran.
        wait_until(lambda: host_pid not in browser.host_pids(), 10, "the host to exit")
        assert url not in browser.store_urls()
    finally:
        lock.release()

    popup = browser.extension_page("popup.html", width=380, height=600)
    expect(popup.locator("#headline")).to_contain_text("Connected", timeout=60_000)
    [page] = browser.wait_indexed([url])
    assert page["title"] == "Knots every sailor should know"
    assert browser.worker_targets(), "the worker did not start again"

    def emptied() -> dict | None:
        queue = browser.queue()  # through the worker's new life
        return None if queue["items"] else queue

    queue = wait_until(emptied, 30, "the queue to empty")
    assert queue["failed"] == []
    assert queue["last_indexed"]["url"] == url
