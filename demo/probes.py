"""What the extension and the host say, asked the way the browser tests and the demo ask.

Job: `Probes`, the half of RewindBrowser (demo/harness.py) that only asks: the extension's
settings, its port to the host, its queue, the URLs it knows and the pages on the dwell
clock (through the worker's test hooks, globalThis.__rewind), the host's search through the
worker's own port, and what the host has stored (waiting until given URLs are there).
Never: change anything but the extension's own settings (`settings(**patch)`, as the
options page does).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from demo.host_store import host_pids, store_pages
from demo.waiting import wait_until


class Probes:
    """Mixed into RewindBrowser, which gives it `evaluate` (in the worker) and `data_dir`."""

    data_dir: Path

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        raise NotImplementedError  # RewindBrowser.evaluate

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
