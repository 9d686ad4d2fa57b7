"""`rewind mcp` end to end: the installed command as a subprocess, the SDK's own stdio client.

Real parts only: the Python documentation's HTML indexed with the real MiniLM model into an
encrypted store (real tantivy), the offline GGUF model answering, `rewind mcp --setup`
and `rewind forget` run as a person runs them, the audit log read from disk.
"""

from __future__ import annotations

import json

import pytest
from mcp_history import PRIVATE, rewind_cli
from rewind.answers.prompt import COULD_NOT_FIND
from rewind.mcp.render import NOTE
from support.mcp_session import McpSession

TOOLS = {"search_history", "read_page", "build_context", "ask_history", "recent_pages"}
CALLS = {  # one valid call of each tool
    "search_history": {"query": "python script windows"},
    "read_page": {"url": "https://docs.python.org/3/faq/gui.html"},
    "build_context": {"query": "tkinter", "token_budget": 200},
    "ask_history": {"question": "What GUI toolkits exist for Python?"},
    "recent_pages": {"since": "7d"},
}


def audit_lines(data_dir) -> list[dict]:
    path = data_dir / "audit.log"
    lines = [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []
    return [e for e in lines if e["event"] == "mcp"]


def urls_in(result) -> set[str]:
    """Every URL a tool result names: in its structured content and in its text."""
    data = json.dumps(result.structured_content or {})
    text = "\n".join(c.text for c in result.content)
    return {u for u in _URL_WORDS(data + "\n" + text)}


def _URL_WORDS(text: str) -> list[str]:  # noqa: N802 - a tiny tokenizer
    import re

    return re.findall(r"https?://[^\s\"'<>\\]+", text)


@pytest.fixture(scope="module")
def enabled(docs_history, llm_dir):
    """Claude Desktop set up by the person: everything but the private site, the last 30
    days, answers may use the language model."""
    done = rewind_cli("mcp", "--setup", "claude-desktop", "--exclude", PRIVATE, "--days",
                      "30", "--llm", data_dir=docs_history.data_dir)
    assert done.returncode == 0, done.stderr
    assert "may now read your history" in done.stdout and '"mcpServers"' in done.stdout
    return docs_history


@pytest.fixture(scope="module")
def session(enabled, llm_dir, tmp_path_factory):
    with McpSession(enabled.data_dir, llm_dir,
                    errlog=tmp_path_factory.mktemp("log") / "stderr.txt") as s:
        yield s


def test_lists_five_read_only_tools_described_for_a_model(session):
    tools = {t.name: t for t in session.list_tools()}
    assert set(tools) == TOOLS
    for t in tools.values():
        assert len(t.description) > 150, t.name  # what it is for and when to use it
        assert t.annotations.read_only_hint and not t.annotations.destructive_hint
        props = t.input_schema["properties"]
        assert props and all(p.get("description") for p in props.values()), t.name
    assert tools["search_history"].input_schema["required"] == ["query"]
    assert tools["search_history"].input_schema["properties"]["mode"]["enum"] == [
        "hybrid", "semantic", "keyword"]
    assert tools["build_context"].input_schema["properties"]["token_budget"]["maximum"] \
        == 32_768
    # no way to write: a tool that is not one of these is refused
    refused = session.call("forget", url="https://docs.python.org/3/faq/gui.html")
    assert refused.is_error and "forget" in session.text(refused)


def test_search_history_finds_a_page_indexed_from_real_html(session, enabled):
    r = session.call("search_history", query="how do I make a Python script executable on "
                     "Windows", limit=3)
    assert not r.is_error, session.text(r)
    results = r.structured_content["results"]
    assert results[0]["url"] == enabled.urls["windows"]
    assert results[0]["title"] and results[0]["last_read"] and results[0]["snippet"]
    text = session.text(r)
    assert NOTE in text and "[1] " in text and "URL: " + enabled.urls["windows"] in text
    assert "<<<\n" in text and "\n>>>" in text
    keyword = session.call("search_history", query="Tkinter", mode="keyword", site="python.org")
    assert keyword.structured_content["results"][0]["url"] == enabled.urls["gui"]


def test_build_context_respects_the_budget_exactly_and_numbers_its_sources(
        session, gguf_tokenizer):
    packed = {}
    for budget in (120, 300, 900):
        r = session.call("build_context", query="how do I freeze a Tkinter application "
                         "on Windows", token_budget=budget)
        assert not r.is_error, session.text(r)
        d = r.structured_content
        counted = gguf_tokenizer.count(d["context"])
        assert d["total_tokens"] == counted <= budget, (budget, counted)
        assert d["budget"] == budget and d["tokenizer"] == gguf_tokenizer.name
        numbers = [s["n"] for s in d["sources"]]
        assert numbers == list(range(1, len(numbers) + 1))
        at = [d["context"].index(f"[Source {n}]") for n in numbers]
        assert at == sorted(at)  # numbered in order of appearance
        assert {i["source"] for i in d["items"]} == set(numbers)
        assert sum(i["tokens"] for i in d["items"]) <= budget
        assert session.text(r) == d["context"]
        packed[budget] = counted
    assert packed[120] < packed[300] < packed[900]
    assert packed[900] > 600  # there was enough to fill it: the budget, not the history, cut
    tiny = session.call("build_context", query="tkinter", token_budget=20)
    assert tiny.structured_content["context"] == "" and tiny.structured_content[
        "total_tokens"] == 0
    assert "Not even one source fits in 20 tokens" in session.text(tiny)


def test_read_page_within_its_budget_and_in_order(session, enabled, gguf_tokenizer):
    r = session.call("read_page", url=enabled.urls["windows"], max_tokens=120)
    d = r.structured_content
    assert not r.is_error and d["start"] == 1 and d["tokens"] <= 120
    assert gguf_tokenizer.count("\n…\n".join(d["passages"])) == d["tokens"]
    assert d["next_start"] == d["end"] + 1
    more = session.call("read_page", url=enabled.urls["windows"], max_tokens=120,
                        start=d["next_start"])
    assert more.structured_content["passages"][0] != d["passages"][0]


def test_ask_history_refuses_a_question_the_history_does_not_hold(session):
    r = session.call("ask_history", question="What is the boiling point of liquid nitrogen?")
    assert not r.is_error
    assert r.structured_content["supported"] is False
    assert session.text(r).startswith(COULD_NOT_FIND)
    answered = session.call("ask_history",
                            question="How do I make Python scripts executable on Windows?")
    d = answered.structured_content
    assert d["model"] and d["model"].startswith("smollm2")  # the GGUF model was allowed
    assert any("windows" in s["url"] for s in d["sources"])


@pytest.mark.parametrize("tool,args", [
    ("search_history", {"query": "creating virtual environments with venv"}),
    ("search_history", {"query": "venv pip requirements", "mode": "keyword"}),
    ("search_history", {"query": "floating point representation error 0.1"}),
    ("build_context", {"query": "virtual environments venv pip", "token_budget": 2000}),
    ("build_context", {"query": "floating point arithmetic issues", "token_budget": 2000}),
    ("ask_history", {"question": "How do I create a virtual environment?"}),
    ("recent_pages", {"since": "400d", "limit": 100}),
    ("search_history", {"query": "venv", "site": PRIVATE}),
])
def test_out_of_scope_pages_are_never_returned(session, enabled, tool, args):
    r = session.call(tool, **args)
    assert not r.is_error, session.text(r)
    named = urls_in(r)
    assert enabled.urls["private"] not in named and enabled.urls["old"] not in named
    assert PRIVATE not in session.text(r)


@pytest.mark.parametrize("name", ["private", "old"])
def test_reading_an_out_of_scope_page_is_like_reading_a_page_never_stored(
        session, enabled, name):
    r = session.call("read_page", url=enabled.urls[name])
    missing = session.call("read_page", url="https://docs.python.org/3/never-read.html")
    assert r.is_error and missing.is_error
    assert "No page at" in session.text(r) and "No page at" in session.text(missing)


def test_a_forgotten_page_is_never_returned(session, enabled):
    url = enabled.urls["forget"]
    query = "the interactive interpreter startup file"
    before = session.call("search_history", query=query)
    assert url in urls_in(before)
    done = rewind_cli("forget", "--url", url, data_dir=enabled.data_dir)  # another process
    assert done.returncode == 0, done.stderr
    for tool, args in [("search_history", {"query": query}),
                       ("search_history", {"query": "interpreter", "mode": "keyword"}),
                       ("build_context", {"query": query, "token_budget": 3000}),
                       ("recent_pages", {"since": "30d"}),
                       ("ask_history", {"question": "How do I start the Python interpreter?"})]:
        r = session.call(tool, **args)
        assert url not in urls_in(r), tool
    # the calls that were given it before went from the log with it
    assert not any(url in json.dumps(e) for e in audit_lines(enabled.data_dir))
    assert session.call("read_page", url=url).is_error
    asked = audit_lines(enabled.data_dir)[-1]  # what the tool asked for, after the forget
    assert asked["query"] == url and asked["pages"] == 0 and asked["refused"] == "not_found"


def test_with_access_off_every_tool_says_not_enabled(enabled, llm_dir, tmp_path):
    with McpSession(enabled.data_dir, llm_dir, client="vscode",
                    errlog=tmp_path / "stderr.txt") as s:
        before = len(audit_lines(enabled.data_dir))
        for tool, args in CALLS.items():
            r = s.call(tool, **args)
            assert r.is_error, tool
            text = s.text(r)
            assert "not enabled" in text and "VS Code" in text and "Nothing was read" in text
            assert "rewind mcp --setup vscode" in text
        lines = audit_lines(enabled.data_dir)[before:]
        assert [(e["tool"], e["client"], e["refused"], e["pages"]) for e in lines] == [
            (tool, "vscode", "not enabled", 0) for tool in CALLS]
        # turned on (as the options page does) while the server runs: the next call reads
        on = rewind_cli("mcp", "--setup", "vscode", data_dir=enabled.data_dir)
        assert on.returncode == 0, on.stderr
        assert not s.call("search_history", query="tkinter").is_error
        off = rewind_cli("mcp", "--setup", "vscode", "--off", data_dir=enabled.data_dir)
        assert off.returncode == 0, off.stderr
        assert s.call("search_history", query="tkinter").is_error


def test_each_call_leaves_one_audit_line_without_page_text(session, enabled):
    before = len(audit_lines(enabled.data_dir))
    for tool, args in CALLS.items():
        r = session.call(tool, **args)
        assert not r.is_error, (tool, session.text(r))
    lines = audit_lines(enabled.data_dir)[before:]
    assert [e["tool"] for e in lines] == list(CALLS)
    for e in lines:
        assert e["client"] == "claude-desktop" and e["pages"] == len(e.get("urls", []))
        assert set(e) <= {"at", "event", "client", "tool", "query", "pages", "urls",
                          "refused"}
    assert lines[0]["query"] == "python script windows" and lines[0]["pages"] > 0
    log = (enabled.data_dir / "audit.log").read_text()
    for passage in enabled.texts:
        for piece in (passage[:40], passage[-40:]):
            if len(piece) == 40:
                assert piece not in log
    shown = rewind_cli("log", "--event", "mcp", "-n", "5", data_dir=enabled.data_dir)
    assert shown.returncode == 0 and "recent_pages" in shown.stdout


def test_a_client_started_without_a_name_is_the_one_it_reports(enabled, llm_dir, tmp_path):
    """Claude Desktop reports itself as "claude-ai": its access applies."""
    with McpSession(enabled.data_dir, llm_dir, client=None, reported_name="claude-ai",
                    errlog=tmp_path / "stderr.txt") as s:
        assert not s.call("search_history", query="tkinter").is_error
    with McpSession(enabled.data_dir, llm_dir, client=None, reported_name="some-agent",
                    errlog=tmp_path / "stderr2.txt") as s:
        assert "not enabled" in s.text(s.call("search_history", query="tkinter"))
