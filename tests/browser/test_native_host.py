"""Real Chromium reaches the registered host: registration, launcher, origin and framing.

A minimal MV3 extension carrying the real extension's `key` (so it has the real ID) is
loaded into Debian's Chromium with a temporary --user-data-dir; the host is registered
there with `register.install`, exactly as `build.py install` does for a custom profile.
The extension's worker talks to the host through `chrome.runtime.connectNative`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import time
from pathlib import Path

import pytest
from rewind.install import browsers, register
from rewind.native import identity

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"

WORKER = """
// Test hook (module-scope state is invisible to evaluate): one request, all its frames.
globalThis.rewindCall = (requests) => new Promise((resolve) => {
  const port = chrome.runtime.connectNative("com.rewind.host");
  const frames = [];
  let pending = requests.length;
  port.onMessage.addListener((msg) => {
    frames.push({ id: msg.id, ok: msg.ok, done: msg.done, size: JSON.stringify(msg).length,
                  pages: (msg.pages || []).map((p) => [p.url, (p.passages || []).length,
                                                       Boolean(p.continued)]),
                  error: msg.error || null, profile: msg.profile || null,
                  results: (msg.results || []).map((r) => r.url) });
    if (msg.done && --pending === 0) { port.disconnect(); resolve({ frames }); }
  });
  port.onDisconnect.addListener(() => resolve({
    frames, disconnected: chrome.runtime.lastError ? chrome.runtime.lastError.message : "" }));
  for (const r of requests) port.postMessage(r);
});
"""


def extension_id(key_b64: str) -> str:
    digest = hashlib.sha256(base64.b64decode(key_b64)).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


@pytest.fixture
def browser_ctx(tmp_path):
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is not installed (python3 build.py test installs it)")
    from playwright.sync_api import sync_playwright

    manifest = json.loads((ROOT / "extension" / "manifest.json").read_text())
    ext_id = identity.read_extension_id()
    assert ext_id == extension_id(manifest["key"])
    ext = tmp_path / "ext"
    ext.mkdir()
    (ext / "manifest.json").write_text(
        json.dumps(
            {
                "manifest_version": 3,
                "name": "rewind host smoke",
                "version": "0.0.1",
                "key": manifest["key"],
                "permissions": ["nativeMessaging"],
                "background": {"service_worker": "worker.js"},
            }
        )
    )
    (ext / "worker.js").write_text(WORKER)
    profile = tmp_path / "chromium-profile"
    env = browsers.Env(home=tmp_path / "home", app_dir=tmp_path / "app")
    register.install(ext_id, env=env, user_data_dirs=[profile])
    data = tmp_path / "data"
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=[f"--disable-extensions-except={ext}", f"--load-extension={ext}"],
            env={
                **os.environ,
                "REWIND_DATA_DIR": str(data),
                "REWIND_MODEL_DIR": str(tmp_path / "no-models"),
            },
        )
        worker = (
            ctx.service_workers[0]
            if ctx.service_workers
            else ctx.wait_for_event("serviceworker", timeout=15_000)
        )
        assert worker.url.startswith(f"chrome-extension://{ext_id}/")
        yield ctx, worker, data
        ctx.close()


def host_pids(log: Path) -> set[int]:
    return {int(m) for m in re.findall(r"serving \S+ \(pid (\d+)\)", log.read_text())}


def test_the_extension_gets_a_hello_reply_and_the_host_exits(browser_ctx):
    ctx, worker, data = browser_ctx
    got = worker.evaluate("rewindCall([{id: 'h', type: 'hello', protocol: 1, profile: 'smoke'}])")
    assert "disconnected" not in got, got
    [hello] = got["frames"]
    assert hello["ok"] is True and hello["profile"] == "smoke"
    # The port was closed after the reply: the host got EOF and must be gone.
    pids = host_pids(data / "host.log")
    assert len(pids) == 1
    deadline = time.monotonic() + 3
    while any(Path(f"/proc/{p}").exists() for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(Path(f"/proc/{p}").exists() for p in pids)


def test_multi_frame_export_passes_the_browser_limit(browser_ctx):
    _ctx, worker, _data = browser_ctx

    def long_text(i: int) -> str:  # one page of ~1.1 MB
        para = " ".join(f"w{i}x{j} bülk prüning tëxt" for j in range(30))
        return "\n\n".join([para] * (990_000 // (len(para) + 2)))

    hello = {"id": "h", "type": "hello", "profile": "smoke"}
    writes = [hello] + [
        {
            "id": f"p{i}",
            "type": "index_page",
            "page": {
                "url": f"https://long.example/{i}",
                "title": f"Long {i}",
                "text": long_text(i),
            },
        }
        for i in range(2)
    ]
    got = worker.evaluate("(r) => rewindCall(r)", writes)
    assert all(f["ok"] for f in got["frames"]), got
    # Replies of reads do not wait for writes (PROTOCOL.md): read on a new connection.
    reads = [
        hello,
        {"id": "s", "type": "search", "query": "prüning", "mode": "keyword"},
        {"id": "e", "type": "export"},
    ]
    got = worker.evaluate("(r) => rewindCall(r)", reads)
    assert "disconnected" not in got, got  # a frame over 1 MiB would have killed the port
    by_id = {}
    for f in got["frames"]:
        by_id.setdefault(f["id"], []).append(f)
    assert by_id["s"][-1]["results"][0].startswith("https://long.example/")
    export = by_id["e"]
    assert len(export) >= 3 and export[-1]["done"] and export[-1]["ok"]
    parts = [p for f in export for p in f["pages"]]
    assert any(cont for _, _, cont in parts)  # a page over 1 MiB arrived in parts
    assert {u for u, _, _ in parts} == {"https://long.example/0", "https://long.example/1"}
