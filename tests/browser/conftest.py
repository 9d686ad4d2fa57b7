"""Fixtures for the browser tests: real Chromium, the built extension, the real host.

Each browser gets its own folder (profile with the host registered in it, launcher, the
host's data dir) from demo/harness.py. Modules share one browser where tests do not
disturb each other; a fresh browser costs ~2 s, the host's model load a few more.

Missing Chromium, Node or models fail these tests under REWIND_REQUIRE_MODELS=1 (set by
`python3 build.py test`); they skip only when build.py says it could not install Chromium
(REWIND_NO_BROWSER=1), or outside build.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from capture_pages import write_named_sites
from playwright.sync_api import expect
from site_pages import write_site
from support.plain_records import pages as plain_record_pages
from support.private_pages import pages as private_pages
from support.requirement import missing

from demo.harness import (
    HarnessError,
    RewindBrowser,
    build_extension,
    find_chromium,
)
from demo.sites import LocalSite, NamedSites, SiteError

UI_TIMEOUT_MS = 30_000  # the extension's pages, waiting for the host


@pytest.fixture(scope="session")
def chromium() -> str:
    path = find_chromium()
    if path:
        return path
    if os.environ.get("REWIND_NO_BROWSER") == "1":
        pytest.skip("Chromium is not installed and build.py could not install it")
    missing("Chromium is not installed: `sudo apt-get install chromium` (build.py test does it)")
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def extension_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        return build_extension(tmp_path_factory.mktemp("extension") / "rewind")
    except HarnessError as exc:
        missing(str(exc))
        raise


@pytest.fixture(scope="module")
def playwright() -> Iterator[object]:
    """Per module: a sync Playwright cannot run beside another one (a test may start its own)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalSite]:
    """The test pages on 127.0.0.1 (docs/ is added by `docs_url`)."""
    root = tmp_path_factory.mktemp("site")
    write_site(root)
    served = LocalSite(root)
    yield served
    served.close()


@pytest.fixture(scope="session")
def named_sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NamedSites]:
    """The capture pages under real host names over HTTPS (capture_pages.py, and the content
    check's support/private_pages.py and support/plain_records.py); browsers reach them with
    `named_sites.chromium_args()`."""
    root = tmp_path_factory.mktemp("named")
    write_named_sites(root / "www", extra=private_pages() + plain_record_pages())
    try:
        served = NamedSites(root / "www", root / "tls")
    except SiteError as exc:
        missing(str(exc))
        raise
    yield served
    served.close()


@pytest.fixture(scope="session")
def docs_url(site: LocalSite, python_docs: Path) -> Callable[[str], str]:
    """URL of a page of the real Python documentation, served under /docs/."""
    link = site.root / "docs"
    if not link.exists():
        link.symlink_to(python_docs, target_is_directory=True)
    return lambda path: site.url(f"docs/{path}")


@pytest.fixture(scope="module")
def launch(
    playwright: object,
    chromium: str,
    extension_dir: Path,
    model_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[..., RewindBrowser]]:
    """launch(name, registered=True, incognito=False) -> a RewindBrowser, closed with the module."""
    opened: list[RewindBrowser] = []

    def _launch(name: str, **options: object) -> RewindBrowser:
        browser = RewindBrowser.launch(
            playwright,
            tmp_path_factory.mktemp(name),
            chromium=chromium,
            extension=extension_dir,
            model_dir=model_dir,
            **options,
        )
        opened.append(browser)
        return browser

    yield _launch
    for browser in opened:
        browser.close()


@pytest.fixture
def panel(browser: RewindBrowser):
    """The side panel of the module's `browser`, open and connected to the host."""
    page = browser.extension_page("sidepanel.html")
    expect(page.locator("#status-text")).to_contain_text("Connected", timeout=UI_TIMEOUT_MS)
    yield page
    page.close()


@pytest.fixture
def script_effects(panel) -> Callable[[], list[str]]:
    """Watches the side panel for what page text must never do there: open a dialog, or
    trip the content security policy (a script or markup that got in). Call it for the
    list of what happened (empty: page text stayed inert)."""
    dialogs: list[str] = []
    panel.on("dialog", lambda d: (dialogs.append(f"dialog {d.message}"), d.dismiss()))
    panel.evaluate(
        """() => {
            window.__violations = [];
            document.addEventListener("securitypolicyviolation",
                e => window.__violations.push(`${e.violatedDirective} ${e.sample}`));
        }"""
    )
    return lambda: [*dialogs, *panel.evaluate("() => window.__violations")]
