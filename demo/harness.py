"""Drive the real extension in real Chromium against the real native host.

Job: build the extension into a folder, register the host for a throwaway
`--user-data-dir` only, serve local pages on 127.0.0.1, launch Chromium with
the extension through Playwright, and let callers wait, by polling, on what the
worker, the host's store and the host processes say. The browser demo
(demo/browser_demo.py) and the browser tests (tests/browser/) both use it.
Never: write to the person's own browser profiles or host registration, or
wait a fixed time for something that can be polled.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rewind.install import browsers, register
from rewind.native import identity

ROOT = Path(__file__).resolve().parents[1]
EXTENSION_SRC = ROOT / "extension"
CHROMIUM_NAMES = ("chromium", "chromium-browser")  # Debian, Ubuntu
DB_FILE = "rewind.db"  # the host's store in its data dir (rewind.profile.stores.DB_NAME)

T = TypeVar("T")


class HarnessError(RuntimeError):
    """Something needed is missing or broke; the message says what to install or run."""


# ---- waiting ----------------------------------------------------------------------------


def wait_until(check: Callable[[], T], timeout: float, what: str, interval: float = 0.1) -> T:
    """Poll `check` until it returns something truthy; TimeoutError naming `what` if never."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() >= deadline:
            raise TimeoutError(f"gave up after {timeout:.0f} s waiting for {what} (last: {got!r})")
        time.sleep(interval)


# ---- what the harness needs ---------------------------------------------------------------


def find_chromium() -> str | None:
    """$REWIND_CHROMIUM, else Debian's `chromium` on PATH (Playwright cannot fetch its own)."""
    forced = os.environ.get("REWIND_CHROMIUM")
    if forced:
        return forced if Path(forced).exists() else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def extension_id() -> str:
    ext_id = identity.read_extension_id()
    if not ext_id:
        raise HarnessError("extension/EXTENSION_ID is missing: run this from a Rewind checkout.")
    return ext_id


def build_extension(out: Path) -> Path:
    """The loadable extension in `out` (extension/build.mjs: sources + pinned Readability)."""
    node = shutil.which("node")
    if not node:
        raise HarnessError("Node.js is missing: install Node.js 20+ to build the extension.")
    if not (EXTENSION_SRC / "node_modules" / "@mozilla" / "readability").is_dir():
        raise HarnessError(
            "The extension's npm packages are missing: run `python3 build.py build` "
            "(it runs npm ci in extension/)."
        )
    done = subprocess.run(
        [node, str(EXTENSION_SRC / "build.mjs"), str(out)],
        cwd=EXTENSION_SRC,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise HarnessError(f"node build.mjs failed: {done.stderr.strip()[-800:]}")
    return out


def register_host(user_data_dir: Path, host_dir: Path) -> Path:
    """Register the real host for a browser started with --user-data-dir=`user_data_dir`.

    The launcher is written in `host_dir`; the registration Env has an empty home and
    finds no browser, so nothing is written for the person's own browsers.
    """
    env = browsers.Env(
        home=host_dir / "home", app_dir=host_dir, which=lambda _name: None, applications=()
    )
    report = register.install(
        extension_id(), python=sys.executable, env=env, user_data_dirs=[user_data_dir]
    )
    others = [name for name, _ in report.written if not name.startswith("--user-data-dir")]
    if others:  # the Env above must keep registration inside the throwaway folders
        raise HarnessError(f"registration also wrote for {others}; refusing to go on")
    return register.launcher_path(env)


def unregister_host(user_data_dir: Path) -> None:
    (user_data_dir / "NativeMessagingHosts" / register.MANIFEST_FILE).unlink(missing_ok=True)


# ---- the host's side ----------------------------------------------------------------------


def store_pages(data_dir: Path) -> list[dict]:
    """The pages in the host's store, read through the engine opened read-only."""
    from rewind.errors import RewindError
    from rewind.profile.engine import Rewind

    if not (data_dir / DB_FILE).exists():
        return []  # the host has not said hello yet
    try:
        eng = Rewind.open(data_dir, writer=False, embedder=None)
    except RewindError:
        return []
    try:
        pages: list[dict] = []
        while True:
            batch = eng.list_pages(len(pages), 500)
            pages += batch
            if len(batch) < 500:
                return pages
    finally:
        eng.close()


def host_pids(data_dir: Path) -> list[int]:
    """Running `rewind serve` processes started for this data dir (Linux: /proc)."""
    marker = f"REWIND_DATA_DIR={data_dir}".encode()
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            if not (b"rewind" in argv and b"serve" in argv):
                continue  # zombies have an empty cmdline: they have exited
            if marker in (proc / "environ").read_bytes().split(b"\0"):
                pids.append(int(proc.name))
        except OSError:
            continue  # gone meanwhile, or not ours to read
    return pids


# ---- the browser --------------------------------------------------------------------------


class RewindBrowser:
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

    # -- what the extension says --

    def settings(self, **patch: Any) -> dict:
        """Change the extension's own settings as the options page does; returns them all."""
        got = self.evaluate(
            "patch => globalThis.__rewind.action('set_local_settings', {settings: patch})", patch
        )
        return got["settings"]

    def host_info(self) -> dict:
        return self.evaluate("globalThis.__rewind.host()")

    def wait_connected(self, timeout: float = 90) -> dict:
        """Until the worker's port to the host has said hello (the host loads its model)."""

        def connected() -> dict | None:
            info = self.host_info()
            if info.get("state") == "connected":
                return info
            if info.get("state") in ("idle", "host_missing", "error", "disconnected"):
                # Ask again (the worker retries by itself, but only every few seconds).
                self.evaluate("globalThis.__rewind.action('reconnect')")
            return None

        return wait_until(connected, timeout, "the host to connect", interval=0.25)

    def queue(self) -> dict:
        """The persistent queue as stored: {items, failed, last_indexed}."""
        return self.evaluate(
            "chrome.storage.local.get('queue').then(g => g.queue || "
            "{items: [], failed: [], last_indexed: null})"
        )

    def known_urls(self) -> set[str]:
        """URLs whose content hash the extension remembers (sent to the host once)."""
        got = self.evaluate(
            "chrome.storage.local.get('known_hashes').then(g => Object.keys(g.known_hashes || {}))"
        )
        return set(got)

    def dwell_urls(self) -> set[str]:
        """URLs with a visit on the dwell clock right now."""
        snap = self.evaluate("globalThis.__rewind.dwell()")
        return {v.get("url") for v in (snap.get("visits") or {}).values()}

    def seen_by_extension(self, url: str) -> bool:
        q = self.queue()
        items = q.get("items", []) + q.get("failed", [])
        return (
            any(it.get("url") == url for it in items)
            or url in self.known_urls()
            or url in self.dwell_urls()
        )

    def search(self, query: str, mode: str = "keyword") -> list[dict]:
        """The host's search results, asked through the worker's own port."""
        reply = self.evaluate(
            "([q, m]) => globalThis.__rewind.request('search', {query: q, mode: m, limit: 20})",
            [query, mode],
        )
        return reply["results"]

    def page_status(self) -> dict:
        """What the worker tells the popup about the page in front."""
        return self.evaluate("globalThis.__rewind.action('page_status')")

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

    # -- what the host has --

    def store_urls(self) -> set[str]:
        return {p["url"] for p in store_pages(self.data_dir)}

    def wait_indexed(self, urls: list[str], timeout: float = 120) -> list[dict]:
        """Until every URL is in the host's store; returns their store records."""

        def indexed() -> list[dict] | None:
            pages = {p["url"]: p for p in store_pages(self.data_dir)}
            return [pages[u] for u in urls] if all(u in pages for u in urls) else None

        return wait_until(indexed, timeout, f"{len(urls)} page(s) in the host's store", 0.25)

    def host_pids(self) -> list[int]:
        return host_pids(self.data_dir)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.ctx.close()
