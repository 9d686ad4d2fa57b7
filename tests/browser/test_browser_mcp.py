"""The options page's "AI tools (MCP)" section in real Chromium with the real extension and
host: a tool is refused until the person allows it there; once allowed, `rewind mcp` (the
SDK's stdio client) reads the pages the browser recorded while the browser's host runs,
and the page then says "Claude Desktop read N pages today" with a link to the log of what
it read.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect
from support.mcp_session import McpSession

from demo.harness import RewindBrowser

pytestmark = pytest.mark.browser

DOCS = ["faq/gui.html", "tutorial/appetite.html"]
UI_TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def browser(launch, docs_url) -> RewindBrowser:
    b = launch("mcp")
    b.wait_connected()
    b.settings(dwellSeconds=1)
    b.read_all([docs_url(p) for p in DOCS])
    return b


def test_a_tool_reads_only_once_allowed_and_the_page_shows_what_it_read(
        browser, docs_url, model_dir, tmp_path):
    options = browser.extension_page("options.html#ai-tools", width=900)
    today = options.locator("#mcp-claude-desktop-today")
    expect(today).to_contain_text("Claude Desktop has read nothing today.",
                                  timeout=UI_TIMEOUT_MS)
    expect(options.locator("#mcp-claude-desktop-card h3")).to_contain_text("off")
    config = json.loads(options.locator("#mcp-claude-desktop-config").text_content())
    assert config["mcpServers"]["rewind"]["args"][-3:] == ["mcp", "--client",
                                                            "claude-desktop"]

    with McpSession(browser.data_dir, model_dir, errlog=tmp_path / "mcp1.txt") as mcp:
        refused = mcp.call("search_history", query="GUI toolkits for Python")
        assert refused.is_error and "not enabled" in mcp.text(refused)

    options.locator("#mcp-claude-desktop-enabled").check()
    options.get_by_text("What it may see").first.click()  # the scope, folded while off
    options.locator("#mcp-claude-desktop-not-sites").fill("bank.example")
    options.locator("#mcp-claude-desktop-save").click()
    expect(options.locator("#mcp-claude-desktop-msg")).to_have_text("Saved.",
                                                                    timeout=UI_TIMEOUT_MS)
    expect(options.locator("#mcp-claude-desktop-card h3")).to_contain_text("on")

    gui, appetite = (docs_url(p) for p in DOCS)
    with McpSession(browser.data_dir, model_dir, errlog=tmp_path / "mcp2.txt") as mcp:
        found = mcp.call("search_history", query="GUI toolkits for Python", limit=5)
        assert not found.is_error, mcp.text(found)
        urls = {r["url"] for r in found.structured_content["results"]}
        assert gui in urls
        page = mcp.call("read_page", url=appetite, max_tokens=200)
        assert not page.is_error and page.structured_content["passages"]
    given = urls | {appetite}

    options.reload()
    expect(today).to_contain_text(
        f"Claude Desktop read {len(given)} page{'s' if len(given) != 1 else ''} today "
        "(1 call refused).", timeout=UI_TIMEOUT_MS)
    options.locator("#mcp-claude-desktop-log-link").click()
    log = options.locator("#mcp-log")
    expect(log).to_be_visible()
    expect(log).to_contain_text("What Claude Desktop read")
    expect(log).to_contain_text("search_history “GUI toolkits for Python”")
    expect(log).to_contain_text("refused (not enabled)")
    # given by the search (when it was) and by read_page
    expect(log.locator(f'a[href="{appetite}"]')).to_have_count(1 + (appetite in urls))
    options.close()
