"""Your data, your rules, in the browser: "Forget" on a side-panel result removes the page
from every store and from the extension's memory; the options page's backup downloads a
real file that `rewind import` restores elsewhere.

One browser for the module; it reads three short pages of the real Python documentation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from demo.harness import RewindBrowser, store_pages

pytestmark = pytest.mark.browser

DOCS = ["tutorial/venv.html", "faq/gui.html", "tutorial/appetite.html"]
UI_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def browser(launch, docs_url) -> RewindBrowser:
    b = launch("data")
    b.wait_connected()
    b.settings(dwellSeconds=1)
    b.read_all([docs_url(p) for p in DOCS])
    return b


def stores(data_dir, model_dir) -> dict[str, set[str]]:
    """Each store read directly: URLs in SQLite, in tantivy, with vectors."""
    from rewind.profile.engine import Rewind

    with Rewind.open(data_dir, writer=False, model_dir=model_dir) as eng:
        store = eng.reader()
        text, vec = eng.text_index_state(), eng.vector_state()
        rows = store.passages_by_ids(text.stored | text.indexed)
        pages = store.pages_by_ids({page_id for page_id, _p in rows.values()})

        def url_of(pids):
            return {pages[rows[p][0]].url for p in pids if p in rows}

        return {"store": {p["url"] for p in eng.list_pages(0, 100)},
                "text_index": url_of(text.indexed), "vectors": url_of(vec.vector_ids)}


def test_no_page_text_in_any_file_of_the_data_folder(browser):
    """What the browser sent is sealed: a phrase of a page read is in no file (the
    database, its WAL, tantivy's files, the logs), whichever encoding."""
    phrases = ["self-contained directory tree", "Graphic User Interface FAQ",
               "search-and-replace over a large number"]
    found = []
    for f in browser.data_dir.rglob("*"):
        if f.is_file():
            data = f.read_bytes().lower()
            found += [f"{f.name}: {p}" for p in phrases if p.lower().encode() in data]
    assert (browser.data_dir / "rewind.db-wal").exists()
    assert found == []


def test_forget_from_a_side_panel_result(browser, docs_url, model_dir):
    gui = docs_url("faq/gui.html")
    assert gui in browser.known_urls()
    panel = browser.extension_page("sidepanel.html")
    expect(panel.locator("#status-text")).to_contain_text("Connected", timeout=UI_TIMEOUT_MS)
    panel.get_by_label("Keyword").check()
    panel.locator("#q").click()
    panel.keyboard.type("Tkinter", delay=25)
    hit = panel.locator("#results > li").filter(has=panel.locator(f'a[href^="{gui}"]'))
    expect(hit).to_have_count(1, timeout=UI_TIMEOUT_MS)
    asked: list[str] = []
    panel.on("dialog", lambda d: (asked.append(d.message), d.accept()))
    hit.hover()
    hit.get_by_role("button", name="Forget this page").click()
    expect(panel.locator("#search-status")).to_contain_text("Forgotten", timeout=UI_TIMEOUT_MS)
    expect(hit).to_have_count(0)
    assert asked and gui in asked[0]  # it asked first
    # gone from each store, read directly, and from what the extension remembers
    s = stores(browser.data_dir, model_dir)
    for where, urls in s.items():
        assert gui not in urls, where
        assert docs_url("tutorial/venv.html") in urls, where
    assert gui not in browser.known_urls()
    assert not any(it.get("url") == gui for it in browser.queue().get("items", []))
    assert all(r["url"] != gui for r in browser.search("Tkinter"))
    panel.close()


def test_options_backup_downloads_a_file_rewind_import_restores(browser, docs_url, tmp_path,
                                                               model_dir):
    options = browser.extension_page("options.html#data", width=900)
    expect(options.locator("#data-dir")).to_contain_text("Data folder", timeout=UI_TIMEOUT_MS)
    expect(options.locator("#storage")).to_contain_text("Encrypted on this computer")
    options.locator("#backup-passphrase").fill("correct horse battery")
    with options.expect_download(timeout=UI_TIMEOUT_MS) as dl:
        options.get_by_role("button", name="Download a backup").click()
    saved = tmp_path / dl.value.suggested_filename
    dl.value.save_as(saved)
    expect(options.locator("#export-msg")).to_contain_text("encrypted with your passphrase")
    assert saved.suffix == ".rwb" and saved.read_bytes().startswith(b"REWINDBK")
    options.close()

    kept = {p["url"] for p in store_pages(browser.data_dir)}
    elsewhere = tmp_path / "another-computer"
    (tmp_path / "pw").write_text("correct horse battery\n")
    env = {**os.environ, "REWIND_MODEL_DIR": str(model_dir)}
    run = subprocess.run([sys.executable, "-m", "rewind", "--data-dir", str(elsewhere), "import",
                          str(saved), "--passphrase-file", str(tmp_path / "pw"), "--json"],
                         capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["new"] == len(kept) and result["embedded"] == 0
    assert {p["url"] for p in store_pages(elsewhere)} == kept
    found = subprocess.run([sys.executable, "-m", "rewind", "--data-dir", str(elsewhere),
                            "search", "virtual environment packages", "--json"],
                           capture_output=True, text=True, timeout=300, env=env)
    assert json.loads(found.stdout)["results"][0]["url"] == docs_url("tutorial/venv.html")
