"""Drive the real extension in real Chromium against the real native host.

Job: build the extension into a folder, register the host for a throwaway
`--user-data-dir` only, serve local pages on 127.0.0.1, launch Chromium with
the extension through Playwright, and let callers wait, by polling, on what the
worker, the host's store and the host processes say. The browser demo
(demo/browser_demo.py) and the browser tests (tests/browser/) both use it.
Never: write to the person's own browser profiles or host registration, or
wait a fixed time for something that can be polled.

The parts: demo/prepare.py (Chromium, the built extension, the host's registration),
demo/host_store.py (the store and processes of the host), demo/waiting.py (wait_until),
demo/probes.py (what the extension and the host say); this module is the browser itself,
and every name callers import from the harness.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any

from demo.host_store import DB_FILE, host_pids, store_pages
from demo.prepare import (
    CHROMIUM_NAMES,
    EXTENSION_SRC,
    ROOT,
    HarnessError,
    build_extension,
    extension_id,
    find_chromium,
    register_host,
    unregister_host,
)
from demo.probes import Probes
from demo.waiting import wait_until

__all__ = [  # what callers import from here (the browser tests, the demo, bench/perf)
    "CHROMIUM_NAMES", "DB_FILE", "EXTENSION_SRC", "ROOT", "HarnessError", "RewindBrowser",
    "build_extension", "extension_id", "find_chromium", "host_pids", "register_host",
    "store_pages", "unregister_host", "wait_until",
]


class RewindBrowser(Probes):
    """Chromium with the extension; its profile, launcher and host data under one folder.

    `workdir/profile` is the --user-data-dir, `workdir/host` holds the launcher,
    `workdir/data` is the host's data dir (REWIND_DATA_DIR, passed on by Chromium), or
    with `per_profile_data` each profile's store is under `profiles_dir`.
    """

    def __init__(self, ctx: Any, workdir: Path) -> None:
        self.ctx = ctx
        self.workdir = workdir
        self.user_data_dir = workdir / "profile"
        self.host_dir = workdir / "host"
        self.data_dir = workdir / "data"
        self.profiles_dir = workdir / "xdg" / "rewind" / "profiles"
        self.ext_id = extension_id()
        self.origin = f"chrome-extension://{self.ext_id}/"
        self._closed_workers: set[int] = set()
        self._cdp: Any = None
        self.closed = False
        self.welcome: Any = None  # the page a first install opens (launch's keep_welcome)
        ctx.on("serviceworker", self._watch)
        for w in ctx.service_workers:
            self._watch(w)

    @classmethod
    def launch(
        cls,
        playwright: Any,
        workdir: Path,
        *,
        chromium: str,
        extension: Path,
        model_dir: Path | None = None,
        registered: bool = True,
        incognito: bool = False,
        headless: bool = True,
        args: list[str] | None = None,
        env: dict[str, str] | None = None,
        per_profile_data: bool = False,
        keep_welcome: bool = False,
        first_install: bool | None = None,
    ) -> RewindBrowser:
        """`args`: more Chromium flags (NamedSites.chromium_args); `env`: more variables for
        the host (fault points); `per_profile_data`: the host keeps one data dir per profile
        id under `workdir/xdg` as on a person's computer, instead of the one forced
        `workdir/data` (REWIND_DATA_DIR), which would hide whose store is whose.
        The welcome page a first install opens is closed (it would take the front from the
        reading tab) unless `keep_welcome`: then `browser.welcome` is that page. It opens
        when the extension is new to the profile: a new profile, or `first_install`."""
        profile = workdir / "profile"
        if first_install is None:
            first_install = not (profile / "Default").exists()
        profile.mkdir(parents=True, exist_ok=True)
        if registered:
            register_host(profile, workdir / "host")
        host_env = {k: v for k, v in os.environ.items() if k != "REWIND_DATA_DIR"}
        if per_profile_data:
            host_env["XDG_DATA_HOME"] = str(workdir / "xdg")  # platformdirs' user data dir
        else:
            host_env["REWIND_DATA_DIR"] = str(workdir / "data")
        if model_dir is not None:
            host_env["REWIND_MODEL_DIR"] = str(model_dir)
        host_env.update(env or {})
        ctx = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=chromium,
            headless=headless,
            args=[
                f"--disable-extensions-except={extension}",
                f"--load-extension={extension}",
                *(args or []),
            ],
            env=host_env,  # Chromium passes its environment on to the host it starts
        )
        browser = cls(ctx, workdir)
        try:
            browser.worker()
            if first_install:
                browser.welcome = browser.wait_welcome()
                if not keep_welcome:
                    browser.welcome.close()
            if incognito:
                browser.allow_incognito()
        except BaseException:
            browser.close()
            raise
        return browser

    def wait_welcome(self, timeout: float = 20) -> Any:
        """The welcome page the extension opens when it is installed."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        deadline = time.monotonic() + timeout
        while True:
            for page in self.ctx.pages:
                if page.url.startswith(self.origin + "welcome.html"):
                    return page
            left = deadline - time.monotonic()
            if left <= 0:
                raise HarnessError("the welcome page did not open when the extension was installed")
            with contextlib.suppress(PlaywrightTimeout):
                self.ctx.wait_for_event("page", timeout=min(left, 1.0) * 1000)

    # -- the worker --

    def _watch(self, worker: Any) -> None:
        worker.on("close", lambda w: self._closed_workers.add(id(w)))

    def _live_worker(self) -> Any:
        live = [
            w
            for w in self.ctx.service_workers
            if w.url.startswith(self.origin) and id(w) not in self._closed_workers
        ]
        return live[-1] if live else None

    def worker(self, timeout: float = 30) -> Any:
        """The extension's running service worker (waits for it to start).

        Waits in Playwright's own wait_for_event, not in time.sleep: the sync API delivers
        events ("serviceworker", "close") only while one of its calls runs, so a sleeping
        poll would never see a worker that registers after launch.
        """
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        deadline = time.monotonic() + timeout
        while True:
            live = self._live_worker()
            if live:
                return live
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(
                    f"gave up after {timeout:.0f} s waiting for the extension's service worker")
            with contextlib.suppress(PlaywrightTimeout):
                self.ctx.wait_for_event("serviceworker", timeout=min(left, 1.0) * 1000)

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        """Run JavaScript in the worker (its test hooks are on globalThis.__rewind)."""
        return self.worker().evaluate(expression, arg)

    def cdp(self) -> Any:
        if self._cdp is None:
            self._cdp = self.ctx.browser.new_browser_cdp_session()
        return self._cdp

    def worker_targets(self) -> list[dict]:
        infos = self.cdp().send("Target.getTargets")["targetInfos"]
        workers = [t for t in infos if t["type"] == "service_worker"]
        return [t for t in workers if t["url"].startswith(self.origin)]

    def stop_worker(self, timeout: float = 15) -> None:
        """Stop the worker the way Chrome does when it idles (CDP Target.closeTarget)."""
        targets = self.worker_targets()
        if not targets:
            raise HarnessError("the extension's worker is not running: nothing to stop")
        for t in targets:
            self.cdp().send("Target.closeTarget", {"targetId": t["targetId"]})
        wait_until(lambda: not self.worker_targets(), timeout, "the worker to stop")

    def allow_incognito(self, timeout: float = 30) -> None:
        """Let the extension run in incognito (as a person would on chrome://extensions).

        Chrome reloads the extension for this, so its worker starts again.
        """
        page = self.ctx.new_page()
        try:
            page.goto("chrome://extensions")
            # An unpacked extension reloaded outside developer mode is disabled.
            page.evaluate(
                "new Promise(r => chrome.developerPrivate.updateProfileConfiguration("
                "{inDeveloperMode: true}, r))"
            )
            error = page.evaluate(
                """id => new Promise(r => chrome.developerPrivate.updateExtensionConfiguration(
                    {extensionId: id, incognitoAccess: true},
                    () => r(chrome.runtime.lastError ? chrome.runtime.lastError.message : "")))""",
                self.ext_id,
            )
            if error:
                raise HarnessError(f"allowing the extension in incognito failed: {error}")
            wait_until(
                lambda: page.evaluate(
                    """id => new Promise(r => chrome.developerPrivate.getExtensionInfo(
                        id, i => r(i && i.state === "ENABLED" && i.incognitoAccess.isActive)))""",
                    self.ext_id,
                ),
                timeout,
                "the extension to come back with incognito access",
            )
        finally:
            page.close()
        wait_until(
            lambda: (
                self._live_worker() is not None
                and self._live_worker().evaluate("chrome.extension.isAllowedIncognitoAccess()")
            ),
            timeout,
            "the reloaded worker",
        )

    # -- reading like a person --

    def reading_tab(self) -> Any:
        """The first tab: where pages are read (extension pages get tabs of their own)."""
        pages = [p for p in self.ctx.pages if not p.url.startswith(("chrome", "devtools"))]
        return pages[0] if pages else self.ctx.new_page()

    def read(self, tab: Any, url: str) -> None:
        tab.goto(url, wait_until="domcontentloaded")
        tab.bring_to_front()  # the dwell clock runs only for the tab in front

    def read_until_queued(self, tab: Any, url: str, timeout: float = 60) -> None:
        """Read a page until the extension has taken its text (queued or already sent)."""
        self.read(tab, url)

        def taken() -> bool:
            q = self.queue()
            return any(it.get("url") == url for it in q.get("items", [])) or (
                url in self.known_urls()
            )

        wait_until(taken, timeout, f"the extension to take {url}", interval=0.2)

    def read_all(self, urls: list[str], timeout: float = 120) -> list[dict]:
        """Read each page in the reading tab until the extension takes it, then wait until
        the host has stored them all; returns their store records."""
        tab = self.reading_tab()
        for url in urls:
            self.read_until_queued(tab, url)
        return self.wait_indexed(urls, timeout)

    def extension_page(self, name: str, width: int = 420, height: int = 900) -> Any:
        """An extension page (sidepanel.html, popup.html, options.html) in a tab of its own."""
        page = self.ctx.new_page()
        page.set_viewport_size({"width": width, "height": height})
        page.goto(self.origin + name)
        return page

    def extension_window(self, name: str, width: int = 420, height: int = 900) -> Any:
        """An extension page in a window of its own that does not take the focus.

        Like the real popup and side panel, the page then sees the reading tab as the
        current tab ("Pause on <site>", "Use the current tab too").
        """
        with self.ctx.expect_page() as opened:
            self.evaluate(
                """([url, width, height]) => chrome.windows.create(
                    {url, type: "popup", focused: false, width, height}).then(w => w.id)""",
                [self.origin + name, width, height],
            )
        page = opened.value
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_load_state("domcontentloaded")
        return page

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.ctx.close()
