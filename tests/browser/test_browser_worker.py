"""The persistent queue survives Chrome stopping the service worker mid-delivery, and at
random moments of a reading session; the popup's re-embedding progress keeps moving when
the worker is stopped under it.

The test holds the host's write lock, so the page's `index_page` waits inside the host;
then it stops the worker (CDP Target.closeTarget, as Chrome does to an idle worker). The
port closes, the host exits without writing, and the page exists only in the extension's
queue in chrome.storage. Once the lock is free and something wakes the worker (here: the
popup opening), the page must reach the store.
"""

from __future__ import annotations

import random
import time

import filelock
import pytest
from playwright.sync_api import expect

from demo.harness import RewindBrowser, store_pages, wait_until

pytestmark = pytest.mark.browser

LOCK_FILE = "write.lock"  # rewind.profile.stores.LOCK_NAME: one writer per profile
READ_S = 4.0  # seconds each page of the session stays in front
SESSION = ["articles/sourdough.html", "articles/glacier.html", "articles/tide-pools.html",
           "articles/derailleur.html", "articles/beekeeping.html", "articles/lighthouse.html"]


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


def test_pages_read_while_the_worker_stops_at_random_moments_are_stored_once(launch, site):
    """A scripted session of reading, the worker stopped at seeded random moments: before,
    during or after a page's dwell and its delivery. Every page read is stored, once."""
    rng = random.Random(23)
    browser = launch("worker-random")
    browser.wait_connected()
    browser.settings(dwellSeconds=1)
    tab = browser.reading_tab()
    read: list[str] = []
    stops = 0
    for path in SESSION:
        url = site.url(path)
        browser.read(tab, url)
        read.append(url)
        at = rng.uniform(0.0, 3.0)  # before, at or after the 1 s dwell and the delivery
        time.sleep(at)
        if browser.worker_targets():
            browser.stop_worker()
            stops += 1
        time.sleep(max(0.0, READ_S - at))  # each page is read past the threshold
    tab.goto("about:blank")
    assert stops >= len(SESSION) // 2, f"the worker was stopped {stops} times only"

    popup = browser.extension_page("popup.html", width=380, height=600)  # wakes the worker
    expect(popup.locator("#headline")).to_contain_text("Connected", timeout=60_000)
    try:
        browser.wait_indexed(read, timeout=120)
    except TimeoutError:
        missing = set(read) - browser.store_urls()
        raise AssertionError(f"pages read and never stored: {sorted(missing)}; "
                             f"queue: {browser.queue()}") from None
    stored = [p for p in store_pages(browser.data_dir) if p["url"] in read]
    assert len(stored) == len(read)
    assert all(p["visit_count"] == 1 for p in stored), \
        [(p["url"], p["visit_count"]) for p in stored]
    queue = wait_until(lambda: (q := browser.queue()) and not q["items"] and q, 30,
                       "the queue to empty")
    assert queue["failed"] == []


MINILM = "all-minilm-l6-v2-int8"


@pytest.mark.xfail(run=False, reason=(
    "an open bug (issue 23), seen three times on 2026-11-26: after the second stop (a "
    "helper killed in its hello) no helper starts again for 6+ min though the popup polls "
    "every second; the job waits and the line freezes, and once the test itself hung past "
    "its limits. Not run until the cause (worker restart vs. the open popup's messages) is "
    "found: run it by hand with --runxfail."))
def test_the_re_embedding_progress_goes_on_when_the_worker_stops_under_it(
        playwright, chromium, extension_dir, model_dir, embedder, python_docs, tmp_path):
    """The popup polls the job through the worker every second; Chrome stops the worker at
    seeded moments (a poll in flight or not): the line keeps moving to the end, no reload."""
    from faq_pages import index_faq
    from rewind.profile.engine import Rewind

    with Rewind.open(tmp_path / "data", embedder=embedder, model_dir=model_dir) as eng:
        index_faq(eng, python_docs)  # ~10 s of re-embedding here: long enough for 4 stops
    browser = RewindBrowser.launch(playwright, tmp_path, chromium=chromium,
                                   extension=extension_dir, model_dir=model_dir)
    try:
        browser.wait_connected()
        browser.evaluate(f"globalThis.__rewind.request('reindex', {{action: 'start', "
                         f"model: '{MINILM}', dim: 256}})")
        popup = browser.extension_page("popup.html", width=380, height=600)
        line = popup.locator("#reembed .reembed-line")
        expect(line).to_contain_text("Re-embedding with", timeout=30_000)
        rng = random.Random(5)
        shown = set()
        for _ in range(4):
            time.sleep(rng.uniform(0.3, 1.7))
            stop_the_running_worker(browser)
            shown.add(line.inner_text() if line.count() else "")
        # The line moves on (new percentages) and ends when the job ends, the popup open;
        # the job alone takes ~10 s here, so two minutes is a failure, not a slow machine.
        expect(line).to_have_count(0, timeout=120_000)
        stats = browser.evaluate("globalThis.__rewind.request('stats')")["stats"]
        assert stats["embedding_model"] == f"{MINILM}@256", stats
        assert stats["unembedded_passages"] == 0
        assert len(shown) >= 2, f"the line did not move while the worker was stopped: {shown}"
    finally:
        browser.close()


def stop_the_running_worker(browser: RewindBrowser) -> None:
    """Stop the worker that runs now (CDP), as Chrome does. Not `stop_worker`: the popup's
    next poll starts a new worker within a second (with the same target id), so "no worker"
    may never be seen; the sign it stopped is its helper exiting (the port closed)."""
    helpers = set(browser.host_pids())
    for target in browser.worker_targets():
        browser.cdp().send("Target.closeTarget", {"targetId": target["targetId"]})
    wait_until(lambda: not helpers & set(browser.host_pids()), 15,
               "the stopped worker's helper to exit")
