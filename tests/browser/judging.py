"""What the browser tests of the content check ask the worker and the host: why a URL was
not recorded, reading a page until the host has judged it, reading pages until each is
stored and found by its mark, and every byte the host keeps."""

from __future__ import annotations

from demo.harness import RewindBrowser, wait_until


def verdict(browser: RewindBrowser, url: str) -> dict | None:
    """What the worker remembers of why a URL was not recorded (pages.js)."""
    return browser.evaluate(
        "u => chrome.storage.local.get('page_verdicts').then(g => (g.page_verdicts || {})[u]"
        " || null)", url)


def read_until_judged(browser: RewindBrowser, tab, url: str, timeout: float = 90) -> dict:
    """Read a page until the host has judged it: refused (`host`) or held (`held`)."""
    browser.read(tab, url)
    key = tab.url.split("#")[0]
    return wait_until(lambda: (v := verdict(browser, key)) and v["by"] in ("host", "held")
                      and v, timeout, f"the host to judge {url}", interval=0.25)


def site(url: str) -> str:
    return url.split("/")[2]


def raw_bytes(browser: RewindBrowser) -> bytes:
    """Every byte the host keeps: the store and its WAL, the text index, the vector files,
    the holding area, the audit log."""
    return b"".join(p.read_bytes() for p in browser.data_dir.rglob("*") if p.is_file())


def drop_held(browser: RewindBrowser, url: str) -> None:
    """The person's "don't keep" on the held page of `url`'s site."""
    [page] = [h for h in browser.evaluate("globalThis.__rewind.action('held_list')")["held"]
              if site(h["url"]) == site(url)]
    browser.evaluate("([id, u]) => globalThis.__rewind.action('held_decide', "
                     "{id, keep: false, url: u})", [page["id"], url])


def read_until_recorded(browser: RewindBrowser, pages) -> None:
    """Read each page (with `url` and `mark`), then wait until every one is stored and a
    search for its mark finds it alone; says which were not recorded, and why, if not."""
    tab = browser.reading_tab()
    for page in pages:
        browser.read_until_queued(tab, page.url)
    try:
        browser.wait_indexed([p.url for p in pages], timeout=180)
    except TimeoutError:
        stored = browser.store_urls()
        missing = {p.url: verdict(browser, p.url) for p in pages if p.url not in stored}
        raise AssertionError(f"not recorded: {missing}; stored: {sorted(stored)}") from None
    for page in pages:
        wait_until(lambda page=page: [r["url"] for r in browser.search(page.mark)] == [page.url],
                   60, f"search to find {page.url}")
